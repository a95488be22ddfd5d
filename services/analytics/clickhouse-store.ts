/**
 * Both adapters of the analytics port. They differ only in the connection handed to
 * @clickhouse/client: chDB in-process (the real ClickHouse engine, embedded twin) or a
 * ClickHouse server over HTTP. Everything above this file is the same SQL either way.
 */
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import fs from 'node:fs';
import type { AnalyticsStore, InsertOptions, QueryOptions, QueryParams } from '../ports/analytics-store.js';
import { currentRequestContext } from '../shared/request-context.js';
import { FairQueue, type FairQueueOptions, type FairQueueStats } from './fair-queue.js';
import { INTERNAL_LIMITS, limitSettings, type QueryLimits } from './query-limits.js';

/** How statements are admitted and bounded (services/config.ts `analytics`). */
export interface StoreGovernance {
  /** Limits of statements made for API requests. */
  requestLimits: QueryLimits;
  queue: Omit<FairQueueOptions, 'concurrency'>;
  /** Statements at once against a ClickHouse server (chDB always runs one). */
  serverConcurrency: number;
}

/** Generous enough for any test or tool that opens a store without configuration. */
export const DEFAULT_GOVERNANCE: StoreGovernance = {
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
  return new ClickHouseAnalyticsStore(client, options.database, options.governance ?? DEFAULT_GOVERNANCE, 1);
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

async function createDatabase(client: ClickHouseClient, database: string): Promise<void> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database)) throw new Error(`invalid database name ${database}`);
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
}

class ClickHouseAnalyticsStore implements AnalyticsStore {
  private readonly queue: FairQueue;

  constructor(
    private readonly client: ClickHouseClient,
    readonly database: string,
    private readonly governance: StoreGovernance,
    concurrency: number,
  ) {
    this.queue = new FairQueue({ ...governance.queue, concurrency });
  }

  queueStats(): FairQueueStats {
    return this.queue.stats();
  }

  async command(sql: string, params?: QueryParams): Promise<void> {
    // No dedup token (as in insert): on chDB a token an earlier insert left in the session would make an
    // INSERT ... SELECT here count as a retry of another INSERT ... SELECT with it, and drop its rows.
    await this.admit(() =>
      this.client.command({
        query: sql,
        query_params: params,
        clickhouse_settings: { ...limitSettings(INTERNAL_LIMITS), insert_deduplication_token: '' },
      }),
    );
  }

  async insert<Row extends object>(table: string, rows: Row[], options: InsertOptions = {}): Promise<void> {
    if (rows.length === 0) return;
    // No dedup token means none: a token left in chDB's session by an earlier insert must not apply.
    const token = options.dedupToken ? { insert_deduplication_token: options.dedupToken } : { insert_deduplication_token: '' };
    await this.admit(() =>
      this.client.insert({
        table: table.includes('.') ? table : `${this.database}.${table}`,
        values: rows,
        format: 'JSONEachRow',
        clickhouse_settings: {
          ...limitSettings(INTERNAL_LIMITS),
          // Without the token a retried batch double-counts in every aggregating view.
          ...token,
          deduplicate_blocks_in_dependent_materialized_views: options.dedupToken ? 1 : 0,
          // Rows carry ISO 8601 timestamps with milliseconds and a trailing Z.
          date_time_input_format: 'best_effort',
          // A row key that names no column is a mapper bug: fail the insert instead of dropping the value.
          input_format_skip_unknown_fields: 0,
        },
      }),
    );
  }

  async query<Row>(sql: string, params?: QueryParams, options: QueryOptions = {}): Promise<Row[]> {
    const inRequest = currentRequestContext() !== undefined;
    const limits = { ...(inRequest ? this.governance.requestLimits : INTERNAL_LIMITS), ...options.limits };
    return this.admit(async () => {
      const result = await this.client.query({
        query: sql,
        query_params: params,
        format: 'JSONEachRow',
        clickhouse_settings: { ...limitSettings(limits), output_format_json_quote_64bit_integers: 0 },
      });
      return (await result.json()) as Row[];
    });
  }

  /** Every statement takes its lane's turn: a request's in its account's lane, the rest in the pipeline's. */
  private admit<T>(work: () => Promise<T>): Promise<T> {
    const context = currentRequestContext();
    return this.queue.run(context?.lane ?? PIPELINE_LANE, context !== undefined, work);
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
