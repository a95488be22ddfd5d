/**
 * Embedded twin of the control store: PGlite (PostgreSQL compiled to WASM), persistent to a folder.
 * The folder is owner-only (0700), existing ones included: PGlite creates its files, the WAL among
 * them (webhook secrets in plain text), mode 0666 whatever the umask, so the folder is what keeps
 * other local users out (issue 59, low).
 */
import { PGlite } from '@electric-sql/pglite';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ControlStore, SqlExecutor } from '../ports/control-store.js';

/**
 * PostgreSQL's default 128 MB of shared buffers live in PGlite's WASM memory, resident for the process's
 * life; the control store (keys, accounts, subscriptions, intents) is small and its statements touch a
 * few pages, so 16 MB holds its working set (bench/results/idle-rss.json measures the difference).
 */
const SHARED_BUFFERS = '16MB';

export async function openPgliteStore(directory: string): Promise<ControlStore> {
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  fs.chmodSync(directory, 0o700);
  if (!fs.existsSync(path.join(directory, 'PG_VERSION'))) await initCluster(directory);
  const db = await PGlite.create(directory, { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`] });
  return {
    async query<Row>(sql: string, params: unknown[] = []) {
      return (await db.query<Row>(sql, params)).rows;
    },
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>) {
      return db.transaction(async (tx) =>
        work({ query: async <Row>(sql: string, params: unknown[] = []) => (await tx.query<Row>(sql, params)).rows }),
      );
    },
    async close() {
      await db.close();
    },
  };
}

/**
 * Creates a new cluster (initdb) in a child Node process. initdb grows PGlite's WASM memory to several
 * hundred MB; freed in this process, most of it stayed resident for the service's life (the fresh-folder
 * figure of bench/results/idle-rss.json against the restart one), while a child's memory goes back to
 * the system when it exits. The child loads the same PGlite this module does.
 */
async function initCluster(directory: string): Promise<void> {
  const pglite = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const script = 'const [pglite, dir] = process.argv.slice(1); require(pglite).PGlite.create(dir).then((db) => db.close());';
  await promisify(execFile)(process.execPath, ['-e', script, pglite, directory], { timeout: 120_000 });
}
