/**
 * Control store port: PostgreSQL SQL for accounts, API keys and (later) subscriptions.
 * Adapters: PGlite in-process (embedded twin) and a PostgreSQL server through `pg` (DATABASE_URL).
 * SQL uses `$1` placeholders and stays valid PostgreSQL.
 */
export interface SqlExecutor {
  query<Row>(sql: string, params?: unknown[]): Promise<Row[]>;
}

export interface ControlStore extends SqlExecutor {
  /** Runs `work` in one transaction: commits when it resolves, rolls back when it rejects. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
