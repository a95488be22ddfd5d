/**
 * The embedded control store's folder is owner-only: PGlite writes its files (the WAL holds webhook
 * secrets in plain text) mode 0666, so only the folder's mode keeps other local users from reading
 * them (issue 59, low). A folder an older version created with the umask's mode is tightened on open.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrateControlStore } from '../../services/control/migrate.js';
import { openPgliteStore } from '../../services/control/pglite-store.js';

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

test('a new store folder is 0700, and so is one that existed with a wider mode', async () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-pglite-mode-'));
  const fresh = path.join(parent, 'fresh');
  const store = await openPgliteStore(fresh);
  await migrateControlStore(store);
  await store.query(`INSERT INTO rate_windows (scope, window_start, count) VALUES ('mode-test', now(), 1)`);
  await store.close();
  expect(modeOf(fresh)).toBe(0o700);
  // PGlite's own files are world-readable: the folder is the only barrier.
  const walDirectory = path.join(fresh, 'pg_wal');
  expect(fs.existsSync(walDirectory)).toBe(true);

  const older = path.join(parent, 'older');
  fs.mkdirSync(older, { mode: 0o755 });
  fs.chmodSync(older, 0o755);
  const reopened = await openPgliteStore(older);
  await reopened.close();
  expect(modeOf(older)).toBe(0o700);
  fs.rmSync(parent, { recursive: true, force: true });
}, 60_000);
