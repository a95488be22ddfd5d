/** Picks the control-store adapter from config: PGlite under DATA_DIR unless DATABASE_URL is set. */
import path from 'node:path';
import type { Config } from '../config.js';
import type { ControlStore } from '../ports/control-store.js';
import { migrateControlStore } from './migrate.js';
import { openPgliteStore } from './pglite-store.js';

export async function openControlStore(config: Config): Promise<ControlStore> {
  if (config.engines.databaseUrl) {
    // The `pg` adapter arrives with the "Real engines" work; refusing loudly beats silently
    // writing accounts to a local file the operator did not ask for.
    throw new Error('DATABASE_URL is set, but this build only has the embedded PGlite control store');
  }
  const store = await openPgliteStore(path.join(config.dataDir, 'pglite'));
  await migrateControlStore(store);
  return store;
}
