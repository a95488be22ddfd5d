/**
 * Both adapters of the analytics port. They differ only in the connection handed to
 * @clickhouse/client: chDB in-process (the real ClickHouse engine, embedded twin) or a
 * ClickHouse server over HTTP. Everything above this file is the same SQL either way.
 */
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { createChdbConnection } from 'chdb/connection';
import fs from 'node:fs';
import type { AnalyticsStore, InsertOptions, QueryParams } from '../ports/analytics-store.js';

export interface ChdbStoreOptions {
  /** On-disk folder of the in-process engine; one per process (chDB is a process singleton). */
  path: string;
  database: string;
}

export interface HttpStoreOptions {
  url: string;
  database: string;
  username?: string;
  password?: string;
}

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
  // One read at a time: chDB has one session per process, and many overlapping reads on it crashed the
  // process (a segfault in libchdb) under a briefing load of 1,000 agents (bench/sandbox). Inserts still
  // run beside reads, as they always did, so ingestion does not queue behind the API.
  return new ClickHouseAnalyticsStore(client, options.database, true);
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
  return new ClickHouseAnalyticsStore(client, options.database);
}

async function createDatabase(client: ClickHouseClient, database: string): Promise<void> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database)) throw new Error(`invalid database name ${database}`);
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
}

class ClickHouseAnalyticsStore implements AnalyticsStore {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: ClickHouseClient,
    readonly database: string,
    private readonly serialize = false,
  ) {}

  /** Runs `work` after every read issued before it has settled (when serializing). */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (!this.serialize) return work();
    const run = this.tail.then(work, work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  async command(sql: string, params?: QueryParams): Promise<void> {
    await this.client.command({ query: sql, query_params: params });
  }

  async insert<Row extends object>(table: string, rows: Row[], options: InsertOptions = {}): Promise<void> {
    if (rows.length === 0) return;
    await this.client.insert({
      table: table.includes('.') ? table : `${this.database}.${table}`,
      values: rows,
      format: 'JSONEachRow',
      clickhouse_settings: {
        // Without the token a retried batch double-counts in every aggregating view.
        ...(options.dedupToken
          ? { insert_deduplication_token: options.dedupToken, deduplicate_blocks_in_dependent_materialized_views: 1 }
          : {}),
        // Rows carry ISO 8601 timestamps with milliseconds and a trailing Z.
        date_time_input_format: 'best_effort',
        // A row key that names no column is a mapper bug: fail the insert instead of dropping the value.
        input_format_skip_unknown_fields: 0,
      },
    });
  }

  query<Row>(sql: string, params?: QueryParams): Promise<Row[]> {
    return this.exclusive(async () => {
      const result = await this.client.query({
        query: sql,
        query_params: params,
        format: 'JSONEachRow',
        clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
      });
      return (await result.json()) as Row[];
    });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
