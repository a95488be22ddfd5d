/**
 * Analytics store port: ClickHouse SQL. Adapters: chDB in-process (embedded twin) and a
 * ClickHouse server over HTTP (CLICKHOUSE_URL). Both run through @clickhouse/client, so the SQL
 * and the client API are the same; test/contracts/analytics-store.contract.ts holds both to it.
 */
export type QueryParams = Record<string, unknown>;

export interface InsertOptions {
  /**
   * Deterministic token for this batch (e.g. `<topic>-<partition>-<first>-<last>`): a retried insert
   * with the same token adds no rows to the table or to its materialized views.
   */
  dedupToken?: string;
}

export interface AnalyticsStore {
  /** Database all unqualified table names resolve to. */
  readonly database: string;
  /** DDL and other statements without a result. */
  command(sql: string, params?: QueryParams): Promise<void>;
  insert<Row extends object>(table: string, rows: Row[], options?: InsertOptions): Promise<void>;
  /** Typed parameters use ClickHouse's `{name:Type}` placeholders. */
  query<Row>(sql: string, params?: QueryParams): Promise<Row[]>;
  close(): Promise<void>;
}
