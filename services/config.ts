/**
 * The only module that reads process.env. Parsed once at boot, then frozen.
 *
 * `settings` is the one source: each variable is declared once, where its value sits in `Config`, with
 * its schema, its default and a description that says why the default is what it is. The flat schema
 * the environment is checked against, the `Config` type and docs/CONFIG.md (`npm run gen`) are derived
 * from it.
 */
import path from 'node:path';
import { z } from 'zod';
import { POLYGON_CONTRACTS, POLYGON_START_BLOCKS } from './chain/polygon-contracts.js';
import { WALLET } from './shared/ids.js';

/** One environment variable and its schema (default and `.describe()` text included). */
class Setting<S extends z.ZodType = z.ZodType> {
  readonly kind = 'setting';
  constructor(
    readonly env: string,
    readonly schema: S,
  ) {}
}

/** Settings whose values are combined into one (a default that depends on another setting). */
class Derived<T extends SettingTree = SettingTree, R = unknown> {
  readonly kind = 'derived';
  // Typed by `derived()`; loose here so every Derived fits the tree's index signature.
  constructor(
    readonly tree: T,
    readonly combine: (values: never) => R,
  ) {}
}

interface SettingTree {
  readonly [field: string]: Setting | Derived | SettingTree;
}

type ValueOf<N> =
  N extends Setting<infer S>
    ? Frozen<z.output<S>>
    : N extends Derived<SettingTree, infer R>
      ? R
      : N extends SettingTree
        ? ValuesOf<N>
        : never;
type Frozen<V> = V extends readonly (infer E)[] ? readonly E[] : V;
type OptionalFields<T> = { [K in keyof T]: undefined extends ValueOf<T[K]> ? K : never }[keyof T];
type ValuesOf<T> = Readonly<{ [K in Exclude<keyof T, OptionalFields<T>>]: ValueOf<T[K]> } & { [K in OptionalFields<T>]?: ValueOf<T[K]> }>;

const env = <S extends z.ZodType>(name: string, schema: S, description: string) => new Setting(name, schema.describe(description));
const derived = <T extends SettingTree, R>(tree: T, combine: (values: ValuesOf<T>) => R) => new Derived(tree, combine);

const blankIsUnset = (v: unknown) => (v === '' ? undefined : v);
const optionalUrl = z.preprocess(blankIsUnset, z.string().url().optional());
const optionalAddress = z.preprocess(
  blankIsUnset,
  z
    .string()
    .regex(WALLET, '0x + 40 hex')
    .transform((a) => a.toLowerCase())
    .optional(),
);
// An exact decimal (money, prices, rates): kept as text so no float ever rounds it.
const decimalText = z.string().regex(/^\d+(\.\d{1,18})?$/, 'a decimal number such as 10000 or 0.25');
const optionalDecimal = z.preprocess(blankIsUnset, decimalText.optional());
const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'a 0x-prefixed 20-byte address')
  .transform((v) => v.toLowerCase());
const addressOr = (fallback: string) => z.string().default(fallback).pipe(address);
const commaList = (v: string) =>
  v
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
const addressList = (defaults: string) => z.string().default(defaults).transform(commaList).pipe(z.array(address));
const blockNumber = z.coerce.number().int().min(0);
const int = () => z.coerce.number().int();
const positiveInt = () => int().positive();
const portNumber = int().min(0).max(65535);
const stripSlash = (url: string) => url.replace(/\/+$/, '');
const baseUrl = (fallback: string) => z.string().url().default(fallback).transform(stripSlash);
const readFlag = (v: unknown) => (v === undefined || v === '' ? undefined : ['1', 'true', 'yes'].includes(String(v).toLowerCase()));
/** 1, true or yes (any case) is on; anything else set is off; unset or empty is the default. */
const flag = (fallback: boolean) => z.preprocess(readFlag, z.boolean().default(fallback));

const FEE_CURRENCIES = ['credits', 'platform_token', 'usdc', 'native'] as const;
export type FeeCurrency = (typeof FEE_CURRENCIES)[number];

/** `credits=50,usdc=50,...`: every currency must be named once, as whole basis points (0..10000). */
const feeRates = z.string().transform((text, ctx) => {
  const rates: Partial<Record<FeeCurrency, number>> = {};
  for (const part of commaList(text)) {
    const [name, value] = part.split('=').map((p) => p.trim());
    const bps = Number(value);
    if (!FEE_CURRENCIES.includes(name as FeeCurrency) || !Number.isInteger(bps) || bps < 0 || bps > 10_000) {
      ctx.addIssue({ code: 'custom', message: `"${part}" is not <currency>=<0..10000 bps>` });
      return z.NEVER;
    }
    rates[name as FeeCurrency] = bps;
  }
  const missing = FEE_CURRENCIES.filter((c) => rates[c] === undefined);
  if (missing.length > 0) {
    ctx.addIssue({ code: 'custom', message: `no rate for ${missing.join(', ')}` });
    return z.NEVER;
  }
  return rates as Readonly<Record<FeeCurrency, number>>;
});

const looseAddressList = z.string().transform((text, ctx) => {
  const list = commaList(text);
  const bad = list.find((a) => !WALLET.test(a));
  if (bad) {
    ctx.addIssue({ code: 'custom', message: `${bad} is not an address` });
    return z.NEVER;
  }
  return list.map((a) => a.toLowerCase());
});

// Tier 2 is reached with tokens or with any credits: the price of one call is the credit threshold.
const creditsPerCall = env(
  'CREDITS_PER_CALL',
  z.coerce.number().positive().default(1),
  'Credits one call costs past the daily quota (and the credits that make a key Tier 2).',
);

const contract = (name: keyof typeof POLYGON_START_BLOCKS & keyof typeof POLYGON_CONTRACTS, addressVar: string, blockVar: string) => ({
  address: env(addressVar, addressOr(POLYGON_CONTRACTS[name]), `Address of the ${name} contract.`),
  startBlock: env(
    blockVar,
    blockNumber.default(POLYGON_START_BLOCKS[name]),
    `First block the ${name} contract can have events in (0: unknown, no lower bound); it is not asked for logs before it.`,
  ),
});

const settings = {
  port: env('PORT', portNumber.default(8080), 'HTTP port of the public API: the conventional unprivileged HTTP port.'),
  host: env('HOST', z.string().default('127.0.0.1'), 'Bind address; loopback, so a fresh machine exposes nothing until asked to.'),
  admin: derived(
    {
      host: env(
        'ADMIN_HOST',
        z.string().default('127.0.0.1'),
        'Bind address of the operator listener (/admin, /metrics), apart from the public API so exposing one never exposes the other.',
      ),
      port: env(
        'ADMIN_PORT',
        portNumber.optional(),
        'Port of the operator listener; unset is 9464 (the conventional Prometheus exporter port), and then an ephemeral port when 9464 is taken (several processes on one host).',
      ),
    },
    ({ host, port }) => ({ host, port: port ?? 9464, portIsDefault: port === undefined }),
  ),
  trustProxyHops: env(
    'TRUST_PROXY_HOPS',
    int().min(0).max(10).default(0),
    "Proxies in front of the API whose X-Forwarded-For gives the client address (per-address limits): 0 = none (the socket's peer is the client), n = the n-th address from the right.",
  ),
  dataDir: env(
    'DATA_DIR',
    z
      .string()
      .default('./data')
      .transform((dir) => path.resolve(dir)),
    'Folder of everything durable (log segments, chDB, PGlite, ingest checkpoints), so one backup covers it. `npm run demo` uses ./data-demo.',
  ),
  logLevel: env('LOG_LEVEL', z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'), 'pino log level.'),
  logPretty: env(
    'LOG_PRETTY',
    z.preprocess(readFlag, z.boolean().optional()).transform((pretty) => pretty ?? Boolean(process.stdout.isTTY)),
    'Pretty logs for a terminal, JSON for machines; unset: pretty when stdout is a TTY.',
  ),
  upstream: {
    gammaUrl: env('POLYMARKET_GAMMA_URL', baseUrl('https://gamma-api.polymarket.com'), "Gamma API base (Polymarket's public host)."),
    clobUrl: env('POLYMARKET_CLOB_URL', baseUrl('https://clob.polymarket.com'), 'CLOB REST base.'),
    dataUrl: env('POLYMARKET_DATA_URL', baseUrl('https://data-api.polymarket.com'), 'Data API base.'),
    wsUrl: env(
      'POLYMARKET_WS_URL',
      z.string().url().default('wss://ws-subscriptions-clob.polymarket.com/ws/market'),
      'CLOB market websocket. `npm run demo` points every upstream at the simulator.',
    ),
  },
  engines: {
    kafkaBrokers: env(
      'KAFKA_BROKERS',
      z.preprocess(blankIsUnset, z.string().optional()),
      'Kafka brokers (host:port,...); unset: the embedded file log.',
    ),
    schemaRegistryUrl: env(
      'SCHEMA_REGISTRY_URL',
      optionalUrl,
      'A Confluent-compatible schema registry (on Apicurio: .../apis/ccompat/v7); required with KAFKA_BROKERS, since values on Kafka are Avro in the Confluent wire format.',
    ),
    clickhouseUrl: env('CLICKHOUSE_URL', optionalUrl, 'A ClickHouse server over HTTP; unset: chDB, the engine in-process.'),
    clickhouseDatabase: env(
      'CLICKHOUSE_DATABASE',
      z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
        .default('tapeline'),
      'Database of the analytics tables.',
    ),
    clickhouseMigrations: env(
      'CLICKHOUSE_MIGRATIONS',
      z.enum(['service', 'cluster', 'none']).default('service'),
      "Which migrations a part applies at start: `service` (the read models' own, one server or chDB), `cluster` (clickhouse/migrations/, ON CLUSTER, on a server of the cluster in clickhouse/config/), `none` (the schema is another part's or the operator's to apply; a read-only user's parts).",
    ),
    databaseUrl: env('DATABASE_URL', optionalUrl, 'PostgreSQL for accounts and keys; unset: PGlite under DATA_DIR.'),
    kafkaNamespace: env(
      'KAFKA_NAMESPACE',
      z
        .string()
        .regex(/^[A-Za-z0-9._-]*$/)
        .default(''),
      'Prefix of every Kafka topic and consumer group, so environments can share one cluster.',
    ),
    // The embedded log (no KAFKA_BROKERS): retention per partition as Kafka's retention.ms /
    // retention.bytes, never deleting what a consumer group has not committed past unless the
    // partition is over the hard cap.
    fileLog: {
      segmentBytes: env(
        'EVENT_LOG_SEGMENT_BYTES',
        positiveInt().default(64 * 1024 * 1024),
        'Embedded event log: a partition rolls into a new segment file at this size.',
      ),
      retentionMs: env(
        'EVENT_LOG_RETENTION_MS',
        int()
          .min(-1)
          .default(7 * 24 * 3_600_000)
          .transform((v) => (v === -1 ? null : v)),
        'Embedded event log: whole segments older than this go once every consumer group committed past them (-1: kept forever).',
      ),
      retentionBytes: env(
        'EVENT_LOG_RETENTION_BYTES',
        int()
          .min(-1)
          .default(-1)
          .transform((v) => (v === -1 ? null : v)),
        'Embedded event log: the oldest committed segments go while a partition is over this size (-1: no bound).',
      ),
      hardCapBytes: env(
        'EVENT_LOG_HARD_CAP_BYTES',
        int()
          .min(-1)
          .default(-1)
          .transform((v) => (v === -1 ? null : v)),
        'Embedded event log: over this size a partition drops even unread segments, the lagging group told and its loss counted in /v1/health (-1: never).',
      ),
    },
  },
  ingest: {
    enabled: env('INGEST_ENABLED', flag(true), 'Runs the ingestors; off for an API-only process.'),
    marketsPollIntervalMs: env(
      'MARKETS_POLL_INTERVAL_MS',
      positiveInt().default(60_000),
      'Open markets are polled this often (spec freshness: prices ~5 min; we poll well inside it).',
    ),
    tradesPollIntervalMs: env(
      'TRADES_POLL_INTERVAL_MS',
      positiveInt().default(5_000),
      'The Data API trade feed is polled this often (spec freshness: trades ~1 min).',
    ),
    catalogSyncIntervalMs: env(
      'CATALOG_SYNC_INTERVAL_MS',
      positiveInt().default(300_000),
      'After the one-time full catalog sync, changed markets and events are read this often (the metadata freshness target is 5 minutes).',
    ),
    recheckPerPoll: env(
      'MARKETS_RECHECK_PER_POLL',
      int().min(0).default(2_000),
      'Unsettled markets looked up again by id per market poll: 2,000 is 20 requests, well inside the Gamma budget; more are covered round-robin.',
    ),
    gapMarketsPerPoll: env(
      'TRADES_GAP_MARKETS_PER_POLL',
      positiveInt().default(50),
      'Markets read per trade poll while a trade-feed gap is backfilled: bounded so the live feed stays fresh.',
    ),
    lookupTimeoutMs: env(
      'MARKET_LOOKUP_TIMEOUT_MS',
      positiveInt().default(3_000),
      'On-demand lookup of a market the catalog does not hold yet (GET /v1/markets/<unknown id>): longest wait for upstream.',
    ),
    lookupPerSecond: env(
      'MARKET_LOOKUP_PER_SECOND',
      z.coerce.number().positive().default(2),
      'On-demand market lookups run per second; the rest answer at once (not found now).',
    ),
    lookupMissTtlMs: env(
      'MARKET_LOOKUP_MISS_TTL_MS',
      int().min(0).default(600_000),
      'An id upstream does not know is not looked up again for this long.',
    ),
    wsIdleTimeoutMs: env(
      'WS_IDLE_TIMEOUT_MS',
      positiveInt().default(30_000),
      'A websocket silent this long (not even PONG to our 10 s PING) is dead: three missed pings.',
    ),
    wsStableAfterMs: env(
      'WS_STABLE_AFTER_MS',
      positiveInt().default(60_000),
      'Reconnect backoff starts over only after a connection stayed up this long, so a server that accepts and drops us is retried with growing delays.',
    ),
    wsPublishAttempts: env(
      'WS_PUBLISH_ATTEMPTS',
      positiveInt().default(5),
      'Attempts (with backoff) to publish websocket events before they are dead-lettered with the reason; they stay buffered until one or the other succeeds.',
    ),
    backfillMaxPerMarket: env(
      'TRADES_BACKFILL_MAX_PER_MARKET',
      int().min(0).max(10_000).default(3_000),
      'Trades backfilled per market on first sight of it (the Data API feed caps offsets at 10,000).',
    ),
    backfillMarkets: env(
      'TRADES_BACKFILL_MARKETS',
      int().min(0).default(100),
      'Markets backfilled one by one (up to TRADES_BACKFILL_MAX_PER_MARKET trades each) while among the busiest N by 24 h volume, busiest first; the global feed covers the rest.',
    ),
    gammaBudgetPer10s: env(
      'GAMMA_BUDGET_PER_10S',
      positiveInt().default(150),
      "Gamma requests per 10 s we allow ourselves: half of Polymarket's published /markets limit (300).",
    ),
    dataBudgetPer10s: env(
      'DATA_BUDGET_PER_10S',
      positiveInt().default(100),
      "Data API requests per 10 s: half of Polymarket's published /trades limit (200).",
    ),
    clobBudgetPer10s: env(
      'CLOB_BUDGET_PER_10S',
      positiveInt().default(500),
      "CLOB requests per 10 s: a third of Polymarket's published /book limit (1,500).",
    ),
    timeoutMs: env('UPSTREAM_TIMEOUT_MS', positiveInt().default(15_000), 'Timeout of one upstream HTTP request.'),
    clobPollIntervalMs: env(
      'CLOB_POLL_INTERVAL_MS',
      positiveInt().default(30_000),
      'REST order books are read this often as the reconciliation behind the websocket, which carries the 2 s freshness.',
    ),
    wsEnabled: env('WS_ENABLED', flag(true), 'Subscribes to the CLOB market websocket (books and price changes).'),
    wsShardSize: env(
      'WS_SHARD_SIZE',
      positiveInt().max(5_000).default(500),
      'Tokens per websocket connection: smaller shards limit what one dropped connection takes down and keep each resubscribe burst small.',
    ),
    walletsPollIntervalMs: env(
      'WALLETS_POLL_INTERVAL_MS',
      positiveInt().default(300_000),
      "Tracked wallets' positions and activity are read this often (target 10 min).",
    ),
    trackedWallets: env(
      'TRACKED_WALLETS',
      z
        .string()
        .default('')
        .transform((list) => commaList(list.toLowerCase()).filter((w) => WALLET.test(w))),
      'Wallets always tracked, comma-separated (entries that are not addresses are ignored).',
    ),
    trackedWalletsTop: env(
      'TRACKED_WALLETS_TOP',
      int().min(0).default(50),
      'The N wallets with the most traded volume seen by the trade poller are tracked too.',
    ),
    holdersMarkets: env(
      'HOLDERS_MARKETS',
      int().min(0).default(100),
      'Markets whose holders and open interest are polled (the busiest N).',
    ),
  },
  chain: derived(
    {
      rpcUrl: env(
        'POLYGON_RPC_URL',
        z.preprocess((v) => (v === '' ? null : v), z.string().url().nullable().default('https://polygon.drpc.org')),
        "Polygon JSON-RPC for the chain source (docs/CHAIN.md). The default is dRPC's keyless public endpoint (viem's default for Polygon); it serves the head, a deep backfill needs a keyed URL. Empty turns the chain source off: the Data API stays the only (taker-only) trade source.",
      ),
      chainId: env(
        'CHAIN_ID',
        positiveInt().default(137),
        'The chain the RPC serves: fee payments and platform-token balances are read there (tests run a local EVM).',
      ),
      confirmations: env(
        'CHAIN_CONFIRMATIONS',
        int().min(0).max(1_000).default(3),
        "Blocks on top of a block before its events are published: Polygon's milestones finalize in 2-5 s; 3 blocks (~6 s) is past that.",
      ),
      reorgWindowBlocks: env(
        'CHAIN_REORG_WINDOW_BLOCKS',
        int().min(1).max(10_000).default(128),
        'Published blocks whose hashes are re-checked for deeper reorgs: 128 blocks (~4 min) covers the deepest Polygon reorgs seen before milestones.',
      ),
      pollIntervalMs: env(
        'CHAIN_POLL_INTERVAL_MS',
        positiveInt().default(500),
        'Head polls while caught up: four per ~2 s Polygon block keeps a block queryable within ~0.5 s of its confirmation.',
      ),
      budgetPer10s: env(
        'CHAIN_RPC_BUDGET_PER_10S',
        positiveInt().default(50),
        'JSON-RPC requests per 10 s: free dRPC allows ~120k compute units a minute per IP (a getLogs is ~75); 50 stays far inside it.',
      ),
      batchSize: env(
        'CHAIN_RPC_BATCH_SIZE',
        int().min(1).max(100).default(3),
        'Calls per JSON-RPC batch: free dRPC rejects batches of more than 3.',
      ),
      timeoutMs: env(
        'CHAIN_RPC_TIMEOUT_MS',
        positiveInt().default(10_000),
        'JSON-RPC request timeout: free dRPC cuts requests at 2 s; 10 s leaves room for keyed endpoints answering large ranges.',
      ),
      logRangeBlocks: env(
        'CHAIN_LOG_RANGE_BLOCKS',
        int().min(1).default(50),
        'First eth_getLogs window (what keyless endpoints accept); it halves on refusal and doubles after clean answers.',
      ),
      logRangeMaxBlocks: env(
        'CHAIN_LOG_RANGE_MAX_BLOCKS',
        int().min(1).default(2_000),
        'Largest eth_getLogs window (keyed plans allow a few thousand blocks).',
      ),
      startBlock: env(
        'CHAIN_START_BLOCK',
        z.preprocess(blankIsUnset, blockNumber.optional()).transform((block) => block ?? null),
        'Where a follower without a checkpoint starts; unset: the confirmed head (the history below it is filled in the background: CHAIN_HISTORY).',
      ),
      history: env(
        'CHAIN_HISTORY',
        flag(true),
        'Fills the history in the background while the chain source follows the head: from the follower\'s first block down to the earliest contract start block, newest first, with the RPC budget the head leaves, resumable (docs/CHAIN.md "History fill"). `off` reads only from where the follower started (or what `npm run backfill -- --source chain` adds).',
      ),
      historyChunkBlocks: env(
        'CHAIN_HISTORY_CHUNK_BLOCKS',
        positiveInt().default(43_200),
        'Blocks the history fill reads per chunk, newest chunk first; each finished chunk extends the stated coverage down. 43,200 Polygon blocks are about a day.',
      ),
      holdMaxMs: env(
        'CHAIN_HOLD_MAX_MS',
        int()
          .min(0)
          .default(6 * 3_600_000),
        "Longest a settlement record waits for the catalog (or a conversion for its market's questions) before it is released with the best evidence or dead-lettered: six hours outlast a catalog lookup and a short Gamma outage.",
      ),
      readTransfers: env(
        'CHAIN_READ_TRANSFERS',
        flag(true),
        "Reads the CTF's ERC-1155 transfers between wallets in the same eth_getLogs as the settlement events; off reads them only from adapter actions' receipts and positions ignore transfers between wallets.",
      ),
      contracts: {
        exchangeV1: contract('exchangeV1', 'CHAIN_EXCHANGE_V1', 'CHAIN_START_BLOCK_EXCHANGE_V1'),
        negRiskExchangeV1: contract('negRiskExchangeV1', 'CHAIN_NEG_RISK_EXCHANGE_V1', 'CHAIN_START_BLOCK_NEG_RISK_EXCHANGE_V1'),
        exchangeV2: contract('exchangeV2', 'CHAIN_EXCHANGE_V2', 'CHAIN_START_BLOCK_EXCHANGE_V2'),
        negRiskExchangeV2: contract('negRiskExchangeV2', 'CHAIN_NEG_RISK_EXCHANGE_V2', 'CHAIN_START_BLOCK_NEG_RISK_EXCHANGE_V2'),
        conditionalTokens: contract('conditionalTokens', 'CHAIN_CONDITIONAL_TOKENS', 'CHAIN_START_BLOCK_CONDITIONAL_TOKENS'),
        negRiskAdapter: contract('negRiskAdapter', 'CHAIN_NEG_RISK_ADAPTER', 'CHAIN_START_BLOCK_NEG_RISK_ADAPTER'),
        collateralAdapters: env(
          'CHAIN_COLLATERAL_ADAPTERS',
          addressList(POLYGON_CONTRACTS.collateralAdapters.join(',')),
          'The v2 collateral adapters (split/merge/redeem/convert with pUSD), comma-separated.',
        ),
        usdcE: env('CHAIN_USDC_E', addressOr(POLYGON_CONTRACTS.usdcE), 'USDC.e, the v1 collateral.'),
        pusd: env('CHAIN_PUSD', addressOr(POLYGON_CONTRACTS.pusd), 'pUSD, the collateral since v2.'),
        wrappedCollateral: env(
          'CHAIN_NEG_RISK_WRAPPED_COLLATERAL',
          addressOr(POLYGON_CONTRACTS.negRiskWrappedCollateral),
          "The neg-risk adapter's wrapped collateral.",
        ),
      },
    },
    (chain) => ({ ...chain, logRangeBlocks: Math.min(chain.logRangeBlocks, chain.logRangeMaxBlocks) }),
  ),
  access: derived(
    {
      creditsPerCall,
      thresholds: {
        tier2Tokens: env(
          'TIER2_TOKEN_THRESHOLD',
          z.coerce.number().min(0).default(1_000),
          "Platform tokens that make a key Tier 2 (or any credits): a placeholder until the token's economics are set, so operators can move it without a release.",
        ),
        tier3Tokens: env('TIER3_TOKEN_THRESHOLD', z.coerce.number().min(0).default(10_000), 'Platform tokens that make a key Tier 3.'),
        tier2Credits: creditsPerCall,
      },
      quotasPerDay: {
        sandbox: env(
          'QUOTA_SANDBOX_PER_DAY',
          int().min(0).default(2_000),
          'Sandbox calls per UTC day before credits are drawn: enough for an agent polling a few markets a minute.',
        ),
        '1': env('QUOTA_TIER1_PER_DAY', int().min(0).default(10_000), 'Tier 1 calls per UTC day before credits are drawn: a dashboard.'),
        '2': env('QUOTA_TIER2_PER_DAY', int().min(0).default(100_000), 'Tier 2 calls per UTC day before credits are drawn: a trading bot.'),
        '3': env(
          'QUOTA_TIER3_PER_DAY',
          int().min(0).default(1_000_000),
          'Tier 3 calls per UTC day before credits are drawn: a data pipeline.',
        ),
      },
      ratePerSecond: {
        sandbox: env(
          'RATE_SANDBOX_PER_SECOND',
          z.coerce.number().positive().default(5),
          'Sustained requests per second per sandbox key, per API process.',
        ),
        '1': env('RATE_TIER1_PER_SECOND', z.coerce.number().positive().default(10), 'Sustained requests per second per Tier 1 key.'),
        '2': env('RATE_TIER2_PER_SECOND', z.coerce.number().positive().default(50), 'Sustained requests per second per Tier 2 key.'),
        '3': env('RATE_TIER3_PER_SECOND', z.coerce.number().positive().default(200), 'Sustained requests per second per Tier 3 key.'),
      },
      rateBurstFactor: env(
        'RATE_BURST_FACTOR',
        z.coerce.number().min(1).default(2),
        "A key's burst, as a multiple of its rate per second.",
      ),
      freePerIpPerSecond: env(
        'RATE_FREE_PER_IP_PER_SECOND',
        z.coerce.number().positive().default(10),
        "Requests per second the free keys (Tier 1 and sandbox) of one client address share, on top of each key's own rate: free keys are easy to collect, and ten of them on one address may not take ten times one key's share.",
      ),
      meterFlushIntervalMs: env(
        'METER_FLUSH_INTERVAL_MS',
        positiveInt().default(1_000),
        'Usage counts reach the control store this often (and balances are re-read from it).',
      ),
      authCacheTtlMs: env(
        'AUTH_CACHE_TTL_MS',
        int().min(0).default(10_000),
        "A key's owner is cached this long; revocations take at most this long in other API processes (the revoking one forgets the key at once).",
      ),
      sessionMaxAgeSeconds: env(
        'SESSION_MAX_AGE_SECONDS',
        positiveInt().default(12 * 3600),
        "Lifetime of the web UI's session cookie: a working day, long enough not to nag, short enough that a forgotten browser does not hold the key for weeks.",
      ),
      authNegativeCacheTtlMs: env(
        'AUTH_NEGATIVE_CACHE_TTL_MS',
        int().min(0).default(60_000),
        'A well-formed key that matches no live key is remembered as unknown this long, so guessing keys costs no database lookup each.',
      ),
      authFailuresPerIpPerMinute: env(
        'AUTH_FAILURES_PER_IP_PER_MINUTE',
        positiveInt().default(30),
        'Failed authentications per client address in any minute (a sliding window, counted in 5-s steps) before they get 429: enough for a misconfigured client to notice, far too few to search for keys.',
      ),
      authFailuresPerPrefixPerMinute: env(
        'AUTH_FAILURES_PER_PREFIX_PER_MINUTE',
        positiveInt().optional(),
        'The same per network (/24 IPv4, /64 IPv6), so one host cannot multiply its allowance by walking its subnet; unset: 10 x AUTH_FAILURES_PER_IP_PER_MINUTE (a NAT or office shares one network).',
      ),
      registrationsPerIpPerHour: env(
        'REGISTRATIONS_PER_IP_PER_HOUR',
        positiveInt().default(10),
        'Self-registrations (POST /v1/agents/register and sign-ups) per client (an IPv4 address, an IPv6 /64) per hour; an IPv4 /24 counts as 5 clients.',
      ),
      registrationsPerHour: env(
        'REGISTRATIONS_PER_HOUR',
        positiveInt().default(500),
        'Self-registrations per hour for the whole service (counted in the control store, shared by every API process).',
      ),
      keysPerAccount: env(
        'KEYS_PER_ACCOUNT',
        positiveInt().default(10),
        'Live keys per account (the original, added ones and rotated ones still in their grace period).',
      ),
      heartbeatIntervalMs: env(
        'API_HEARTBEAT_INTERVAL_MS',
        positiveInt().default(5_000),
        'API processes announce themselves in the control store this often; per-key rates are split between the processes seen in the last three intervals.',
      ),
    },
    (access) => ({
      ...access,
      authFailuresPerPrefixPerMinute: access.authFailuresPerPrefixPerMinute ?? 10 * access.authFailuresPerIpPerMinute,
    }),
  ),
  analytics: {
    requestLimits: {
      maxExecutionMs: env(
        'QUERY_MAX_EXECUTION_MS',
        positiveInt().default(5_000),
        'Time limit of each analytics query made for a request (past it the engine stops it: 503).',
      ),
      maxRowsToRead: env(
        'QUERY_MAX_ROWS_TO_READ',
        positiveInt().default(50_000_000),
        "Rows a request's query may read (past it: 400, the request asks for too much).",
      ),
      maxMemoryBytes: env('QUERY_MAX_MEMORY_BYTES', positiveInt().default(1024 ** 3), "Memory limit of a request's query."),
      maxResultRows: env('QUERY_MAX_RESULT_ROWS', positiveInt().default(100_000), "Rows a request's query may return."),
    },
    queue: {
      maxQueuedPerLane: env(
        'QUERY_QUEUE_PER_KEY',
        positiveInt().default(16),
        "Queries waiting for the engine per key (more: 429). A browser page has up to 6 requests in flight and some read per outcome token at once; at 4 the web UI's own market page was refused while the pipeline held the engine.",
      ),
      maxQueued: env('QUERY_QUEUE_MAX', positiveInt().default(256), 'Queries waiting for the engine in all (more: 503).'),
      maxWaitMs: env(
        'QUERY_QUEUE_WAIT_MS',
        positiveInt().default(12_000),
        'Longest wait for the engine (then 429 for a key with other queries of its own waiting or running meanwhile, else 503): over twice QUERY_MAX_EXECUTION_MS, since the lane served next may find a statement of that length running; shorter waits turned into 503s for well-behaved keys while another key flooded the engine.',
      ),
    },
    serverConcurrency: env(
      'CLICKHOUSE_CONCURRENCY',
      positiveInt().default(16),
      'Statements at once against a ClickHouse server (chDB runs one at a time).',
    ),
  },
  sink: {
    poisonAfterFailures: env(
      'SINK_POISON_AFTER_FAILURES',
      positiveInt().default(5),
      'A batch the analytics store keeps refusing for its data (not an outage) is split after this many failures; the refused records are dead-lettered, the rest inserted.',
    ),
  },
  traderValuationIntervalMs: env(
    'TRADER_VALUATION_INTERVAL_MS',
    positiveInt().default(5_000),
    "Leaderboards and the trader directory are recomputed this often (per-wallet endpoints read the ledger's views).",
  ),
  marketMarksIntervalMs: env(
    'MARKET_MARKS_INTERVAL_MS',
    positiveInt().default(1_000),
    'The marks per-wallet endpoints value positions with (market_marks) are rebuilt this often for the markets written since.',
  ),
  walletSnapshotsIntervalMs: env(
    'WALLET_SNAPSHOTS_INTERVAL_MS',
    positiveInt().default(5_000),
    "Each wallet's rows the per-wallet endpoints read (wallet_snapshots) are rebuilt this often for the wallets the ledger wrote since: as often as the boards, so a run's fixed cost is paid once per 5 s.",
  ),
  leaderboardBuildIntervalMs: env(
    'LEADERBOARD_BUILD_INTERVAL_MS',
    positiveInt().default(5_000),
    'The boards without a category are rebuilt as pages this often when anything they show changed.',
  ),
  leaderboardPageDepth: env(
    'LEADERBOARD_PAGE_DEPTH',
    positiveInt().max(10_000_000).default(1_000),
    'Ranks of each such board a build writes; pages past them are ranked when requested.',
  ),
  reconciliationIntervalMs: env(
    'RECONCILIATION_INTERVAL_MS',
    positiveInt().default(60_000),
    'Data API trades are reconciled with chain fills (per hour) this often.',
  ),
  positionReconciliationIntervalMs: env(
    'POSITION_RECONCILIATION_INTERVAL_MS',
    positiveInt().default(300_000),
    "Tracked wallets' Data API positions are compared with the ledger's this often.",
  ),
  validateResponses: env(
    'VALIDATE_RESPONSES',
    flag(false),
    'Validates every API response against api/openapi.yaml (tests and staging; costs CPU).',
  ),
  readCacheTtlMs: env(
    'READ_CACHE_TTL_MS',
    int().min(0).default(1_000),
    'Public read responses (market data, trades, leaderboards) are shared this long; 0 = off. One second keeps every endpoint inside its freshness target.',
  ),
  readCacheMaxEntries: env(
    'READ_CACHE_MAX_ENTRIES',
    positiveInt().default(5_000),
    'Entries of the read cache (least recently used go first).',
  ),
  readCacheMaxBytes: env('READ_CACHE_MAX_BYTES', positiveInt().default(64 * 1024 ** 2), 'Bytes of response bodies the read cache holds.'),
  exports: {
    concurrentJobs: env(
      'EXPORT_CONCURRENT_JOBS',
      positiveInt().default(2),
      'Exports one account may have queued or running (409 past it): each one is engine work taken from every other caller.',
    ),
    maxRows: env(
      'EXPORT_MAX_ROWS',
      positiveInt().default(50_000_000),
      'Rows one export may hold, counted when it is accepted (400 past it): bounds the work and the disk one request can cause.',
    ),
    maxBytes: env(
      'EXPORT_MAX_BYTES',
      positiveInt().default(10 * 1024 ** 3),
      'Bytes one export may write; the job fails once its files pass it (at most one day partition over).',
    ),
    bytesPerCall: env(
      'EXPORT_BYTES_PER_CALL',
      positiveInt().default(10 * 1024 ** 2),
      "Exports are metered by bytes: when a job finishes, each started this many bytes of its files is charged as one call (the account's quota, then credits, as any call). A job the account cannot pay for fails (payment_required) and its files are deleted. 10 MiB of Parquet is hundreds of thousands of trades, which paged JSON serves 500 a call.",
    ),
    retentionHours: env(
      'EXPORT_RETENTION_HOURS',
      positiveInt().default(72),
      "Hours a finished export's files are kept; then they are deleted and the job shows `expired`, so the disk exports use stays bounded.",
    ),
    maxDays: env('EXPORT_MAX_DAYS', positiveInt().default(366), 'Longest from..to of one export: a year of day partitions.'),
    linkTtlSeconds: env(
      'EXPORT_LINK_TTL_SECONDS',
      positiveInt().default(3_600),
      'How long a download link stays valid after GET /v1/exports/{id} served it (the link needs no key, so it should not live long).',
    ),
    downloadsPerAddress: env(
      'EXPORT_DOWNLOADS_PER_ADDRESS',
      positiveInt().default(4),
      'Downloads one client address may have in progress at once (429 past it): a link needs no key, so its holder is bounded by address, and a bad link counts as a failed authentication (AUTH_FAILURES_PER_IP_PER_MINUTE).',
    ),
    downloadsMax: env(
      'EXPORT_DOWNLOADS_MAX',
      positiveInt().default(32),
      'Downloads one API process may have in progress at once, from every address together (429 past it): many addresses each under EXPORT_DOWNLOADS_PER_ADDRESS would otherwise hold any number of file handles and sockets.',
    ),
    s3: {
      endpoint: env(
        'EXPORT_S3_ENDPOINT',
        baseUrl('https://s3.amazonaws.com'),
        'The S3-compatible service `npm run export -- --out s3://bucket/prefix` writes to, addressed path-style (<endpoint>/<bucket>/<key>): AWS (https://s3.<region>.amazonaws.com), MinIO, R2, GCS interoperability.',
      ),
      accessKeyId: env(
        'EXPORT_S3_ACCESS_KEY_ID',
        z.preprocess(blankIsUnset, z.string().optional()),
        'Access key of the S3 bucket `npm run export` writes to; unset: unsigned requests (a bucket that allows anonymous writes).',
      ),
      secretAccessKey: env(
        'EXPORT_S3_SECRET_ACCESS_KEY',
        z.preprocess(blankIsUnset, z.string().optional()),
        'Secret of EXPORT_S3_ACCESS_KEY_ID.',
      ),
    },
  },
  webhooks: {
    enabled: env(
      'WEBHOOKS_ENABLED',
      flag(true),
      'Webhooks on: the subscription API, the signals that feed it and the dispatcher (off also turns the copy engine off).',
    ),
    allowedHosts: env(
      'WEBHOOK_ALLOWED_HOSTS',
      z.string().default('').transform(commaList),
      'Hosts or IPs exempt from the SSRF guard, comma-separated: empty in production; npm run demo sets 127.0.0.1,localhost,::1 for receivers on this machine.',
    ),
    retryScheduleMs: env(
      'WEBHOOK_RETRY_SCHEDULE_MS',
      z
        .string()
        .default('0,5000,300000,1800000,7200000,18000000,36000000,36000000')
        .transform((v) => v.split(',').map((part) => Number(part.trim())))
        .refine(
          (list) => list.length > 0 && list.every((n) => Number.isInteger(n) && n >= 0),
          'a comma-separated list of non-negative integers',
        ),
      "Delay before each attempt after the previous failure (Svix's reference schedule: now, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, about 28 hours in all). Tests shrink it to milliseconds.",
    ),
    retryJitter: env(
      'WEBHOOK_RETRY_JITTER',
      z.coerce.number().min(0).max(1).default(0.2),
      'Retry delays vary by this fraction, spreading deliveries that failed together (a receiver outage).',
    ),
    timeoutMs: env(
      'WEBHOOK_TIMEOUT_MS',
      positiveInt().default(15_000),
      'Delivery timeout: long enough for a slow receiver, short enough that a hung one does not hold a slot.',
    ),
    throttleMinDelayMs: env(
      'WEBHOOK_THROTTLE_MIN_DELAY_MS',
      int().min(0).default(60_000),
      'After a 429 or a timeout the receiver is struggling: the next attempt waits at least this long.',
    ),
    retryAfterMaxMs: env(
      'WEBHOOK_RETRY_AFTER_MAX_MS',
      int()
        .min(0)
        .default(6 * 3_600_000),
      "A receiver's Retry-After is capped at this, so one header cannot park a delivery for days.",
    ),
    disableAfterMs: env(
      'WEBHOOK_DISABLE_AFTER_MS',
      positiveInt().default(5 * 86_400_000),
      'A subscription without a single success this long is disabled (any success resets the clock).',
    ),
    secretGraceMs: env(
      'WEBHOOK_SECRET_GRACE_MS',
      int().min(0).default(86_400_000),
      'After a rotation the old secret keeps signing alongside the new one this long.',
    ),
    pollIntervalMs: env(
      'WEBHOOK_POLL_INTERVAL_MS',
      positiveInt().default(1_000),
      'Idle poll of the outbox; enqueues in this process wake the dispatcher at once anyway.',
    ),
    concurrency: env('WEBHOOK_CONCURRENCY', positiveInt().default(16), 'Deliveries in flight at once per dispatcher.'),
    accountConcurrency: env(
      'WEBHOOK_ACCOUNT_CONCURRENCY',
      positiveInt().default(4),
      "Deliveries in flight per account across dispatchers, so one account's slow receivers hold at most that many slots; accounts take turns for the rest.",
    ),
    hostConcurrency: env(
      'WEBHOOK_HOST_CONCURRENCY',
      positiveInt().default(8),
      'Deliveries in flight per receiver host (host:port): one slow host holds at most this many slots; a healthy one answering in 100 ms still gets 80 deliveries/s.',
    ),
    subscriptionsPerAccount: env(
      'WEBHOOK_SUBSCRIPTIONS_PER_ACCOUNT',
      positiveInt().default(10),
      'Subscriptions per account: each one multiplies every matching event into deliveries.',
    ),
    pendingPerSubscription: env(
      'WEBHOOK_PENDING_PER_SUBSCRIPTION',
      positiveInt().default(10_000),
      'Undelivered deliveries one subscription may hold; events past it are counted as dropped on the subscription instead of growing the outbox.',
    ),
    largeTradeMinUsdc: env(
      'WEBHOOK_LARGE_TRADE_MIN_USDC',
      z.coerce.number().positive().default(1_000),
      "Lowest trader.large_trade threshold a subscription may set: each large trade costs a query of the trader's last 24 hours.",
    ),
    retentionMs: env(
      'WEBHOOK_RETENTION_DAYS',
      z.coerce
        .number()
        .positive()
        .default(30)
        .transform((days) => Math.round(days * 86_400_000)),
      'Days finished deliveries (and their attempt logs) are kept for the subscriber to read.',
    ),
  },
  signals: {
    largeTradeUsdc: env(
      'SIGNALS_LARGE_TRADE_USDC',
      z.coerce.number().positive().default(10_000),
      'Default trader.large_trade threshold (a subscription filter can set its own).',
    ),
    priceChangePct: env(
      'SIGNALS_PRICE_CHANGE_PCT',
      z.coerce.number().positive().default(5),
      'market.price_signal: a YES price move of more than this percentage within SIGNALS_PRICE_WINDOW_MS.',
    ),
    priceWindowMs: env('SIGNALS_PRICE_WINDOW_MS', positiveInt().default(15 * 60_000), 'Window of market.price_signal.'),
    volume: {
      windowMs: env(
        'SIGNALS_VOLUME_WINDOW_MS',
        positiveInt().default(3_600_000),
        "market.volume_spike: the window whose taker volume is compared with the baseline's hourly average.",
      ),
      baselineMs: env(
        'SIGNALS_VOLUME_BASELINE_MS',
        positiveInt().default(86_400_000),
        'market.volume_spike: the baseline before the window.',
      ),
      spikeRatio: env(
        'SIGNALS_VOLUME_SPIKE_RATIO',
        z.coerce.number().positive().default(3),
        "market.volume_spike: the window's volume at least this multiple of the baseline's average.",
      ),
      minUsdc: env(
        'SIGNALS_VOLUME_MIN_USDC',
        z.coerce.number().min(0).default(10_000),
        'market.volume_spike: and at least this much USDC (small markets double their volume on one trade).',
      ),
    },
  },
  streams: {
    heartbeatMs: env(
      'STREAM_HEARTBEAT_MS',
      positiveInt().default(15_000),
      'Every live stream gets a heartbeat (with its cursor) this often when nothing else was sent, so a client can tell a quiet market from a dead connection and proxies keep it open.',
    ),
    idleTimeoutMs: env(
      'STREAM_IDLE_TIMEOUT_MS',
      positiveInt().default(45_000),
      'A WebSocket that answers no ping, or holds no subscription, this long is closed (three missed heartbeats); clients should reconnect after the same silence.',
    ),
    authTimeoutMs: env(
      'STREAM_AUTH_TIMEOUT_MS',
      positiveInt().default(10_000),
      'A WebSocket without a bearer header must send its auth message within this long, or it is closed (an unauthenticated socket costs a file descriptor and nothing else).',
    ),
    connectionsPerKey: env(
      'STREAM_CONNECTIONS_PER_KEY',
      positiveInt().default(10),
      'Open stream connections (SSE and WebSocket together) per API key and API process: each reads the log at its own pace, so one key cannot take the readers of everyone else.',
    ),
    subscriptionsPerKey: env(
      'STREAM_SUBSCRIPTIONS_PER_KEY',
      positiveInt().default(50),
      'Channel subscriptions per API key and API process, over all its connections (an SSE connection is one).',
    ),
    bufferBytes: env(
      'STREAM_BUFFER_BYTES',
      positiveInt().default(1_048_576),
      'Bytes a connection may have waiting to be sent: past it the connection reads no more from the log; a client that leaves it full for STREAM_SLOW_CONSUMER_MS is told slow_consumer and dropped. Bounds memory per connection.',
    ),
    slowConsumerMs: env(
      'STREAM_SLOW_CONSUMER_MS',
      positiveInt().default(10_000),
      'How long a full send buffer is tolerated before the client is told slow_consumer (with its cursor) and disconnected: long enough for a network hiccup, short enough that a stalled client does not hold its buffer.',
    ),
    pollMs: env(
      'STREAM_POLL_MS',
      positiveInt().default(100),
      "How often an API process looks at the log's end offsets for new records (one look serves every connection in the process); appends made in the same process to the file log wake the streams at once.",
    ),
    replayConcurrency: env(
      'STREAM_REPLAY_CONCURRENCY',
      positiveInt().default(4),
      "Runs of history (subscriptions more than STREAM_READ_BATCH records behind the log end) an API process reads at once; the others wait, taken key by key in turn (the key with the fewest runs going first), so one key's many replays cannot hold back another key's. Subscriptions at the end read without waiting, so replays from old cursors cannot delay live messages.",
    ),
    accountEventRetentionMs: env(
      'STREAM_ACCOUNT_EVENT_RETENTION_MS',
      positiveInt().default(7 * 86_400_000),
      "How long the control store keeps an account's copy and strategy events for the `copy` and `strategy` stream channels: a cursor older than this is cursor_expired (resync from /v1/copy/intents). The copy engine deletes older events hourly.",
    ),
    readBatch: env(
      'STREAM_READ_BATCH',
      positiveInt().default(500),
      'Records a subscription reads from the log at a time (replay goes in runs of this size, each sent before the next is read).',
    ),
  },
  copy: {
    enabled: env('COPY_ENABLED', flag(true), 'Runs the copy engine (leader fills -> trade intents -> copy.executed / risk.blocked).'),
    maxFillAgeMs: env(
      'COPY_MAX_FILL_AGE_MS',
      positiveInt().default(120_000),
      'A leader fill older than this when it reaches the engine is blocked as stale_fill: fills arrive within seconds, so two minutes means an outage or a backfill, and copying then would chase an old price.',
    ),
    subscriptionsPerAccount: env(
      'COPY_SUBSCRIPTIONS_PER_ACCOUNT',
      positiveInt().default(25),
      "Copy subscriptions per account (409 past it): every leader fill is decided once per subscription in the one control store, so one account's count is work taken from every other.",
    ),
    strategiesPerAccount: env(
      'STRATEGIES_PER_ACCOUNT',
      positiveInt().default(25),
      'Saved strategies per account (409 past it): every trade batch is evaluated once per strategy.',
    ),
    fanoutChunk: env(
      'COPY_FANOUT_CHUNK',
      positiveInt().default(25),
      "Subscriptions the copy engine decides per control-store transaction, so other accounts' queries get the store between chunks.",
    ),
    picks: {
      intervalMs: env(
        'COPY_PICKS_INTERVAL_MS',
        positiveInt().default(600_000),
        "Copy picks are recomputed this often (each run replays candidate leaders' fills against book history).",
      ),
      orderUsdc: env(
        'COPY_PICKS_ORDER_USDC',
        decimalText.default('100'),
        'USDC per leader buy of the follower a copier-ROI estimate imagines.',
      ),
      delaySeconds: env(
        'COPY_PICKS_DELAY_SECONDS',
        int().min(0).max(86_400).default(15),
        "Seconds after the leader that follower enters: the chain source's confirmation lag plus an executor's reaction.",
      ),
      minResolved: env(
        'COPY_PICKS_MIN_RESOLVED',
        positiveInt().max(10_000).default(10),
        "GET /copy-picks' and the briefing's default min_resolved: fewest resolved markets in the topic a listed leader needs (a request's min_resolved overrides it).",
      ),
      candidates: env(
        'COPY_PICKS_CANDIDATES',
        positiveInt().max(2_000).default(100),
        'Candidate leaders per topic a copy-picks run evaluates (by realized PnL in the topic).',
      ),
    },
  },
  sandbox: {
    enabled: env('SANDBOX_ENABLED', flag(true), 'Runs the sandbox processor part (resting fills, settlement, briefing signals).'),
    startingBalanceUsdc: env(
      'PAPER_STARTING_BALANCE_USDC',
      decimalText.default('10000'),
      'Paper cash of a new (or reset) agent: enough to trade a few markets at size without making sizing trivial.',
    ),
    maxOpenOrders: env(
      'PAPER_MAX_OPEN_ORDERS',
      positiveInt().max(10_000).default(100),
      'Resting paper orders per agent: bounds what every book snapshot and trade has to check.',
    ),
    feeFallback: {
      rate: env(
        'PAPER_FEE_FALLBACK_RATE',
        decimalText.default('0.25'),
        'Taker fee rate for markets with fees on but no feeSchedule indexed: the steepest published schedule (crypto_fees) rather than none, and the order says so.',
      ),
      exponent: env('PAPER_FEE_FALLBACK_EXPONENT', int().min(0).max(8).default(2), 'Exponent of that fallback schedule.'),
    },
    maxBookAgeMs: env(
      'PAPER_MAX_BOOK_AGE_MS',
      positiveInt().default(3_600_000),
      'A paper order is refused when the newest indexed book of its token is older than this; a book is republished only when it changes, so an hour leaves quiet markets tradable.',
    ),
    pollSeconds: {
      normal: env('BRIEFING_POLL_SECONDS', positiveInt().default(60), 'Suggested briefing cadence (docs/SANDBOX.md).'),
      fast: env(
        'BRIEFING_POLL_FAST_SECONDS',
        positiveInt().default(15),
        'Suggested cadence while orders rest or a held market is about to end.',
      ),
      idle: env('BRIEFING_POLL_IDLE_SECONDS', positiveInt().default(300), 'Suggested cadence when idle.'),
    },
    resolvingSoonHours: env(
      'BRIEFING_RESOLVING_SOON_HOURS',
      z.coerce.number().positive().default(24),
      'A held market whose end date is this close raises a resolving_soon alert.',
    ),
    drawdownAlertPct: env(
      'BRIEFING_DRAWDOWN_ALERT_PCT',
      z.coerce.number().positive().max(100).default(10),
      'Equity this far below its peak (percent) raises a drawdown alert.',
    ),
    signalRetentionDays: env(
      'BRIEFING_SIGNAL_RETENTION_DAYS',
      z.coerce.number().positive().default(7),
      'Briefing signals are kept this long; an agent away longer starts from the oldest kept.',
    ),
  },
  fees: {
    ratesBps: env(
      'FEE_RATES_BPS',
      z.string().default('credits=50,usdc=50,native=50,platform_token=25').pipe(feeRates),
      'Fee on copy trades per currency, in basis points of the notional (the platform token pays half); every currency named once.',
    ),
    quoteTtlSeconds: env(
      'FEE_QUOTE_TTL_SECONDS',
      positiveInt().default(600),
      'Quotes carry prices and rates of the moment: this long to pay or settle.',
    ),
    treasury: env('FEE_TREASURY_ADDRESS', optionalAddress, 'Where on-chain fees are paid; unset: only credits are accepted.'),
    usdcContracts: env(
      'FEE_USDC_CONTRACTS',
      z.string().default('0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB,0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174').pipe(looseAddressList),
      'Stablecoins accepted for usdc fees (6 decimals), comma-separated: pUSD (collateral since v2) and USDC.e.',
    ),
    confirmations: env(
      'FEE_CONFIRMATIONS',
      int().min(1).max(10_000).default(12),
      "Blocks on top of a payment's block (itself included) before it counts; Polygon reorgs are shallow.",
    ),
    creditsPerUsdc: env(
      'FEE_CREDITS_PER_USDC',
      decimalText.default('100'),
      'Credits per USDC (1 credit = 0.01 USDC): a placeholder until credit pricing is set.',
    ),
    nativePriceUsdc: env(
      'FEE_NATIVE_PRICE_USDC',
      optionalDecimal,
      'USDC per whole native coin (POL); unset: native payments are not offered.',
    ),
  },
  platformToken: {
    contract: env('PLATFORM_TOKEN_CONTRACT', optionalAddress, 'The platform token contract (tiers read balances of it).'),
    decimals: env('PLATFORM_TOKEN_DECIMALS', int().min(0).max(36).default(18), "The platform token's decimals."),
    priceUsdc: env(
      'PLATFORM_TOKEN_PRICE_USDC',
      optionalDecimal,
      "The platform token's USDC price, for fees paid in it; unset: not offered.",
    ),
    balanceTtlMs: env(
      'TOKEN_BALANCE_TTL_MS',
      int().min(0).default(60_000),
      "A wallet's token balance is reused this long before the chain is asked again (tiers move within a minute).",
    ),
  },
} satisfies SettingTree;

export type Config = ValuesOf<typeof settings>;
export type ChainConfig = Config['chain'];

/** Every setting with the path of its value in `Config`, in declaration order (a shared one once, where it first appears). */
export function settingList(): { path: string[]; setting: Setting }[] {
  const seen = new Set<Setting>();
  const list: { path: string[]; setting: Setting }[] = [];
  const walk = (node: SettingTree, at: readonly string[]) => {
    for (const [field, child] of Object.entries(node)) {
      const here = [...at, field];
      if (child instanceof Setting) {
        if (!seen.has(child)) list.push({ path: here, setting: child });
        seen.add(child);
      } else walk(child instanceof Derived ? child.tree : child, here);
    }
  };
  walk(settings, []);
  return list;
}

const environmentSchema = z.object(Object.fromEntries(settingList().map(({ setting }) => [setting.env, setting.schema])));

export class ConfigError extends Error {}

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  const parsed = environmentSchema.safeParse(environment);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid configuration: ${problems}`);
  }
  return deepFreeze(valuesOf(settings, parsed.data as Record<string, unknown>)) as Config;
}

function valuesOf(node: SettingTree, parsed: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [field, child] of Object.entries(node)) {
    if (child instanceof Setting) values[field] = parsed[child.env];
    else if (child instanceof Derived) values[field] = child.combine(valuesOf(child.tree, parsed) as never);
    else values[field] = valuesOf(child, parsed);
  }
  return values;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
