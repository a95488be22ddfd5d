/**
 * The ingest part of the pipeline: polls the upstream APIs and publishes normalized events to the
 * log. Markets first (every poll), then the global trade feed, and, once per market, a backfill of
 * the busiest markets' trade history so candles have depth from the start.
 */
import path from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { EventLog } from '../ports/event-log.js';
import { runPeriodically, type PeriodicTask } from '../shared/periodic.js';
import { allTopicSpecs } from '../shared/topics.js';
import { MarketPoller } from './market-poller.js';
import { EventPublisher } from './publisher.js';
import { SourceHealth } from './source-health.js';
import { TradePoller } from './trade-poller.js';
import { UpstreamClient } from './upstream-client.js';

export interface IngestService {
  readonly health: SourceHealth;
  /** Resolves after the first market and trade polls have been attempted (succeeded or not). */
  readonly firstPass: Promise<void>;
  stop(): Promise<void>;
}

export async function startIngest(config: Config, log: EventLog, logger: Logger): Promise<IngestService> {
  await log.createTopics(allTopicSpecs());
  const health = new SourceHealth();
  const publisher = new EventPublisher(log);
  const { ingest, upstream } = config;
  const gamma = new UpstreamClient({ name: 'gamma', baseUrl: upstream.gammaUrl, budgetPer10s: ingest.gammaBudgetPer10s, timeoutMs: ingest.timeoutMs });
  const data = new UpstreamClient({ name: 'data-api', baseUrl: upstream.dataUrl, budgetPer10s: ingest.dataBudgetPer10s, timeoutMs: ingest.timeoutMs });

  const markets = new MarketPoller({ gamma, publisher, health, logger, closedLookbackDays: ingest.closedLookbackDays });
  const trades = new TradePoller({
    data,
    publisher,
    health,
    logger,
    checkpointFile: path.join(config.dataDir, 'ingest', 'trades-checkpoint.json'),
    backfillMaxPerMarket: ingest.backfillMaxPerMarket,
  });

  const logFailure = (what: string) => (error: unknown) => logger.error({ err: error }, `${what} failed`);
  const tasks: PeriodicTask[] = [];
  let backfill: Promise<void> | null = null;
  let stopped = false;
  const backfillBusiestMarkets = async () => {
    const done = trades.backfilledMarkets;
    const busiest = [...markets.markets]
      .filter((m) => m.status === 'active' && !done.has(m.market_id))
      .sort((a, b) => b.volume_24h_usdc - a.volume_24h_usdc)
      .slice(0, Math.max(0, ingest.backfillMarkets - done.size));
    for (const market of busiest) {
      if (stopped) return;
      await trades.backfillMarket(market.market_id);
    }
  };

  const marketsTask = runPeriodically(
    async () => {
      const result = await markets.pollOnce();
      logger.info(result, 'markets polled');
      if (!backfill && ingest.backfillMaxPerMarket > 0) {
        backfill = backfillBusiestMarkets()
          .catch(logFailure('trade backfill'))
          .finally(() => (backfill = null));
      }
    },
    ingest.marketsPollIntervalMs,
    logFailure('markets poll'),
  );
  const tradesTask = runPeriodically(
    async () => {
      const result = await trades.pollOnce();
      if (result.published > 0 || result.deadLettered > 0) logger.info(result, 'trades polled');
    },
    ingest.tradesPollIntervalMs,
    logFailure('trades poll'),
  );
  tasks.push(marketsTask, tradesTask);

  return {
    health,
    firstPass: Promise.all([marketsTask.firstRun, tradesTask.firstRun]).then(() => undefined),
    async stop() {
      stopped = true;
      await Promise.all(tasks.map((task) => task.stop()));
      await backfill;
    },
  };
}
