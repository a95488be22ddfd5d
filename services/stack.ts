/**
 * Composes the whole service in one process: event log, analytics store, control store, sink,
 * ingest and the HTTP API. Each engine comes from its port's adapter selection, so the same
 * composition runs on the embedded twins or on real servers.
 */
import { openAnalyticsStore } from './analytics/open-analytics.js';
import type { Config } from './config.js';
import { openControlStore } from './control/open-control.js';
import { openEventLog } from './eventlog/open-event-log.js';
import { startIngest, type IngestService } from './ingest/ingest-service.js';
import type { Logger } from './logger.js';
import { startSink } from './sink/sink-service.js';
import { startTraderStats } from './traders/stats-job.js';
import { assertNotSimulatorData } from './shared/data-dir-guard.js';
import { allTopicSpecs } from './shared/topics.js';
import { startWebhooks } from './webhooks/start-webhooks.js';
import { startApiServer } from './api-server.js';
import { assertNoLiveBackfill } from './backfill/exclusive-access.js';

export { SERVICE_VERSION } from './api-server.js';

export interface RunningStack {
  url: string;
  ingest: IngestService | null;
  stop(): Promise<void>;
}

export async function startStack(config: Config, logger: Logger): Promise<RunningStack> {
  assertNotSimulatorData(config.dataDir, config.upstream.gammaUrl);
  assertNoLiveBackfill(config.dataDir);
  const log = await openEventLog(config, logger);
  await log.createTopics(allTopicSpecs());
  const store = await openAnalyticsStore(config);
  const control = await openControlStore(config);
  const sink = await startSink(log, store, logger.child({ part: 'sink' }));
  const ingest = config.ingest.enabled ? await startIngest(config, log, logger.child({ part: 'ingest' })) : null;
  const traderStats = startTraderStats(store, config.traderStatsIntervalMs, logger.child({ part: 'trader-stats' }));
  const webhooks = config.webhooks.enabled ? await startWebhooks(config, log, control, store, logger) : null;

  const api = await startApiServer({
    config,
    store,
    control,
    log,
    logger,
    sources: () => ingest?.health.snapshot() ?? [],
    webhooks: webhooks?.api,
    adminEndpoint: true,
  });
  const url = api.url;
  logger.info({ url, dataDir: config.dataDir, upstream: config.upstream }, 'tapeline is serving');

  return {
    url,
    ingest,
    async stop() {
      await api.stop();
      await ingest?.stop();
      await traderStats.stop();
      await webhooks?.stop();
      await sink.stop();
      await log.close();
      await store.close();
      await control.close();
    },
  };
}

/** Stops the stack on SIGINT/SIGTERM; a second signal exits at once. */
export function stopOnSignals(stop: () => Promise<void>, logger: Logger): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'stopping');
    stop().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
