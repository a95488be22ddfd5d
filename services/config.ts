/**
 * The only module that reads process.env. Parsed once at boot against a schema, then frozen.
 * Every default says why it is what it is.
 */
import path from 'node:path';
import { z } from 'zod';

const optionalUrl = z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional());
const booleanFlag = z.preprocess((v) => (v === undefined || v === '' ? undefined : ['1', 'true', 'yes'].includes(String(v).toLowerCase())), z.boolean().optional());

const environmentSchema = z.object({
  // 8080: the conventional unprivileged HTTP port; the issue fixes it as the default.
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  // Loopback by default: a fresh machine should not expose the service until asked to.
  HOST: z.string().default('127.0.0.1'),
  // Everything durable (log segments, chDB, PGlite) lives under one folder, so one backup covers it.
  DATA_DIR: z.string().default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Pretty logs for a terminal, JSON for machines (and whenever output is piped).
  LOG_PRETTY: booleanFlag,

  // Upstream bases; defaults are Polymarket's public hosts. `npm run demo` points them at the simulator.
  POLYMARKET_GAMMA_URL: z.string().url().default('https://gamma-api.polymarket.com'),
  POLYMARKET_CLOB_URL: z.string().url().default('https://clob.polymarket.com'),
  POLYMARKET_DATA_URL: z.string().url().default('https://data-api.polymarket.com'),
  POLYMARKET_WS_URL: z.string().url().default('wss://ws-subscriptions-clob.polymarket.com/ws/market'),

  // Real engines; unset means the embedded twin of each.
  KAFKA_BROKERS: z.preprocess((v) => (v === '' ? undefined : v), z.string().optional()),
  SCHEMA_REGISTRY_URL: optionalUrl,
  CLICKHOUSE_URL: optionalUrl,
  CLICKHOUSE_DATABASE: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default('tapeline'),
  DATABASE_URL: optionalUrl,
  // Prefix of every Kafka topic and consumer group, so environments can share one cluster.
  KAFKA_NAMESPACE: z.string().regex(/^[A-Za-z0-9._-]*$/).default(''),

  // Polling cadences. Spec freshness: prices ~5 min, trades ~1 min; we poll well inside both.
  MARKETS_POLL_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  TRADES_POLL_INTERVAL_MS: z.coerce.number().int().positive().default(5_000),
  // Closed markets older than this are not fetched on start: upstream holds hundreds of thousands.
  MARKETS_CLOSED_LOOKBACK_DAYS: z.coerce.number().int().min(0).default(7),
  // Per-market trade backfill on first sight of a market: pages of the Data API feed (offset cap 10,000).
  TRADES_BACKFILL_MAX_PER_MARKET: z.coerce.number().int().min(0).max(10_000).default(3_000),
  // Only the busiest N markets are backfilled per market; the global feed covers the rest.
  TRADES_BACKFILL_MARKETS: z.coerce.number().int().min(0).default(100),
  // Requests per 10 s we allow ourselves: well under Polymarket's published limits
  // (Gamma /markets 300, Data API /trades 200, CLOB /book 1,500 per 10 s).
  GAMMA_BUDGET_PER_10S: z.coerce.number().int().positive().default(150),
  DATA_BUDGET_PER_10S: z.coerce.number().int().positive().default(100),
  CLOB_BUDGET_PER_10S: z.coerce.number().int().positive().default(500),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  // Turns ingestion off, e.g. for an API-only process.
  INGEST_ENABLED: booleanFlag,
});

export type Config = Readonly<{
  port: number;
  host: string;
  dataDir: string;
  logLevel: z.infer<typeof environmentSchema>['LOG_LEVEL'];
  logPretty: boolean;
  upstream: Readonly<{ gammaUrl: string; clobUrl: string; dataUrl: string; wsUrl: string }>;
  engines: Readonly<{
    kafkaBrokers?: string;
    schemaRegistryUrl?: string;
    clickhouseUrl?: string;
    clickhouseDatabase: string;
    databaseUrl?: string;
    kafkaNamespace: string;
  }>;
  ingest: Readonly<{
    enabled: boolean;
    marketsPollIntervalMs: number;
    tradesPollIntervalMs: number;
    closedLookbackDays: number;
    backfillMaxPerMarket: number;
    backfillMarkets: number;
    gammaBudgetPer10s: number;
    dataBudgetPer10s: number;
    clobBudgetPer10s: number;
    timeoutMs: number;
  }>;
}>;

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  return deepFreeze({
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    logLevel: e.LOG_LEVEL,
    logPretty: e.LOG_PRETTY ?? Boolean(process.stdout.isTTY),
    upstream: {
      gammaUrl: stripSlash(e.POLYMARKET_GAMMA_URL),
      clobUrl: stripSlash(e.POLYMARKET_CLOB_URL),
      dataUrl: stripSlash(e.POLYMARKET_DATA_URL),
      wsUrl: e.POLYMARKET_WS_URL,
    },
    engines: {
      kafkaBrokers: e.KAFKA_BROKERS,
      schemaRegistryUrl: e.SCHEMA_REGISTRY_URL,
      clickhouseUrl: e.CLICKHOUSE_URL,
      clickhouseDatabase: e.CLICKHOUSE_DATABASE,
      databaseUrl: e.DATABASE_URL,
      kafkaNamespace: e.KAFKA_NAMESPACE,
    },
    ingest: {
      enabled: e.INGEST_ENABLED ?? true,
      marketsPollIntervalMs: e.MARKETS_POLL_INTERVAL_MS,
      tradesPollIntervalMs: e.TRADES_POLL_INTERVAL_MS,
      closedLookbackDays: e.MARKETS_CLOSED_LOOKBACK_DAYS,
      backfillMaxPerMarket: e.TRADES_BACKFILL_MAX_PER_MARKET,
      backfillMarkets: e.TRADES_BACKFILL_MARKETS,
      gammaBudgetPer10s: e.GAMMA_BUDGET_PER_10S,
      dataBudgetPer10s: e.DATA_BUDGET_PER_10S,
      clobBudgetPer10s: e.CLOB_BUDGET_PER_10S,
      timeoutMs: e.UPSTREAM_TIMEOUT_MS,
    },
  });
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
