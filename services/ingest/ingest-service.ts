/**
 * The ingest part of the pipeline: polls the upstream APIs and publishes normalized events to the
 * log. Open markets (and unsettled ones re-checked by id) every poll, the whole catalog once and then
 * incrementally, the global trade feed (with gap backfill), and, once per market, a backfill of the
 * busiest markets' trade history so candles have depth from the start. Each poller is a source of
 * its own in the health report, so one failing never hides or stalls another.
 */
import path from 'node:path';
import { ChainCatalog } from '../chain/catalog.js';
import { type ChainSource, startChainSource } from '../chain/chain-source.js';
import { historyFiles } from '../backfill/history-fill.js';
import { nextBackfillMarket } from './trade-backfill-order.js';
import type { ChainStatus } from '../chain/follower.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { EventLog } from '../ports/event-log.js';
import { isLoopback } from '../shared/loopback.js';
import { runPeriodically, type PeriodicTask } from '../shared/periodic.js';
import { allTopicSpecs, STREAMS } from '../read-models/registry.js';
import { logStartOffset, partitionReader, RepeatIndex } from '../eventlog/repeat-index.js';
import { partitionForKey } from '../eventlog/partitioner.js';
import type { TradeExecuted } from '../events/types.js';
import { MarketPoller } from './market-poller.js';
import { EventPublisher } from '../events/publisher.js';
import { SourceHealth } from './source-health.js';
import { TradePoller } from './trade-poller.js';
import { UpstreamReachability } from './upstream-reachability.js';
import { BookPoller } from './book-poller.js';
import { CatalogPoller } from './catalog-poller.js';
import { CatalogSync } from './catalog-sync.js';
import { UnresolvedMarkets } from './unresolved-markets.js';
import { MarketStream } from './market-stream.js';
import { failureLog, UPSTREAM_HINT } from './failure-log.js';
import { MarketHoldingsPoller } from './market-holdings-poller.js';
import { WalletPoller } from './wallet-poller.js';
import { openUpstream } from './upstreams.js';

export interface IngestService {
  readonly health: SourceHealth;
  /** Whether each upstream can be reached at all (logged by state change, read by /v1/health). */
  readonly reachability: UpstreamReachability;
  /** Resolves after the first market and trade polls have been attempted (succeeded or not). */
  readonly firstPass: Promise<void>;
  /** The CLOB market websocket client, once the first market poll told it what to follow (null when disabled). */
  readonly stream: () => MarketStream | null;
  /** The pollers, for tests and operators' tools. */
  readonly pollers: { markets: MarketPoller; trades: TradePoller; catalogSync: CatalogSync };
  /** The chain source's figures (null when it is off or not connected yet). */
  readonly chain: () => ChainStatus | null;
  stop(): Promise<void>;
}

export async function startIngest(config: Config, log: EventLog, logger: Logger): Promise<IngestService> {
  await log.createTopics(allTopicSpecs());
  const health = new SourceHealth();
  const publisher = new EventPublisher(log);
  const { ingest, upstream } = config;
  const reachability = new UpstreamReachability(logger);
  reachability.register('gamma', upstream.gammaUrl);
  reachability.register('clob', upstream.clobUrl);
  reachability.register('data', upstream.dataUrl);
  if (ingest.wsEnabled) reachability.register('ws', upstream.wsUrl);
  const gamma = openUpstream(config, 'gamma', { reachability });
  const data = openUpstream(config, 'data', { reachability });
  const clob = openUpstream(config, 'clob', { reachability });
  const checkpoints = path.join(config.dataDir, 'ingest');
  const unresolved = new UnresolvedMarkets(path.join(checkpoints, 'unresolved-markets.json'));
  const markets = new MarketPoller({ gamma, publisher, health, logger, unresolved, recheckPerPoll: ingest.recheckPerPoll });
  const catalog = new CatalogPoller({ gamma, publisher, health, logger });
  const catalogSync = new CatalogSync({
    gamma,
    publisher,
    health,
    logger,
    unresolved,
    checkpointFile: path.join(checkpoints, 'catalog-sync.json'),
    // The legacy AMM markets (2020-2022, closed: no market poll lists them) name the FPMM contracts the
    // chain source reads; only they are kept, a few thousand, not the whole catalog.
    onMarkets: (synced) => tokenCatalog.add(synced.filter((m) => m.market_maker_address !== null)),
  });
  // Token id -> market for the chain source, fed by every market poll.
  const tokenCatalog = new ChainCatalog();
  const tradableTokens = () =>
    markets.markets.filter((m) => m.status === 'active' && m.accepting_orders !== false).flatMap((m) => m.outcome_token_ids);
  const books = new BookPoller({ clob, publisher, health, logger, tokens: tradableTokens });
  const wallets = new WalletPoller({
    data,
    publisher,
    health,
    logger,
    checkpointFile: path.join(checkpoints, 'wallets-checkpoint.json'),
    configuredWallets: ingest.trackedWallets,
    topWallets: ingest.trackedWalletsTop,
  });
  const holdings = new MarketHoldingsPoller({ data, publisher, health, markets: ingest.holdersMarkets, catalog: () => markets.markets });
  let stream: MarketStream | null = null;
  const tradeIds = new RepeatIndex(partitionReader(log), logStartOffset(log), new Set([STREAMS.trades.topic]));
  const trades = new TradePoller({
    onPublished: (published) => wallets.noteTrades(published),
    data,
    publisher,
    health,
    logger,
    checkpointFile: path.join(config.dataDir, 'ingest', 'trades-checkpoint.json'),
    backfillMaxPerMarket: ingest.backfillMaxPerMarket,
    markets: () => markets.markets,
    gapMarketsPerPoll: ingest.gapMarketsPerPoll,
    held: (batch) =>
      tradeIds.held(
        STREAMS.trades.topic,
        batch.map((trade) => ({ partition: tradePartition(trade), id: trade.event_id })),
      ),
  });

  // Failures are logged by state change (failure-log.ts): an offline start prints one line per task.
  const failures = failureLog(logger);
  const logFailure = (what: string) => (error: unknown) => failures.failed(what, error, UPSTREAM_HINT);
  const periodic = (what: string, task: () => Promise<void>, intervalMs: number) =>
    runPeriodically(
      async () => {
        await task();
        failures.succeeded(what);
      },
      intervalMs,
      logFailure(what),
    );
  const tasks: PeriodicTask[] = [];
  let backfill: Promise<void> | null = null;
  let stopped = false;
  const backfillBusiestMarkets = async () => {
    for (;;) {
      const next = stopped ? undefined : nextBackfillMarket(markets.markets, trades.backfilledMarkets, ingest.backfillMarkets);
      if (!next) return;
      await trades.backfillMarket(next.market_id);
    }
  };

  const marketsTask = periodic(
    'markets poll',
    async () => {
      const result = await markets.pollOnce();
      tokenCatalog.add(markets.markets);
      logger.info(result, 'markets polled');
      if (!backfill && ingest.backfillMaxPerMarket > 0) {
        backfill = backfillBusiestMarkets()
          .catch(logFailure('trade backfill'))
          .finally(() => (backfill = null));
      }
    },
    ingest.marketsPollIntervalMs,
  );
  const tradesTask = periodic(
    'trades poll',
    async () => {
      const result = await trades.pollOnce();
      if (result.published > 0 || result.deadLettered > 0 || result.backfilled > 0) logger.info(result, 'trades polled');
    },
    ingest.tradesPollIntervalMs,
  );
  tasks.push(marketsTask, tradesTask);

  const catalogTask = periodic(
    'catalog poll',
    async () => {
      const result = await catalog.pollOnce();
      if (result.published > 0 || result.deadLettered > 0) logger.info(result, 'catalog polled');
    },
    ingest.marketsPollIntervalMs,
  );
  // The whole catalog once (resumable), then what changed; a run is one long task, never overlapping.
  const catalogSyncTask = periodic(
    'catalog sync',
    async () => {
      const result = await catalogSync.runOnce();
      if (result.published > 0 || result.deadLettered > 0) logger.info(result, 'catalog synced');
    },
    ingest.catalogSyncIntervalMs,
  );
  // The chain source starts after the first market poll, so the catalog knows the listed markets.
  let chain: ChainSource | null = null;
  const chainStarted = marketsTask.firstRun.then(() => {
    if (stopped) return;
    chain = startChainSource({
      chain: config.chain,
      gammaUrl: upstream.gammaUrl,
      checkpointFile: path.join(checkpoints, 'chain-checkpoint.json'),
      historyFiles: historyFiles(config.dataDir),
      publisher,
      health,
      logger: logger.child({ source: 'chain' }),
      catalog: tokenCatalog,
      gamma,
      reachability,
    });
  });
  // Books and the websocket need the market list: they start once the first market poll is done.
  const clobTasks = marketsTask.firstRun.then(() => {
    if (stopped) return [];
    // Never mix upstreams: a local (simulator) REST base with the real websocket would ingest real
    // prices into simulated markets (and send traffic off the machine from tests).
    const localRest = isLoopback(upstream.clobUrl);
    if (ingest.wsEnabled && localRest !== isLoopback(upstream.wsUrl)) {
      logger.error(
        { clob: upstream.clobUrl, ws: upstream.wsUrl },
        'POLYMARKET_WS_URL and POLYMARKET_CLOB_URL point at different upstreams; websocket disabled',
      );
    } else if (ingest.wsEnabled) {
      const source = markets.markets[0]?.source ?? 'polymarket';
      stream = new MarketStream({
        url: upstream.wsUrl,
        publisher,
        health,
        logger,
        reachability,
        source,
        shardSize: ingest.wsShardSize,
        idleTimeoutMs: ingest.wsIdleTimeoutMs,
        stableAfterMs: ingest.wsStableAfterMs,
        publishAttempts: ingest.wsPublishAttempts,
        resync: async (assetIds) => (await books.fetchAndPublish(assetIds)).books,
        onBookPublished: (assetId, hash) => books.notePublished(assetId, hash),
        // A market listed upstream: follow its tokens at once and fetch its metadata now, not at the next poll.
        onNewMarket: (assetIds) => {
          stream?.follow(assetIds);
          void marketsTask.runNow();
        },
      });
      stream.follow(tradableTokens());
    }
    return [
      periodic(
        'books poll',
        async () => {
          // Markets listed since the last poll are followed on the websocket too, first: the websocket is
          // an upstream of its own, and a CLOB whose REST does not answer must not keep it from them.
          stream?.follow(tradableTokens());
          await books.pollOnce();
        },
        ingest.clobPollIntervalMs,
      ),
      periodic(
        'wallets poll',
        async () => {
          const result = await wallets.pollOnce();
          if (result.published > 0 || result.deadLettered > 0) logger.info(result, 'tracked wallets polled');
        },
        ingest.walletsPollIntervalMs,
      ),
      periodic(
        'holders and open interest poll',
        async () => {
          const result = await holdings.pollOnce();
          if (result.published > 0 || result.deadLettered > 0) logger.info(result, 'holders and open interest polled');
        },
        ingest.walletsPollIntervalMs,
      ),
    ];
  });

  return {
    health,
    reachability,
    firstPass: Promise.all([marketsTask.firstRun, tradesTask.firstRun]).then(() => undefined),
    stream: () => stream,
    pollers: { markets, trades, catalogSync },
    chain: () => (chain as ChainSource | null)?.status() ?? null,
    async stop() {
      stopped = true;
      catalogSync.stop();
      await chainStarted;
      await (chain as ChainSource | null)?.stop();
      const later = await clobTasks;
      await Promise.all([...tasks, catalogTask, catalogSyncTask, ...later].map((task) => task.stop()));
      await (stream as MarketStream | null)?.stop();
      await backfill;
    },
  };
}

/** The trades topic's partition a trade is published to (the stream's key, as the log partitions it). */
function tradePartition(trade: TradeExecuted): number {
  return partitionForKey(STREAMS.trades.key(trade), STREAMS.trades.partitions);
}
