/**
 * Both adapters of the analytics port. They differ only in the connection handed to
 * @clickhouse/client: chDB in-process (the real ClickHouse engine, embedded twin) or a
 * ClickHouse server over HTTP. Everything above this file is the same SQL either way.
 */
import { type ClickHouseClient, createClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { AnalyticsStore, ExportFormat, InsertOptions, JsonLinesOptions, QueryOptions, QueryParams } from '../ports/analytics-store.js';
import { currentRequestContext } from '../shared/request-context.js';
import { FairQueue, type FairQueueOptions, type FairQueueStats } from './fair-queue.js';
import { AnalyticsClosedError } from './store-errors.js';
import { INTERNAL_LIMITS, limitSettings, type QueryLimits } from './query-limits.js';

/** How statements are admitted and bounded (services/config.ts `analytics`). */
interface StoreGovernance {
  /** Limits of statements made for API requests. */
  requestLimits: QueryLimits;
  queue: Omit<FairQueueOptions, 'concurrency'>;
  /** Statements at once against a ClickHouse server (chDB always runs one). */
  serverConcurrency: number;
}

/** Generous enough for any test or tool that opens a store without configuration. */
const DEFAULT_GOVERNANCE: StoreGovernance = {
  requestLimits: { maxExecutionMs: 5_000, maxRowsToRead: 50_000_000, maxMemoryBytes: 1 << 30, maxResultRows: 100_000 },
  queue: { maxQueuedPerLane: 16, maxQueued: 256, maxWaitMs: 5_000 },
  serverConcurrency: 16,
};

export interface ChdbStoreOptions {
  /** On-disk folder of the in-process engine; one per process (chDB is a process singleton). */
  path: string;
  database: string;
  governance?: StoreGovernance;
}

export interface HttpStoreOptions {
  url: string;
  database: string;
  username?: string;
  password?: string;
  governance?: StoreGovernance;
}

/** Lane of work done outside any request (sink, jobs, signals). */
const PIPELINE_LANE = 'pipeline';

/** The `serially` section the current work runs in: its store's statements are admitted already, and run one after another. */
const serialSection = new AsyncLocalStorage<{ store: ClickHouseAnalyticsStore; last: Promise<unknown> }>();

export async function openChdbStore(options: ChdbStoreOptions): Promise<AnalyticsStore> {
  fs.mkdirSync(options.path, { recursive: true });
  // chdb types its Connection against @clickhouse/client-common, the client against its bundled
  // copy of the same interface; they are identical at run time, so the cast only bridges the copies.
  const connection = createChdbConnection({ path: options.path }) as unknown as NonNullable<
    Parameters<typeof createClient>[0]
  >['connection'];
  const client = createClient({ connection });
  await createDatabase(client, options.database);
  // chDB keeps one session per process and has no per-query database setting: USE makes the
  // session's default database ours, as the `database` option does for the HTTP client.
  await client.command({ query: `USE ${options.database}` });
  // One statement at a time on chDB: it has one session per process, and overlapping reads on it
  // crashed the process (a segfault in libchdb) under a briefing load of 1,000 agents (bench/sandbox).
  // The fair queue gives the pipeline's lane (inserts) its turn between requests' statements.
  return new ClickHouseAnalyticsStore(client, options.database, options.governance ?? DEFAULT_GOVERNANCE, 1, new SessionSettings());
}

export async function openHttpStore(options: HttpStoreOptions): Promise<AnalyticsStore> {
  const bootstrap = createClient({ url: options.url, username: options.username, password: options.password });
  await createDatabase(bootstrap, options.database);
  await bootstrap.close();
  const client = createClient({
    url: options.url,
    username: options.username,
    password: options.password,
    database: options.database,
    request_timeout: 60_000,
  });
  const governance = options.governance ?? DEFAULT_GOVERNANCE;
  return new ClickHouseAnalyticsStore(client, options.database, governance, governance.serverConcurrency);
}

type Settings = Record<string, string | number>;

/**
 * How chDB reads its files: with `pread` each read is a plain pread(2) on the statement's own thread.
 * The default, `pread_threadpool`, hands every read of a column's range to a thread pool, and in this
 * embedded engine that pool started and stopped a thread per read, which cost a leaderboard page about
 * three times its reads' time (measurements: docs/POSITIONS.md at 2ee4e77, "How chDB reads its files").
 * Measured on chDB only, so a server keeps its own default.
 */
const CHDB_READ_SETTINGS: Settings = { local_filesystem_read_method: 'pread' };

/** `name = value, ...` for a statement's SETTINGS clause (strings quoted as ClickHouse literals). */
function settingsClause(settings: Settings): string {
  return Object.entries(settings)
    .map(([name, value]) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`invalid setting name ${JSON.stringify(name)}`);
      if (typeof value === 'number') return `${name} = ${value}`;
      return `${name} = '${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
    })
    .join(', ');
}

/**
 * What chDB's one session holds: the connection turns each statement's settings into `SET` statements
 * run before it, and chDB keeps them for every later statement. Statements run one at a time on chDB
 * (the fair queue's concurrency is 1), so the store knows what the session holds and sends only the
 * values that differ: eight SETs before every statement cost most of a small statement's time
 * (measured: docs/POSITIONS.md at 2ee4e77). After a failed statement the session is not known (its SETs
 * may or may not have run), so the next one sends everything again.
 */
class SessionSettings {
  private held = new Map<string, string | number>();

  /** The settings of `wanted` the session does not hold yet. */
  missing(wanted: Settings): Settings {
    return Object.fromEntries(Object.entries(wanted).filter(([name, value]) => this.held.get(name) !== value));
  }

  applied(sent: Settings): void {
    for (const [name, value] of Object.entries(sent)) this.held.set(name, value);
  }

  unknown(): void {
    this.held = new Map();
  }
}

async function createDatabase(client: ClickHouseClient, database: string): Promise<void> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database)) throw new Error(`invalid database name ${database}`);
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
}

/** A column name as written in a statement: checked, never quoted (no caller passes other text). */
function identifier(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`invalid column name ${JSON.stringify(name)}`);
  return name;
}

/** An insert's settings: its deduplication token, input parsing, and how its views are fed. */
function insertSettings(options: InsertOptions): Settings {
  return {
    ...limitSettings(INTERNAL_LIMITS),
    // Without the token a retried batch double-counts in every aggregating view. No token means none.
    insert_deduplication_token: options.dedupToken ?? '',
    deduplicate_blocks_in_dependent_materialized_views: options.dedupToken ? 1 : 0,
    // Rows carry ISO 8601 timestamps with milliseconds and a trailing Z.
    date_time_input_format: 'best_effort',
    // A row key that names no column is a mapper bug: fail the insert instead of dropping the value.
    input_format_skip_unknown_fields: 0,
    // The ledger's insert feeds ten views, one after another by default, while the other core
    // idles; these settings run them side by side (measured: docs/POSITIONS.md at 2ee4e77).
    // optimize_on_insert merges equal keys within a block, which the views' GROUP BY already did.
    ...(options.fanOut ? { parallel_view_processing: 1, optimize_on_insert: 0 } : {}),
  };
}

class ClickHouseAnalyticsStore implements AnalyticsStore {
  private readonly queue: FairQueue;

  constructor(
    private readonly client: ClickHouseClient,
    readonly database: string,
    private readonly governance: StoreGovernance,
    concurrency: number,
    /** chDB's session (settings persist between statements); undefined for a server (settings per request). */
    private readonly session?: SessionSettings,
  ) {
    this.queue = new FairQueue({ ...governance.queue, concurrency });
  }

  queueStats(): FairQueueStats {
    return this.queue.stats();
  }

  async command(sql: string, params?: QueryParams): Promise<void> {
    // No dedup token: a token in chDB's session would make an INSERT ... SELECT here count as a retry of
    // another INSERT ... SELECT with it, and drop its rows (inserts carry theirs in their own clause).
    await this.admit(() =>
      this.withSettings({ ...limitSettings(INTERNAL_LIMITS), insert_deduplication_token: '' }, (clickhouse_settings) =>
        this.client.command({ query: sql, query_params: params, clickhouse_settings }),
      ),
    );
  }

  async insert<Row extends object>(table: string, rows: Row[], options: InsertOptions = {}): Promise<void> {
    if (rows.length === 0) return;
    // chDB: the rows go as text in the statement itself (insertJsonLines).
    if (this.session) return this.insertJsonLines(table, rows.map((row) => JSON.stringify(row)).join('\n'), options);
    await this.admit(() =>
      this.client.insert({
        table: this.qualified(table),
        values: rows,
        format: 'JSONEachRow',
        clickhouse_settings: insertSettings(options),
      }),
    );
  }

  async insertJsonLines(table: string, lines: string, options: JsonLinesOptions = {}): Promise<void> {
    if (lines === '') return;
    const settings = insertSettings(options);
    const into = `${this.qualified(table)}${options.columns ? ` (${options.columns.map(identifier).join(', ')})` : ''}`;
    const format = options.columns ? 'JSONCompactEachRow' : 'JSONEachRow';
    if (this.session) {
      // chDB: the settings go in the INSERT's own SETTINGS clause, for this insert only. Sent as SET
      // statements before it (what the connection does with clickhouse_settings), they make the
      // statement a multi-statement text that chDB splits by reading through the rows, which about
      // doubled an insert's time (measured: docs/POSITIONS.md at 2ee4e77). Nothing an insert sets stays
      // in the session either.
      await this.admit(() =>
        this.client.command({
          query: `INSERT INTO ${into} SETTINGS ${settingsClause(settings)} FORMAT ${format}\n${lines}`,
        }),
      );
      return;
    }
    // A server reads an INSERT's data from the rest of the request body, after the statement.
    await this.admit(() => this.client.command({ query: `INSERT INTO ${into} FORMAT ${format}\n${lines}`, clickhouse_settings: settings }));
  }

  private qualified(table: string): string {
    return table.includes('.') ? table : `${this.database}.${table}`;
  }

  async query<Row>(sql: string, params?: QueryParams, options: QueryOptions = {}): Promise<Row[]> {
    return this.read(sql, params, options, async (clickhouse_settings) => {
      const result = await this.client.query({ query: sql, query_params: params, format: 'JSONEachRow', clickhouse_settings });
      return (await result.json()) as Row[];
    });
  }

  async queryText(sql: string, params?: QueryParams, options: QueryOptions = {}): Promise<string> {
    return this.read(sql, params, options, async (clickhouse_settings) => {
      const result = await this.client.query({ query: sql, query_params: params, format: 'TabSeparatedRaw', clickhouse_settings });
      return result.text();
    });
  }

  /**
   * chDB runs in this process, so the engine writes the file itself (`INSERT INTO FUNCTION file`):
   * the result never becomes a JS buffer (chDB's connection materialises whole results). A server
   * cannot write into this machine's folder, so its output in `format` is streamed to the file as
   * bytes, a chunk at a time.
   */
  async exportTo(select: string, params: QueryParams, format: ExportFormat, file: string): Promise<{ bytes: number; rows: number }> {
    const settings: Settings = {
      ...limitSettings(INTERNAL_LIMITS),
      output_format_parquet_compression_method: 'zstd',
      // Strings as Parquet strings (UTF8), not raw binary, so readers show text.
      output_format_parquet_string_as_string: 1,
      output_format_json_quote_64bit_integers: 0,
      output_format_json_quote_decimals: 0,
    };
    if (this.session) {
      const literal = `'${file.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
      return this.admit(() =>
        this.withSettings({ ...settings, engine_file_truncate_on_insert: 1 }, async (clickhouse_settings) => {
          await this.client.command({
            query: `INSERT INTO FUNCTION file(${literal}, '${format}') ${select}`,
            query_params: params,
            clickhouse_settings,
          });
          // The count the file holds, read back from it (Parquet: its footer), not the statement's estimate.
          const counted = await this.client.query({
            query: `SELECT count() AS rows FROM file(${literal}, '${format}')`,
            format: 'JSONEachRow',
          });
          const [{ rows }] = (await counted.json()) as [{ rows: number | string }];
          return { bytes: fs.statSync(file).size, rows: Number(rows) };
        }),
      );
    }
    return this.admit(async () => {
      // wait_end_of_query: the server finishes the statement before answering, so the summary header
      // counts every row of the result (it buffers the output on its side, not here).
      const result = await this.client.exec({
        query: `${select} FORMAT ${format}`,
        query_params: params,
        clickhouse_settings: { ...settings, wait_end_of_query: 1 },
      });
      await pipeline(result.stream, fs.createWriteStream(file));
      return { bytes: fs.statSync(file).size, rows: Number(result.summary?.result_rows ?? Number.NaN) };
    });
  }

  /** A read with the caller's limits (a request's or the internal ones), in its lane. */
  private read<T>(
    sql: string,
    params: QueryParams | undefined,
    options: QueryOptions,
    run: (settings: Settings) => Promise<T>,
  ): Promise<T> {
    const inRequest = currentRequestContext() !== undefined;
    const limits = { ...(inRequest ? this.governance.requestLimits : INTERNAL_LIMITS), ...options.limits };
    // 64-bit integers unquoted in JSON output, toJSONString's included.
    return this.admit(() => this.withSettings({ ...limitSettings(limits), output_format_json_quote_64bit_integers: 0 }, run));
  }

  /** Runs a statement with `settings`: on chDB only those its session does not hold yet (SessionSettings). */
  private async withSettings<T>(settings: Settings, statement: (settings: Settings) => Promise<T>): Promise<T> {
    if (!this.session) return statement(settings);
    const sent = this.session.missing({ ...CHDB_READ_SETTINGS, ...settings });
    try {
      const result = await statement(sent);
      this.session.applied(sent);
      return result;
    } catch (error) {
      this.session.unknown();
      throw error;
    }
  }

  serially<T>(work: () => Promise<T>): Promise<T> {
    if (serialSection.getStore()?.store === this) return work();
    return this.queue.run(PIPELINE_LANE, false, () => serialSection.run({ store: this, last: Promise.resolve() }, work));
  }

  /**
   * Every statement takes its lane's turn: a request's in its account's lane, the rest in the
   * pipeline's. One made inside `serially` runs in the turn its section holds, after the section's
   * previous statement has ended (chDB must never run two at once, even if the section does not await).
   */
  private admit<T>(work: () => Promise<T>): Promise<T> {
    const section = serialSection.getStore();
    if (section?.store === this) {
      const statement = section.last.then(work);
      section.last = statement.catch(() => undefined);
      return statement;
    }
    const context = currentRequestContext();
    return this.queue.run(context?.lane ?? PIPELINE_LANE, context !== undefined, work, context?.signal);
  }

  async close(): Promise<void> {
    await this.queue.close(new AnalyticsClosedError());
    await this.client.close();
  }
}
