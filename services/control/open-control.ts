/** Picks the control-store adapter from config: PostgreSQL (`pg`) when DATABASE_URL is set, PGlite under DATA_DIR otherwise. */
import path from 'node:path';
import type { Config } from '../config.js';
import type { ControlStore } from '../ports/control-store.js';
import { migrateControlStore } from './migrate.js';
import { openPgStore } from './pg-store.js';
import { openPgliteStore } from './pglite-store.js';

export async function openControlStore(config: Config): Promise<ControlStore> {
  const store = config.engines.databaseUrl
    ? await openPgStore({ connectionString: config.engines.databaseUrl })
    : await openPgliteStore(path.join(config.dataDir, 'pglite'));
  await migrateControlStore(store);
  return store;
}
