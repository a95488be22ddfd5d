/**
 * The only module that reads process.env. Parsed once at boot against a schema, then frozen.
 * Every default says why it is what it is.
 */
import path from 'node:path';
import { z } from 'zod';
import { POLYGON_CONTRACTS, POLYGON_START_BLOCKS } from './chain/polygon-contracts.js';
import { WALLET } from './shared/ids.js';

const optionalUrl = z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional());
const optionalAddress = z.preprocess(
  (v) => (v === '' ? undefined : v),
  z
    .string()
    .regex(WALLET, '0x + 40 hex')
    .transform((a) => a.toLowerCase())
    .optional(),
);
// An exact decimal (money, prices, rates): kept as text so no float ever rounds it.
const decimalText = z.string().regex(/^\d+(\.\d{1,18})?$/, 'a decimal number such as 10000 or 0.25');
const optionalDecimal = z.preprocess((v) => (v === '' ? undefined : v), decimalText.optional());
const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'a 0x-prefixed 20-byte address')
  .transform((v) => v.toLowerCase());
const addressOr = (fallback: string) => z.string().default(fallback).pipe(address);
const addressList = (defaults: string) =>
  z
    .string()
    .default(defaults)
    .transform((v) =>
      v
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    )
    .pipe(z.array(address));
const blockNumber = z.coerce.number().int().min(0);
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
  // Embedded event log (no KAFKA_BROKERS): segment size, and retention per partition as Kafka's
  // retention.ms / retention.bytes (-1: unbounded), never deleting what a consumer group has not
  // committed past unless the partition is over EVENT_LOG_HARD_CAP_BYTES (-1: never).
  EVENT_LOG_SEGMENT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024 * 1024),
  EVENT_LOG_RETENTION_MS: z.coerce
    .number()
    .int()
    .min(-1)
    .default(7 * 24 * 3_600_000),
  EVENT_LOG_RETENTION_BYTES: z.coerce.number().int().min(-1).default(-1),
  EVENT_LOG_HARD_CAP_BYTES: z.coerce.number().int().min(-1).default(-1),

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

  // Polygon settlement events (docs/CHAIN.md). The default is dRPC's keyless public endpoint (viem's own
  // default for Polygon; polygon-rpc.com stopped serving keyless requests in 2026). It serves the head;
  // a deep backfill needs a keyed URL. Empty turns the chain source off: the Data API stays the only
  // (taker-only) trade source.
  POLYGON_RPC_URL: z.preprocess((v) => (v === '' ? null : v), z.string().url().nullable().default('https://polygon.drpc.org')),
  // The chain the RPC serves: fee payments and token balances are read there (tests run a local EVM).
  CHAIN_ID: z.coerce.number().int().positive().default(137),
  // Blocks a block must have on top of it before its events are published. Polygon's milestones
  // finalize in 2-5 s (docs.polygon.technology/pos/concepts/finality); 3 blocks (~6 s) is past that.
  CHAIN_CONFIRMATIONS: z.coerce.number().int().min(0).max(1_000).default(3),
  // Published blocks whose hashes are re-checked for reorgs deeper than the confirmations: 128 blocks
  // (~4 min) covers the deepest Polygon reorgs seen before milestones existed.
  CHAIN_REORG_WINDOW_BLOCKS: z.coerce.number().int().min(1).max(10_000).default(128),
  // Head polls while caught up: Polygon makes a block about every 2 s; polling 4 times per block keeps
  // a block queryable within ~0.5 s of its confirmation (eth_blockNumber is the cheapest call there is).
  CHAIN_POLL_INTERVAL_MS: z.coerce.number().int().positive().default(500),
  // JSON-RPC requests per 10 s: free dRPC allows ~120k compute units a minute per IP (a getLogs is
  // ~75 units); 50 requests per 10 s stays far inside it.
  CHAIN_RPC_BUDGET_PER_10S: z.coerce.number().int().positive().default(50),
  // Calls per JSON-RPC batch: free dRPC rejects batches of more than 3.
  CHAIN_RPC_BATCH_SIZE: z.coerce.number().int().min(1).max(100).default(3),
  // Free dRPC cuts requests at 2 s; 10 s leaves room for keyed endpoints answering large ranges.
  CHAIN_RPC_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  // eth_getLogs window: starts at 50 blocks (what keyless endpoints accept), halves on refusal, doubles
  // after clean answers up to the maximum (keyed plans allow a few thousand blocks).
  CHAIN_LOG_RANGE_BLOCKS: z.coerce.number().int().min(1).default(50),
  CHAIN_LOG_RANGE_MAX_BLOCKS: z.coerce.number().int().min(1).default(2_000),
  // How long a settlement record may wait for the catalog (or a conversion for its market's questions)
  // before it is released with the best evidence there is or dead-lettered (docs/CHAIN.md): six hours
  // outlast a catalog lookup and a short Gamma outage without hiding a wallet's history for long.
  CHAIN_HOLD_MAX_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(6 * 3_600_000),
  // Where a follower without a checkpoint starts; empty = the current confirmed head (history comes
  // from `npm run backfill -- --source chain`).
  CHAIN_START_BLOCK: z.preprocess((v) => (v === '' ? undefined : v), blockNumber.optional()),
  // ERC-1155 TransferSingle/TransferBatch of the CTF (wallet-to-wallet moves of shares) in the same
  // eth_getLogs as the settlement events; off reads them only from adapter actions' receipts and
  // positions ignore transfers between wallets (docs/CHAIN.md "Transfers").
  CHAIN_READ_TRANSFERS: booleanFlag,
  // Contracts on Polygon (chain id 137): services/chain/polygon-contracts.ts says where each comes from.
  CHAIN_EXCHANGE_V1: addressOr(POLYGON_CONTRACTS.exchangeV1),
  CHAIN_NEG_RISK_EXCHANGE_V1: addressOr(POLYGON_CONTRACTS.negRiskExchangeV1),
  CHAIN_EXCHANGE_V2: addressOr(POLYGON_CONTRACTS.exchangeV2),
  CHAIN_NEG_RISK_EXCHANGE_V2: addressOr(POLYGON_CONTRACTS.negRiskExchangeV2),
  CHAIN_CONDITIONAL_TOKENS: addressOr(POLYGON_CONTRACTS.conditionalTokens),
  CHAIN_NEG_RISK_ADAPTER: addressOr(POLYGON_CONTRACTS.negRiskAdapter),
  // The v2 collateral adapters (split/merge/redeem/convert with pUSD), comma-separated.
  CHAIN_COLLATERAL_ADAPTERS: addressList(POLYGON_CONTRACTS.collateralAdapters.join(',')),
  CHAIN_USDC_E: addressOr(POLYGON_CONTRACTS.usdcE),
  CHAIN_PUSD: addressOr(POLYGON_CONTRACTS.pusd),
  CHAIN_NEG_RISK_WRAPPED_COLLATERAL: addressOr(POLYGON_CONTRACTS.negRiskWrappedCollateral),
  // First blocks with events (0 = no lower bound): a contract is not asked for logs before its block.
  CHAIN_START_BLOCK_CONDITIONAL_TOKENS: blockNumber.default(POLYGON_START_BLOCKS.conditionalTokens),
  CHAIN_START_BLOCK_EXCHANGE_V1: blockNumber.default(POLYGON_START_BLOCKS.exchangeV1),
  CHAIN_START_BLOCK_NEG_RISK_ADAPTER: blockNumber.default(POLYGON_START_BLOCKS.negRiskAdapter),
  CHAIN_START_BLOCK_NEG_RISK_EXCHANGE_V1: blockNumber.default(POLYGON_START_BLOCKS.negRiskExchangeV1),
  CHAIN_START_BLOCK_EXCHANGE_V2: blockNumber.default(POLYGON_START_BLOCKS.exchangeV2),
  CHAIN_START_BLOCK_NEG_RISK_EXCHANGE_V2: blockNumber.default(POLYGON_START_BLOCKS.negRiskExchangeV2),

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
  // Requests per second that the free keys (Tier 1 and sandbox) of one client address share, on top of
  // each key's own rate: free keys are easy to collect, and ten of them on one address may not take
  // ten times one key's share of the engine (README, "Access").
  RATE_FREE_PER_IP_PER_SECOND: z.coerce.number().positive().default(10),
  // Usage counts reach the control store at this cadence (and balances are re-read from it).
  METER_FLUSH_INTERVAL_MS: z.coerce.number().int().positive().default(1_000),
  // Data API trades are reconciled with chain fills (per hour) this often.
  RECONCILIATION_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  // Tracked wallets' Data API positions are compared with the ledger's this often.
  POSITION_RECONCILIATION_INTERVAL_MS: z.coerce.number().int().positive().default(300_000),
  // Leaderboards and the trader directory are recomputed this often (per-wallet endpoints read the ledger's views).
  TRADER_VALUATION_INTERVAL_MS: z.coerce.number().int().positive().default(5_000),
  // The marks per-wallet endpoints value positions with (market_marks) are rebuilt this often for the markets written since.
  MARKET_MARKS_INTERVAL_MS: z.coerce.number().int().positive().default(1_000),
  // Each wallet's rows the per-wallet endpoints read (wallet_snapshots) are rebuilt this often for the wallets the ledger wrote since
  // (as often as the boards are built: a run's fixed cost, about 60 ms on the demo's engine, is paid once per 5 s, not every second).
  WALLET_SNAPSHOTS_INTERVAL_MS: z.coerce.number().int().positive().default(5_000),
  // The boards without a category are rebuilt as pages this often when anything they show changed.
  LEADERBOARD_BUILD_INTERVAL_MS: z.coerce.number().int().positive().default(5_000),
  // Ranks of each such board a build writes; pages past them are ranked when requested.
  LEADERBOARD_PAGE_DEPTH: z.coerce.number().int().positive().max(10_000_000).default(1_000),
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
  // The web UI's session cookie lives a working day: long enough not to nag, short enough that a
  // forgotten browser does not hold the key for weeks (the key itself does not expire).
  SESSION_MAX_AGE_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(12 * 3600),
  // A well-formed key that matches no live key is remembered as unknown this long, so guessing keys
  // costs no database lookup each; a new key is never in it (its owner is looked up once it exists).
  AUTH_NEGATIVE_CACHE_TTL_MS: z.coerce.number().int().min(0).default(60_000),
  // Failed authentications per client address per minute before its failures get 429: enough for a
  // misconfigured client to notice, far too few to search for keys. A valid key is never refused by it.
  AUTH_FAILURES_PER_IP_PER_MINUTE: z.coerce.number().int().positive().default(30),
  // The same per network (/24 IPv4, /64 IPv6), so one host cannot multiply its allowance by walking its
  // subnet; default 10 x the per-address limit (a NAT or office shares one network).
  AUTH_FAILURES_PER_PREFIX_PER_MINUTE: z.coerce.number().int().positive().optional(),
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
  // The wait is over twice a statement's time limit: the least-used lane is served next but may find
  // a statement of up to QUERY_MAX_EXECUTION_MS running, so a shorter wait turned fair turns into 503s
  // for well-behaved keys while another key flooded the engine (abuse suite, cache-busting phase).
  // Per key, 16: a browser page has up to 6 requests in flight (connections per host) and some read
  // per outcome token at once (a market's order book: 2 statements); at 4 the web UI's own market page
  // was refused (429) whenever the pipeline held the engine as it loaded.
  QUERY_QUEUE_PER_KEY: z.coerce.number().int().positive().default(16),
  QUERY_QUEUE_MAX: z.coerce.number().int().positive().default(256),
  QUERY_QUEUE_WAIT_MS: z.coerce.number().int().positive().default(12_000),
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

  // market.volume_spike: a market's taker volume in the last hour at least 3x its hourly average over
  // the 24 hours before, and at least 10,000 USDC (small markets double their volume on one trade).
  SIGNALS_VOLUME_WINDOW_MS: z.coerce.number().int().positive().default(3_600_000),
  SIGNALS_VOLUME_BASELINE_MS: z.coerce.number().int().positive().default(86_400_000),
  SIGNALS_VOLUME_SPIKE_RATIO: z.coerce.number().positive().default(3),
  SIGNALS_VOLUME_MIN_USDC: z.coerce.number().min(0).default(10_000),

  // Copy trading. Runs the copy engine (leader fills -> trade intents -> copy.executed / risk.blocked).
  COPY_ENABLED: booleanFlag,
  // A leader fill older than this when it reaches the engine is blocked as stale_fill: the chain gives
  // fills about 10 s after settlement and the Data API poll within seconds, so two minutes means an
  // outage or a backfill, and copying then would chase an old price.
  COPY_MAX_FILL_AGE_MS: z.coerce.number().int().positive().default(120_000),
  // Copy subscriptions and saved strategies per account: every leader fill is decided once per
  // subscription in the one control store, and every trade batch is evaluated once per strategy, so
  // one account's count is work taken from every other account (409 CONFLICT past it).
  COPY_SUBSCRIPTIONS_PER_ACCOUNT: z.coerce.number().int().positive().default(25),
  STRATEGIES_PER_ACCOUNT: z.coerce.number().int().positive().default(25),
  // The copy engine decides a leader fill for at most this many subscriptions per control-store
  // transaction, so other accounts' queries get the store between chunks.
  COPY_FANOUT_CHUNK: z.coerce.number().int().positive().default(25),
  // Copy picks are recomputed this often (each run replays candidate leaders' fills against book history).
  COPY_PICKS_INTERVAL_MS: z.coerce.number().int().positive().default(600_000),
  // The follower a copier-ROI estimate imagines: this many USDC per leader buy, entering this many
  // seconds after the leader (the chain source's confirmation lag plus an executor's reaction).
  COPY_PICKS_ORDER_USDC: decimalText.default('100'),
  COPY_PICKS_DELAY_SECONDS: z.coerce.number().int().min(0).max(86_400).default(15),
  // Candidate leaders per topic a copy-picks run evaluates (by realized PnL in the topic).
  COPY_PICKS_CANDIDATES: z.coerce.number().int().positive().max(2_000).default(100),

  // Sandbox. 10,000 paper USDC: enough to trade a few markets at size without making sizing trivial.
  PAPER_STARTING_BALANCE_USDC: decimalText.default('10000'),
  // Resting orders per agent: bounds what every book snapshot and trade has to check.
  PAPER_MAX_OPEN_ORDERS: z.coerce.number().int().positive().max(10_000).default(100),
  // Markets with fees on but no feeSchedule indexed: charge the steepest published schedule
  // (crypto_fees: rate 0.25, exponent 2) rather than none, and say so on the order.
  PAPER_FEE_FALLBACK_RATE: decimalText.default('0.25'),
  PAPER_FEE_FALLBACK_EXPONENT: z.coerce.number().int().min(0).max(8).default(2),
  // A paper order is refused when the newest indexed book of its token is older than this: filling
  // against a book of any age gave prices the market left long ago. A book is republished only when it
  // changes, so its age is the time since its last change: an hour leaves quiet markets tradable.
  PAPER_MAX_BOOK_AGE_MS: z.coerce.number().int().positive().default(3_600_000),
  // Turns the sandbox processor part (resting fills, settlement, briefing signals) off.
  SANDBOX_ENABLED: booleanFlag,
  // Suggested briefing cadence: fast while orders rest or a held market is about to end, slow when idle.
  BRIEFING_POLL_SECONDS: z.coerce.number().int().positive().default(60),
  BRIEFING_POLL_FAST_SECONDS: z.coerce.number().int().positive().default(15),
  BRIEFING_POLL_IDLE_SECONDS: z.coerce.number().int().positive().default(300),
  // A held market whose end date is this close raises a resolving_soon alert.
  BRIEFING_RESOLVING_SOON_HOURS: z.coerce.number().positive().default(24),
  // Equity this far below its peak raises a drawdown alert.
  BRIEFING_DRAWDOWN_ALERT_PCT: z.coerce.number().positive().max(100).default(10),
  // Briefing signals are kept this long; an agent away longer starts from the oldest kept.
  BRIEFING_SIGNAL_RETENTION_DAYS: z.coerce.number().positive().default(7),

  // Fees on copy trades, in basis points of the notional per currency (the platform token pays half).
  FEE_RATES_BPS: z.string().default('credits=50,usdc=50,native=50,platform_token=25'),
  // Quotes carry prices and rates of the moment: ten minutes to pay or settle.
  FEE_QUOTE_TTL_SECONDS: z.coerce.number().int().positive().default(600),
  // Where on-chain fees are paid; unset = only credits are accepted.
  FEE_TREASURY_ADDRESS: optionalAddress,
  // Stablecoins accepted for `usdc` fees (6 decimals): pUSD (collateral since v2) and USDC.e.
  FEE_USDC_CONTRACTS: z.string().default('0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB,0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174'),
  // Blocks on top of the payment's block (itself included) before it counts; Polygon reorgs are shallow.
  FEE_CONFIRMATIONS: z.coerce.number().int().min(1).max(10_000).default(12),
  // 1 credit = 0.01 USDC: a placeholder until credit pricing is set.
  FEE_CREDITS_PER_USDC: decimalText.default('100'),
  // USDC per whole native coin (POL); unset = native payments are not offered.
  FEE_NATIVE_PRICE_USDC: optionalDecimal,
  // The platform token: its contract and decimals (tiers read balances of it), and its USDC price for fees.
  PLATFORM_TOKEN_CONTRACT: optionalAddress,
  PLATFORM_TOKEN_DECIMALS: z.coerce.number().int().min(0).max(36).default(18),
  PLATFORM_TOKEN_PRICE_USDC: optionalDecimal,
  // A wallet's token balance is reused this long before the chain is asked again (tiers move within a minute).
  TOKEN_BALANCE_TTL_MS: z.coerce.number().int().min(0).default(60_000),
});

export type FeeCurrency = 'credits' | 'platform_token' | 'usdc' | 'native';

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
    /** The embedded log's segments and retention (null: unbounded). */
    fileLog: Readonly<{ segmentBytes: number; retentionMs: number | null; retentionBytes: number | null; hardCapBytes: number | null }>;
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
  chain: ChainConfig;
  access: Readonly<{
    thresholds: Readonly<{ tier2Tokens: number; tier3Tokens: number; tier2Credits: number }>;
    quotasPerDay: Readonly<{ sandbox: number; '1': number; '2': number; '3': number }>;
    creditsPerCall: number;
    ratePerSecond: Readonly<{ sandbox: number; '1': number; '2': number; '3': number }>;
    rateBurstFactor: number;
    /** What the free keys (Tier 1 and sandbox) of one client address share, per second. */
    freePerIpPerSecond: number;
    meterFlushIntervalMs: number;
    authCacheTtlMs: number;
    sessionMaxAgeSeconds: number;
    authNegativeCacheTtlMs: number;
    authFailuresPerIpPerMinute: number;
    authFailuresPerPrefixPerMinute: number;
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
  traderValuationIntervalMs: number;
  marketMarksIntervalMs: number;
  walletSnapshotsIntervalMs: number;
  leaderboardBuildIntervalMs: number;
  leaderboardPageDepth: number;
  reconciliationIntervalMs: number;
  positionReconciliationIntervalMs: number;
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
    volume: Readonly<{ windowMs: number; baselineMs: number; spikeRatio: number; minUsdc: number }>;
  }>;
  copy: Readonly<{
    enabled: boolean;
    maxFillAgeMs: number;
    subscriptionsPerAccount: number;
    strategiesPerAccount: number;
    fanoutChunk: number;
    picks: Readonly<{ intervalMs: number; orderUsdc: string; delaySeconds: number; candidates: number }>;
  }>;
  sandbox: Readonly<{
    enabled: boolean;
    startingBalanceUsdc: string;
    maxOpenOrders: number;
    feeFallback: Readonly<{ rate: string; exponent: number }>;
    maxBookAgeMs: number;
    pollSeconds: Readonly<{ normal: number; fast: number; idle: number }>;
    resolvingSoonHours: number;
    drawdownAlertPct: number;
    signalRetentionDays: number;
  }>;
  fees: Readonly<{
    ratesBps: Readonly<Record<FeeCurrency, number>>;
    quoteTtlSeconds: number;
    treasury?: string;
    usdcContracts: readonly string[];
    confirmations: number;
    creditsPerUsdc: string;
    nativePriceUsdc?: string;
  }>;
  platformToken: Readonly<{ contract?: string; decimals: number; priceUsdc?: string; balanceTtlMs: number }>;
}>;

/** A contract the chain source reads, with the first block it can have events in. */
export interface ChainContract {
  address: string;
  startBlock: number;
}

export type ChainConfig = Readonly<{
  /** null: no RPC configured (the chain source is off). */
  rpcUrl: string | null;
  chainId: number;
  confirmations: number;
  reorgWindowBlocks: number;
  pollIntervalMs: number;
  budgetPer10s: number;
  batchSize: number;
  timeoutMs: number;
  logRangeBlocks: number;
  logRangeMaxBlocks: number;
  startBlock: number | null;
  holdMaxMs: number;
  /** Read CTF ERC-1155 transfers between wallets (default on). */
  readTransfers: boolean;
  contracts: Readonly<{
    exchangeV1: ChainContract;
    negRiskExchangeV1: ChainContract;
    exchangeV2: ChainContract;
    negRiskExchangeV2: ChainContract;
    conditionalTokens: ChainContract;
    negRiskAdapter: ChainContract;
    collateralAdapters: readonly string[];
    usdcE: string;
    pusd: string;
    wrappedCollateral: string;
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
      fileLog: {
        segmentBytes: e.EVENT_LOG_SEGMENT_BYTES,
        retentionMs: e.EVENT_LOG_RETENTION_MS === -1 ? null : e.EVENT_LOG_RETENTION_MS,
        retentionBytes: e.EVENT_LOG_RETENTION_BYTES === -1 ? null : e.EVENT_LOG_RETENTION_BYTES,
        hardCapBytes: e.EVENT_LOG_HARD_CAP_BYTES === -1 ? null : e.EVENT_LOG_HARD_CAP_BYTES,
      },
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
    chain: {
      rpcUrl: e.POLYGON_RPC_URL,
      chainId: e.CHAIN_ID,
      confirmations: e.CHAIN_CONFIRMATIONS,
      reorgWindowBlocks: e.CHAIN_REORG_WINDOW_BLOCKS,
      pollIntervalMs: e.CHAIN_POLL_INTERVAL_MS,
      budgetPer10s: e.CHAIN_RPC_BUDGET_PER_10S,
      batchSize: e.CHAIN_RPC_BATCH_SIZE,
      timeoutMs: e.CHAIN_RPC_TIMEOUT_MS,
      logRangeBlocks: Math.min(e.CHAIN_LOG_RANGE_BLOCKS, e.CHAIN_LOG_RANGE_MAX_BLOCKS),
      logRangeMaxBlocks: e.CHAIN_LOG_RANGE_MAX_BLOCKS,
      startBlock: e.CHAIN_START_BLOCK ?? null,
      holdMaxMs: e.CHAIN_HOLD_MAX_MS,
      readTransfers: e.CHAIN_READ_TRANSFERS ?? true,
      contracts: {
        exchangeV1: { address: e.CHAIN_EXCHANGE_V1, startBlock: e.CHAIN_START_BLOCK_EXCHANGE_V1 },
        negRiskExchangeV1: { address: e.CHAIN_NEG_RISK_EXCHANGE_V1, startBlock: e.CHAIN_START_BLOCK_NEG_RISK_EXCHANGE_V1 },
        exchangeV2: { address: e.CHAIN_EXCHANGE_V2, startBlock: e.CHAIN_START_BLOCK_EXCHANGE_V2 },
        negRiskExchangeV2: { address: e.CHAIN_NEG_RISK_EXCHANGE_V2, startBlock: e.CHAIN_START_BLOCK_NEG_RISK_EXCHANGE_V2 },
        conditionalTokens: { address: e.CHAIN_CONDITIONAL_TOKENS, startBlock: e.CHAIN_START_BLOCK_CONDITIONAL_TOKENS },
        negRiskAdapter: { address: e.CHAIN_NEG_RISK_ADAPTER, startBlock: e.CHAIN_START_BLOCK_NEG_RISK_ADAPTER },
        collateralAdapters: e.CHAIN_COLLATERAL_ADAPTERS,
        usdcE: e.CHAIN_USDC_E,
        pusd: e.CHAIN_PUSD,
        wrappedCollateral: e.CHAIN_NEG_RISK_WRAPPED_COLLATERAL,
      },
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
      freePerIpPerSecond: e.RATE_FREE_PER_IP_PER_SECOND,
      meterFlushIntervalMs: e.METER_FLUSH_INTERVAL_MS,
      authCacheTtlMs: e.AUTH_CACHE_TTL_MS,
      sessionMaxAgeSeconds: e.SESSION_MAX_AGE_SECONDS,
      authNegativeCacheTtlMs: e.AUTH_NEGATIVE_CACHE_TTL_MS,
      authFailuresPerIpPerMinute: e.AUTH_FAILURES_PER_IP_PER_MINUTE,
      authFailuresPerPrefixPerMinute: e.AUTH_FAILURES_PER_PREFIX_PER_MINUTE ?? 10 * e.AUTH_FAILURES_PER_IP_PER_MINUTE,
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
    traderValuationIntervalMs: e.TRADER_VALUATION_INTERVAL_MS,
    marketMarksIntervalMs: e.MARKET_MARKS_INTERVAL_MS,
    walletSnapshotsIntervalMs: e.WALLET_SNAPSHOTS_INTERVAL_MS,
    leaderboardBuildIntervalMs: e.LEADERBOARD_BUILD_INTERVAL_MS,
    leaderboardPageDepth: e.LEADERBOARD_PAGE_DEPTH,
    reconciliationIntervalMs: e.RECONCILIATION_INTERVAL_MS,
    positionReconciliationIntervalMs: e.POSITION_RECONCILIATION_INTERVAL_MS,
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
      volume: {
        windowMs: e.SIGNALS_VOLUME_WINDOW_MS,
        baselineMs: e.SIGNALS_VOLUME_BASELINE_MS,
        spikeRatio: e.SIGNALS_VOLUME_SPIKE_RATIO,
        minUsdc: e.SIGNALS_VOLUME_MIN_USDC,
      },
    },
    copy: {
      enabled: e.COPY_ENABLED ?? true,
      maxFillAgeMs: e.COPY_MAX_FILL_AGE_MS,
      subscriptionsPerAccount: e.COPY_SUBSCRIPTIONS_PER_ACCOUNT,
      strategiesPerAccount: e.STRATEGIES_PER_ACCOUNT,
      fanoutChunk: e.COPY_FANOUT_CHUNK,
      picks: {
        intervalMs: e.COPY_PICKS_INTERVAL_MS,
        orderUsdc: e.COPY_PICKS_ORDER_USDC,
        delaySeconds: e.COPY_PICKS_DELAY_SECONDS,
        candidates: e.COPY_PICKS_CANDIDATES,
      },
    },
    sandbox: {
      enabled: e.SANDBOX_ENABLED ?? true,
      startingBalanceUsdc: e.PAPER_STARTING_BALANCE_USDC,
      maxOpenOrders: e.PAPER_MAX_OPEN_ORDERS,
      feeFallback: { rate: e.PAPER_FEE_FALLBACK_RATE, exponent: e.PAPER_FEE_FALLBACK_EXPONENT },
      maxBookAgeMs: e.PAPER_MAX_BOOK_AGE_MS,
      pollSeconds: { normal: e.BRIEFING_POLL_SECONDS, fast: e.BRIEFING_POLL_FAST_SECONDS, idle: e.BRIEFING_POLL_IDLE_SECONDS },
      resolvingSoonHours: e.BRIEFING_RESOLVING_SOON_HOURS,
      drawdownAlertPct: e.BRIEFING_DRAWDOWN_ALERT_PCT,
      signalRetentionDays: e.BRIEFING_SIGNAL_RETENTION_DAYS,
    },
    fees: {
      ratesBps: parseFeeRates(e.FEE_RATES_BPS),
      quoteTtlSeconds: e.FEE_QUOTE_TTL_SECONDS,
      treasury: e.FEE_TREASURY_ADDRESS,
      usdcContracts: parseAddressList(e.FEE_USDC_CONTRACTS, 'FEE_USDC_CONTRACTS'),
      confirmations: e.FEE_CONFIRMATIONS,
      creditsPerUsdc: e.FEE_CREDITS_PER_USDC,
      nativePriceUsdc: e.FEE_NATIVE_PRICE_USDC,
    },
    platformToken: {
      contract: e.PLATFORM_TOKEN_CONTRACT,
      decimals: e.PLATFORM_TOKEN_DECIMALS,
      priceUsdc: e.PLATFORM_TOKEN_PRICE_USDC,
      balanceTtlMs: e.TOKEN_BALANCE_TTL_MS,
    },
  });
}

const FEE_CURRENCIES: readonly FeeCurrency[] = ['credits', 'platform_token', 'usdc', 'native'];

/** `credits=50,usdc=50,...`: every currency must be named once, as whole basis points (0..10000). */
function parseFeeRates(text: string): Record<FeeCurrency, number> {
  const rates: Partial<Record<FeeCurrency, number>> = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [name, value] = part.split('=').map((p) => p.trim());
    const bps = Number(value);
    if (!FEE_CURRENCIES.includes(name as FeeCurrency) || !Number.isInteger(bps) || bps < 0 || bps > 10_000) {
      throw new ConfigError(`invalid configuration: FEE_RATES_BPS: "${part}" is not <currency>=<0..10000 bps>`);
    }
    rates[name as FeeCurrency] = bps;
  }
  const missing = FEE_CURRENCIES.filter((c) => rates[c] === undefined);
  if (missing.length > 0) throw new ConfigError(`invalid configuration: FEE_RATES_BPS: no rate for ${missing.join(', ')}`);
  return rates as Record<FeeCurrency, number>;
}

function parseAddressList(text: string, name: string): string[] {
  const list = text
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  const bad = list.find((a) => !WALLET.test(a));
  if (bad) throw new ConfigError(`invalid configuration: ${name}: ${bad} is not an address`);
  return list.map((a) => a.toLowerCase());
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
