import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPgliteStore } from '../../services/control/pglite-store.js';
import { describeControlStoreContract } from '../contracts/control-store.contract.js';

describeControlStoreContract('PGlite in-process', {
  async open() {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-pglite-'));
    return { store: await openPgliteStore(directory), reopen: () => openPgliteStore(directory) };
  },
});
