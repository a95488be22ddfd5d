/** The sandbox concurrency proofs on a PostgreSQL server (real row locks, a pool of connections). */
import { migrateControlStore } from '../../services/control/migrate.js';
import { openPgStore } from '../../services/control/pg-store.js';
import type { ControlStore } from '../../services/ports/control-store.js';
import { describeSandboxConcurrency } from '../support/sandbox-concurrency.js';
import { createDatabase } from './engines.js';

let store: ControlStore | undefined;
afterAll(() => store?.close());

describeSandboxConcurrency('postgresql', async () => {
  store = await openPgStore({ connectionString: await createDatabase('sandbox'), maxConnections: 20 });
  await migrateControlStore(store);
  return store;
});
