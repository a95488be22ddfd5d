/**
 * Analytics store port: ClickHouse SQL. Adapters: chDB in-process (embedded twin) and a
 * ClickHouse server over HTTP (CLICKHOUSE_URL). Both run through @clickhouse/client, so the SQL
 * and the client API are the same; test/contracts/analytics-store.contract.ts holds both to it.
 */
import type { QueryLimits } from '../analytics/query-limits.js';

export type QueryParams = Record<string, unknown>;

export interface QueryOptions {
  /** Overrides of single limits for this call (see services/analytics/query-limits.ts). */
  limits?: Partial<QueryLimits>;
}

export interface InsertOptions {
  /**
   * Deterministic token for this batch (e.g. `<topic>-<partition>-<first>-<last>`): a retried insert
   * with the same token adds no rows to the table or to its materialized views.
   */
  dedupToken?: string;
  /**
   * The table feeds several materialized views, each of which groups by its target table's sorting
   * key, and the table itself merges no rows (plain MergeTree): the block is pushed to the views in
   * parallel, and their blocks, whose keys are unique already, skip the insert-time merge.
   */
  fanOut?: boolean;
}

export interface JsonLinesOptions extends InsertOptions {
  /** The lines are JSON arrays of these columns' values (JSONCompactEachRow); without, JSON objects. */
  columns?: readonly string[];
}

export interface AnalyticsStore {
  /** Database all unqualified table names resolve to. */
  readonly database: string;
  /** DDL and other statements without a result. */
  command(sql: string, params?: QueryParams): Promise<void>;
  insert<Row extends object>(table: string, rows: Row[], options?: InsertOptions): Promise<void>;
  /**
   * As `insert`, the rows already encoded as text, one row a line (lines joined by newlines, none
   * empty): JSON objects (JSONEachRow), or with `columns`, JSON arrays of those columns' values in
   * that order (JSONCompactEachRow: no key repeated on every row). For a writer that needs the rows'
   * text for something else too (the position ledger's journal), so they are serialised once.
   * Empty text inserts nothing.
   */
  insertJsonLines(table: string, lines: string, options?: JsonLinesOptions): Promise<void>;
  /**
   * Typed parameters use ClickHouse's `{name:Type}` placeholders. Inside an API request the request
   * limits apply and the statement queues in the caller's lane; elsewhere the internal limits.
   */
  query<Row>(sql: string, params?: QueryParams, options?: QueryOptions): Promise<Row[]>;
  /**
   * As `query`, the result as text in ClickHouse's TabSeparatedRaw format: each row's columns joined by
   * tabs, each row ended by a newline, nothing escaped, so no column may hold a tab or a newline. For
   * columns of JSON text (read-parts.ts), which JSONEachRow would escape into a string the client
   * decodes once more.
   */
  queryText(sql: string, params?: QueryParams, options?: QueryOptions): Promise<string>;
  /**
   * Writes the result of `select` (no FORMAT clause) as one file at `file` (an absolute path on this
   * machine) in `format`, produced by the engine itself: Node never sees a row. Internal limits, the
   * pipeline's lane. Returns the bytes and rows written.
   */
  exportTo(select: string, params: QueryParams, format: ExportFormat, file: string): Promise<{ bytes: number; rows: number }>;
  /**
   * Runs `work`'s statements (made on this store) in one turn of the engine, one after another, so a
   * rebuild that deletes rows and inserts them again is not read half done. On chDB (one statement at
   * a time) no other statement runs meanwhile; a ClickHouse server runs others beside them, so there a
   * read can still fall between the two. Pipeline work only; keep it short, as on chDB it holds the engine.
   */
  serially<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** File formats the engine writes (ClickHouse format names). */
export type ExportFormat = 'Parquet' | 'CSVWithNames' | 'JSONEachRow';
