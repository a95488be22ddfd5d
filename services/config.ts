/**
 * The only module that reads process.env. Parsed once at boot against a schema, then frozen.
 * Every default says why it is what it is.
 */
import path from 'node:path';
import { z } from 'zod';
import { WALLET } from './shared/ids.js';

const optionalUrl = z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional());
const booleanFlag = z.preprocess(
  (v) => (v === undefined || v === '' ? undefined : ['1', 'true', 'yes'].includes(String(v).toLowerCase())),
  z.boolean().optional(),
);

const environmentSchema = z.object({
  // 8080: the conventional unprivileged HTTP port; the issue fixes it as the default.
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  // Loopback by default: a fresh machine should not expose the service until asked to.
  HOST: z.string().default('127.0.0.1'),
  // Operator endpoints (/admin, /metrics) listen apart from the public API, on loopback, so exposing
  // the API never exposes them. 9464 is the conventional Prometheus exporter port; when it is the
  // default and already taken (several processes on one host), an ephemeral port is used instead.
  ADMIN_HOST: z.string().default('127.0.0.1'),
  ADMIN_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  // Proxies in front of the API (load balancers) whose X-Forwarded-For to trust for the client
  // address: 0 = none (the socket's peer is the client), n = the n-th address from the right.
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
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
  CLICKHOUSE_DATABASE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .default('tapeline'),
  DATABASE_URL: optionalUrl,
  // Prefix of every Kafka topic and consumer group, so environments can share one cluster.
  KAFKA_NAMESPACE: z
    .string()
    .regex(/^[A-Za-z0-9._-]*$/)
    .default(''),

  // Polling cadences. Spec freshness: prices ~5 min, trades ~1 min; we poll well inside both.
  MARKETS_POLL_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  TRADES_POLL_INTERVAL_MS: z.coerce.number().int().positive().default(5_000),
  // After the one-time full catalog sync, changed markets and events are read this often (the
  // metadata freshness target is 5 minutes; open markets are polled every MARKETS_POLL_INTERVAL_MS).
  CATALOG_SYNC_INTERVAL_MS: z.coerce.number().int().positive().default(300_000),
  // Unsettled markets looked up again by id per market poll: 2,000 is 20 requests, well inside the
  // Gamma budget; a larger set is covered round-robin over several polls.
  MARKETS_RECHECK_PER_POLL: z.coerce.number().int().min(0).default(2_000),
  // Markets read per trade poll while a feed gap is backfilled: bounded so the live feed stays fresh.
  TRADES_GAP_MARKETS_PER_POLL: z.coerce.number().int().positive().default(50),
  // On-demand lookup of a market the catalog does not have yet (GET /v1/markets/<unknown id>):
  // each request waits at most this long for upstream, ...
  MARKET_LOOKUP_TIMEOUT_MS: z.coerce.number().int().positive().default(3_000),
  // ... at most this many upstream lookups per second run (the rest answer at once, not found now),
  MARKET_LOOKUP_PER_SECOND: z.coerce.number().positive().default(2),
  // ... and an id upstream does not know is not asked for again for this long.
  MARKET_LOOKUP_MISS_TTL_MS: z.coerce.number().int().min(0).default(600_000),
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

  // Access. Tier 2 at 1,000 platform tokens (or any credits), Tier 3 at 10,000: placeholders until
  // the token's economics are set; both are config so operators can move them without a release.
  TIER2_TOKEN_THRESHOLD: z.coerce.number().min(0).default(1_000),
  TIER3_TOKEN_THRESHOLD: z.coerce.number().min(0).default(10_000),
  // Calls per UTC day before credits are drawn: enough for an agent polling a few markets a minute
  // (sandbox), a dashboard (tier 1), a trading bot (tier 2) and a data pipeline (tier 3).
  QUOTA_SANDBOX_PER_DAY: z.coerce.number().int().min(0).default(2_000),
  QUOTA_TIER1_PER_DAY: z.coerce.number().int().min(0).default(10_000),
  QUOTA_TIER2_PER_DAY: z.coerce.number().int().min(0).default(100_000),
  QUOTA_TIER3_PER_DAY: z.coerce.number().int().min(0).default(1_000_000),
  CREDITS_PER_CALL: z.coerce.number().positive().default(1),
  // Requests per second per key (sustained) and burst; per API process.
  RATE_SANDBOX_PER_SECOND: z.coerce.number().positive().default(5),
  RATE_TIER1_PER_SECOND: z.coerce.number().positive().default(10),
  RATE_TIER2_PER_SECOND: z.coerce.number().positive().default(50),
  RATE_TIER3_PER_SECOND: z.coerce.number().positive().default(200),
  RATE_BURST_FACTOR: z.coerce.number().min(1).default(2),
  // Usage counts reach the control store at this cadence (and balances are re-read from it).
  METER_FLUSH_INTERVAL_MS: z.coerce.number().int().positive().default(1_000),
  // Leaderboards and the trader directory are recomputed this often (per-wallet endpoints are live).
  TRADER_STATS_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  // Public read responses (market data, trades, leaderboards) are shared for this long; 0 = off.
  // One second keeps every endpoint well inside its freshness target (ticks 2 s).
  READ_CACHE_TTL_MS: z.coerce.number().int().min(0).default(1_000),
  // Bounds of that cache: entries and bytes of response bodies (least recently used go first).
  READ_CACHE_MAX_ENTRIES: z.coerce.number().int().positive().default(5_000),
  READ_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024 ** 2),
  // Validate every API response against the OpenAPI document (tests and staging; costs CPU).
  VALIDATE_RESPONSES: booleanFlag,
  // A key's owner is cached this long after a lookup; revocations take at most this long to apply
  // in other API processes (the process that revokes forgets the key at once).
  AUTH_CACHE_TTL_MS: z.coerce.number().int().min(0).default(10_000),
  // A well-formed key that matches no live key is remembered as unknown this long, so guessing keys
  // costs no database lookup each; a new key is never in it (its owner is looked up once it exists).
  AUTH_NEGATIVE_CACHE_TTL_MS: z.coerce.number().int().min(0).default(60_000),
  // Failed authentications per client address per minute before its requests get 429: enough for a
  // misconfigured client to notice, far too few to search for keys.
  AUTH_FAILURES_PER_IP_PER_MINUTE: z.coerce.number().int().positive().default(30),
  // Self-registration (POST /v1/agents/register) per client address per hour and for the whole
  // service per hour (counted in the control store, so shared by every API process).
  REGISTRATIONS_PER_IP_PER_HOUR: z.coerce.number().int().positive().default(10),
  REGISTRATIONS_PER_HOUR: z.coerce.number().int().positive().default(500),
  // Live keys per account (the original, added ones and rotated ones still in their grace period).
  KEYS_PER_ACCOUNT: z.coerce.number().int().positive().default(10),
  // API processes announce themselves in the control store this often; per-key rate limits are
  // split between the processes seen in the last three intervals.
  API_HEARTBEAT_INTERVAL_MS: z.coerce.number().int().positive().default(5_000),
  // Analytics queries made for a request: time, rows read, memory and result rows. The engine
  // refuses past them (400 when the request asks for too much, 503 when it ran too long).
  QUERY_MAX_EXECUTION_MS: z.coerce.number().int().positive().default(5_000),
  QUERY_MAX_ROWS_TO_READ: z.coerce.number().int().positive().default(50_000_000),
  QUERY_MAX_MEMORY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 ** 3),
  QUERY_MAX_RESULT_ROWS: z.coerce.number().int().positive().default(100_000),
  // Queries waiting for the engine: per key (more is 429), in all (more is 503), and how long one
  // may wait (503). chDB runs one statement at a time; a ClickHouse server CLICKHOUSE_CONCURRENCY.
  QUERY_QUEUE_PER_KEY: z.coerce.number().int().positive().default(4),
  QUERY_QUEUE_MAX: z.coerce.number().int().positive().default(256),
  QUERY_QUEUE_WAIT_MS: z.coerce.number().int().positive().default(5_000),
  CLICKHOUSE_CONCURRENCY: z.coerce.number().int().positive().default(16),
  // CLOB ingestion. REST books are the reconciliation behind the websocket: every 30 s is
  // plenty; the websocket carries the 2 s freshness.
  CLOB_POLL_INTERVAL_MS: z.coerce.number().int().positive().default(30_000),
  WS_ENABLED: booleanFlag,
  // Tokens per websocket connection: upstream accepts large subscriptions, but smaller shards limit
  // what one dropped connection takes down and keep each resubscribe snapshot burst small.
  WS_SHARD_SIZE: z.coerce.number().int().positive().max(5_000).default(500),
  // A connection that has said nothing (not even PONG to our 10 s PING) for this long is dead:
  // three missed pings.
  WS_IDLE_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  // Reconnect backoff starts over only after a connection stayed up this long, so a server that
  // accepts, sends a frame and drops us is retried with growing delays, not every 0.5 s.
  WS_STABLE_AFTER_MS: z.coerce.number().int().positive().default(60_000),
  // A failed publish of websocket events is retried this many times (with backoff) before the
  // events are dead-lettered with the reason; they stay buffered until one or the other succeeds.
  WS_PUBLISH_ATTEMPTS: z.coerce.number().int().positive().default(5),
  // Tracked wallets: positions every 5 min (target 10 min) and their activity.
  WALLETS_POLL_INTERVAL_MS: z.coerce.number().int().positive().default(300_000),
  TRACKED_WALLETS: z.string().default(''),
  TRACKED_WALLETS_TOP: z.coerce.number().int().min(0).default(50),
  HOLDERS_MARKETS: z.coerce.number().int().min(0).default(100),
  // Webhooks and signals. Hosts or IPs exempt from the SSRF guard (comma-separated); empty in
  // production, `127.0.0.1` for tests and local receivers.
  WEBHOOK_ALLOWED_HOSTS: z.string().default(''),
  // Delay before each attempt, after the previous failure (Svix's reference schedule: now, 5 s, 5 min,
  // 30 min, 2 h, 5 h, 10 h, 10 h - about 28 hours in all). Tests shrink it to milliseconds.
  WEBHOOK_RETRY_SCHEDULE_MS: z
    .string()
    .default('0,5000,300000,1800000,7200000,18000000,36000000,36000000')
    .transform((v) => v.split(',').map((part) => Number(part.trim())))
    .refine(
      (list) => list.length > 0 && list.every((n) => Number.isInteger(n) && n >= 0),
      'a comma-separated list of non-negative integers',
    ),
  // +/-20% spreads retries of many deliveries that failed together (a receiver outage).
  WEBHOOK_RETRY_JITTER: z.coerce.number().min(0).max(1).default(0.2),
  // 15 s: long enough for a slow receiver, short enough that a hung one does not hold a slot.
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  // After a 429 or a timeout the receiver is struggling: wait at least a minute.
  WEBHOOK_THROTTLE_MIN_DELAY_MS: z.coerce.number().int().min(0).default(60_000),
  // A Retry-After beyond 6 h is capped, so one header cannot park a delivery for days.
  WEBHOOK_RETRY_AFTER_MAX_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(6 * 3_600_000),
  // Five days without a single success disables the subscription (any success resets the clock).
  WEBHOOK_DISABLE_AFTER_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 86_400_000),
  // After a rotation the old secret keeps signing alongside the new one for a day.
  WEBHOOK_SECRET_GRACE_MS: z.coerce.number().int().min(0).default(86_400_000),
  // Idle poll of the outbox; enqueues in this process wake the dispatcher at once anyway.
  WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().positive().default(1_000),
  // Deliveries in flight at once per dispatcher, and per account across dispatchers (so one
  // account's slow receivers hold at most that many slots; accounts take turns for the rest).
  WEBHOOK_CONCURRENCY: z.coerce.number().int().positive().default(16),
  WEBHOOK_ACCOUNT_CONCURRENCY: z.coerce.number().int().positive().default(4),
  // Per receiver host (host:port): one slow host (however many subscriptions point at it) holds at
  // most this many slots; a healthy host answering in 100 ms still gets 80 deliveries/s.
  WEBHOOK_HOST_CONCURRENCY: z.coerce.number().int().positive().default(8),
  // Subscriptions per account: each one multiplies every matching event into deliveries.
  WEBHOOK_SUBSCRIPTIONS_PER_ACCOUNT: z.coerce.number().int().positive().default(10),
  // Undelivered deliveries one subscription may hold; events past it are counted as dropped on the
  // subscription instead of growing the outbox (a receiver that is down for a day at 10 trades/s).
  WEBHOOK_PENDING_PER_SUBSCRIPTION: z.coerce.number().int().positive().default(10_000),
  // Lowest trader.large_trade threshold a subscription may set: each large trade costs a query
  // of the trader's last 24 hours.
  WEBHOOK_LARGE_TRADE_MIN_USDC: z.coerce.number().positive().default(1_000),
  // Finished deliveries (and their attempt logs) are kept this long for the subscriber to read.
  WEBHOOK_RETENTION_DAYS: z.coerce.number().positive().default(30),
  WEBHOOKS_ENABLED: booleanFlag,
  // trader.large_trade default threshold (a subscription filter can set its own).
  SIGNALS_LARGE_TRADE_USDC: z.coerce.number().positive().default(10_000),
  // market.price_signal: a YES price move of more than 5% within 15 minutes.
  SIGNALS_PRICE_CHANGE_PCT: z.coerce.number().positive().default(5),
  SIGNALS_PRICE_WINDOW_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(15 * 60_000),
  // A batch the analytics store keeps refusing for its data (not for an outage) is split to find
  // the records it refuses after this many failures; those are dead-lettered, the rest inserted.
  SINK_POISON_AFTER_FAILURES: z.coerce.number().int().positive().default(5),
});

export type Config = Readonly<{
  port: number;
  host: string;
  admin: Readonly<{ host: string; port: number; portIsDefault: boolean }>;
  trustProxyHops: number;
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
    catalogSyncIntervalMs: number;
    recheckPerPoll: number;
    gapMarketsPerPoll: number;
    lookupTimeoutMs: number;
    lookupPerSecond: number;
    lookupMissTtlMs: number;
    wsIdleTimeoutMs: number;
    wsStableAfterMs: number;
    wsPublishAttempts: number;
    backfillMaxPerMarket: number;
    backfillMarkets: number;
    gammaBudgetPer10s: number;
    dataBudgetPer10s: number;
    clobBudgetPer10s: number;
    timeoutMs: number;
    clobPollIntervalMs: number;
    wsEnabled: boolean;
    wsShardSize: number;
    walletsPollIntervalMs: number;
    trackedWallets: string[];
    trackedWalletsTop: number;
    holdersMarkets: number;
  }>;
  access: Readonly<{
    thresholds: Readonly<{ tier2Tokens: number; tier3Tokens: number; tier2Credits: number }>;
    quotasPerDay: Readonly<{ sandbox: number; '1': number; '2': number; '3': number }>;
    creditsPerCall: number;
    ratePerSecond: Readonly<{ sandbox: number; '1': number; '2': number; '3': number }>;
    rateBurstFactor: number;
    meterFlushIntervalMs: number;
    authCacheTtlMs: number;
    authNegativeCacheTtlMs: number;
    authFailuresPerIpPerMinute: number;
    registrationsPerIpPerHour: number;
    registrationsPerHour: number;
    keysPerAccount: number;
    heartbeatIntervalMs: number;
  }>;
  analytics: Readonly<{
    requestLimits: Readonly<{ maxExecutionMs: number; maxRowsToRead: number; maxMemoryBytes: number; maxResultRows: number }>;
    queue: Readonly<{ maxQueuedPerLane: number; maxQueued: number; maxWaitMs: number }>;
    serverConcurrency: number;
  }>;
  sink: Readonly<{ poisonAfterFailures: number }>;
  traderStatsIntervalMs: number;
  validateResponses: boolean;
  readCacheTtlMs: number;
  readCacheMaxEntries: number;
  readCacheMaxBytes: number;
  webhooks: Readonly<{
    enabled: boolean;
    allowedHosts: readonly string[];
    retryScheduleMs: readonly number[];
    retryJitter: number;
    timeoutMs: number;
    throttleMinDelayMs: number;
    retryAfterMaxMs: number;
    disableAfterMs: number;
    secretGraceMs: number;
    pollIntervalMs: number;
    concurrency: number;
    accountConcurrency: number;
    hostConcurrency: number;
    subscriptionsPerAccount: number;
    pendingPerSubscription: number;
    largeTradeMinUsdc: number;
    retentionMs: number;
  }>;
  signals: Readonly<{
    largeTradeUsdc: number;
    priceChangePct: number;
    priceWindowMs: number;
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
    admin: { host: e.ADMIN_HOST, port: e.ADMIN_PORT ?? 9464, portIsDefault: e.ADMIN_PORT === undefined },
    trustProxyHops: e.TRUST_PROXY_HOPS,
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
      catalogSyncIntervalMs: e.CATALOG_SYNC_INTERVAL_MS,
      recheckPerPoll: e.MARKETS_RECHECK_PER_POLL,
      gapMarketsPerPoll: e.TRADES_GAP_MARKETS_PER_POLL,
      lookupTimeoutMs: e.MARKET_LOOKUP_TIMEOUT_MS,
      lookupPerSecond: e.MARKET_LOOKUP_PER_SECOND,
      lookupMissTtlMs: e.MARKET_LOOKUP_MISS_TTL_MS,
      wsIdleTimeoutMs: e.WS_IDLE_TIMEOUT_MS,
      wsStableAfterMs: e.WS_STABLE_AFTER_MS,
      wsPublishAttempts: e.WS_PUBLISH_ATTEMPTS,
      backfillMaxPerMarket: e.TRADES_BACKFILL_MAX_PER_MARKET,
      backfillMarkets: e.TRADES_BACKFILL_MARKETS,
      gammaBudgetPer10s: e.GAMMA_BUDGET_PER_10S,
      dataBudgetPer10s: e.DATA_BUDGET_PER_10S,
      clobBudgetPer10s: e.CLOB_BUDGET_PER_10S,
      timeoutMs: e.UPSTREAM_TIMEOUT_MS,
      clobPollIntervalMs: e.CLOB_POLL_INTERVAL_MS,
      wsEnabled: e.WS_ENABLED ?? true,
      wsShardSize: e.WS_SHARD_SIZE,
      walletsPollIntervalMs: e.WALLETS_POLL_INTERVAL_MS,
      trackedWallets: e.TRACKED_WALLETS.split(',')
        .map((w) => w.trim().toLowerCase())
        .filter((w) => WALLET.test(w)),
      trackedWalletsTop: e.TRACKED_WALLETS_TOP,
      holdersMarkets: e.HOLDERS_MARKETS,
    },
    access: {
      thresholds: { tier2Tokens: e.TIER2_TOKEN_THRESHOLD, tier3Tokens: e.TIER3_TOKEN_THRESHOLD, tier2Credits: e.CREDITS_PER_CALL },
      quotasPerDay: {
        sandbox: e.QUOTA_SANDBOX_PER_DAY,
        '1': e.QUOTA_TIER1_PER_DAY,
        '2': e.QUOTA_TIER2_PER_DAY,
        '3': e.QUOTA_TIER3_PER_DAY,
      },
      creditsPerCall: e.CREDITS_PER_CALL,
      ratePerSecond: {
        sandbox: e.RATE_SANDBOX_PER_SECOND,
        '1': e.RATE_TIER1_PER_SECOND,
        '2': e.RATE_TIER2_PER_SECOND,
        '3': e.RATE_TIER3_PER_SECOND,
      },
      rateBurstFactor: e.RATE_BURST_FACTOR,
      meterFlushIntervalMs: e.METER_FLUSH_INTERVAL_MS,
      authCacheTtlMs: e.AUTH_CACHE_TTL_MS,
      authNegativeCacheTtlMs: e.AUTH_NEGATIVE_CACHE_TTL_MS,
      authFailuresPerIpPerMinute: e.AUTH_FAILURES_PER_IP_PER_MINUTE,
      registrationsPerIpPerHour: e.REGISTRATIONS_PER_IP_PER_HOUR,
      registrationsPerHour: e.REGISTRATIONS_PER_HOUR,
      keysPerAccount: e.KEYS_PER_ACCOUNT,
      heartbeatIntervalMs: e.API_HEARTBEAT_INTERVAL_MS,
    },
    analytics: {
      requestLimits: {
        maxExecutionMs: e.QUERY_MAX_EXECUTION_MS,
        maxRowsToRead: e.QUERY_MAX_ROWS_TO_READ,
        maxMemoryBytes: e.QUERY_MAX_MEMORY_BYTES,
        maxResultRows: e.QUERY_MAX_RESULT_ROWS,
      },
      queue: { maxQueuedPerLane: e.QUERY_QUEUE_PER_KEY, maxQueued: e.QUERY_QUEUE_MAX, maxWaitMs: e.QUERY_QUEUE_WAIT_MS },
      serverConcurrency: e.CLICKHOUSE_CONCURRENCY,
    },
    sink: { poisonAfterFailures: e.SINK_POISON_AFTER_FAILURES },
    traderStatsIntervalMs: e.TRADER_STATS_INTERVAL_MS,
    validateResponses: e.VALIDATE_RESPONSES ?? false,
    readCacheTtlMs: e.READ_CACHE_TTL_MS,
    readCacheMaxEntries: e.READ_CACHE_MAX_ENTRIES,
    readCacheMaxBytes: e.READ_CACHE_MAX_BYTES,
    webhooks: {
      enabled: e.WEBHOOKS_ENABLED ?? true,
      allowedHosts: e.WEBHOOK_ALLOWED_HOSTS.split(',')
        .map((h) => h.trim())
        .filter(Boolean),
      retryScheduleMs: e.WEBHOOK_RETRY_SCHEDULE_MS,
      retryJitter: e.WEBHOOK_RETRY_JITTER,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      throttleMinDelayMs: e.WEBHOOK_THROTTLE_MIN_DELAY_MS,
      retryAfterMaxMs: e.WEBHOOK_RETRY_AFTER_MAX_MS,
      disableAfterMs: e.WEBHOOK_DISABLE_AFTER_MS,
      secretGraceMs: e.WEBHOOK_SECRET_GRACE_MS,
      pollIntervalMs: e.WEBHOOK_POLL_INTERVAL_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      accountConcurrency: e.WEBHOOK_ACCOUNT_CONCURRENCY,
      hostConcurrency: e.WEBHOOK_HOST_CONCURRENCY,
      subscriptionsPerAccount: e.WEBHOOK_SUBSCRIPTIONS_PER_ACCOUNT,
      pendingPerSubscription: e.WEBHOOK_PENDING_PER_SUBSCRIPTION,
      largeTradeMinUsdc: e.WEBHOOK_LARGE_TRADE_MIN_USDC,
      retentionMs: Math.round(e.WEBHOOK_RETENTION_DAYS * 86_400_000),
    },
    signals: {
      largeTradeUsdc: e.SIGNALS_LARGE_TRADE_USDC,
      priceChangePct: e.SIGNALS_PRICE_CHANGE_PCT,
      priceWindowMs: e.SIGNALS_PRICE_WINDOW_MS,
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
