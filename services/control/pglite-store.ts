/** Embedded twin of the control store: PGlite (PostgreSQL compiled to WASM), persistent to a folder. */
import { PGlite } from '@electric-sql/pglite';
import fs from 'node:fs';
import type { ControlStore, SqlExecutor } from '../ports/control-store.js';

export async function openPgliteStore(directory: string): Promise<ControlStore> {
  fs.mkdirSync(directory, { recursive: true });
  const db = await PGlite.create(directory);
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
