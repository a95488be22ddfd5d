import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openChdbStore } from '../../services/analytics/clickhouse-store.js';
import { describeAnalyticsStoreContract } from '../contracts/analytics-store.contract.js';

// chDB is one engine per process: every database of this file shares one data folder.
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-chdb-'));
describeAnalyticsStoreContract('chDB in-process', (database) => openChdbStore({ path: folder, database }));
