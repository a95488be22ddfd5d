/**
 * Control store on a PostgreSQL server through `pg`: the same SQL and migrations as the PGlite
 * twin. A pool serves plain queries (the API is stateless and may run as several processes, each
 * with its own pool); a transaction holds one pooled client from BEGIN to COMMIT/ROLLBACK.
 */
import pg from 'pg';
import type { ControlStore, SqlExecutor } from '../ports/control-store.js';

export interface PgStoreOptions {
  connectionString: string;
  /** Connections per process. Default 10. */
  maxConnections?: number;
}

export async function openPgStore(options: PgStoreOptions): Promise<ControlStore> {
  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.maxConnections ?? 10 });
  // An idle client that loses its server (restart) emits here; without a listener it would crash the process.
  pool.on('error', () => undefined);
  // Fail at open, not at the first request, when the server is unreachable.
  await pool.query('SELECT 1');
  return {
    async query<Row>(sql: string, params: unknown[] = []) {
      return (await pool.query(sql, params)).rows as Row[];
    },
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work({
          query: async <Row>(sql: string, params: unknown[] = []) => (await client.query(sql, params)).rows as Row[],
        });
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}
