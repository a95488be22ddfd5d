/**
 * Composes the whole service in one process: event log, analytics store, control store, sink,
 * ingest and the HTTP API. Each engine comes from its port's adapter selection, so the same
 * composition runs on the embedded twins or on real servers.
 */
import http from 'node:http';
import path from 'node:path';
import { createApp } from '../api/app.js';
import { Meter } from './access/meter.js';
import { newAdminToken, writeAdminEndpoint } from './admin/admin-endpoint.js';
import { AdminOperations } from './admin/operations.js';
import { openAnalyticsStore } from './analytics/open-analytics.js';
import type { Config } from './config.js';
import { Accounts } from './control/accounts.js';
import { openControlStore } from './control/open-control.js';
import { openFileEventLog } from './eventlog/file-log.js';
import { startIngest, type IngestService } from './ingest/ingest-service.js';
import type { Logger } from './logger.js';
import type { EventLog } from './ports/event-log.js';
import { SINK_GROUP_ID, startSink } from './sink/sink-service.js';
import { runPeriodically } from './shared/periodic.js';
import { recomputeTraderStats } from './traders/stats-job.js';
import { assertNotSimulatorData } from './shared/data-dir-guard.js';
import { allTopicSpecs, TOPICS } from './shared/topics.js';
import { startWebhooks } from './webhooks/start-webhooks.js';
import { assertNoLiveBackfill } from './backfill/exclusive-access.js';

export const SERVICE_VERSION = '0.5.0';

export interface RunningStack {
  url: string;
  ingest: IngestService | null;
  stop(): Promise<void>;
}

async function openEventLog(config: Config): Promise<EventLog> {
  if (config.engines.kafkaBrokers) {
    // The kafkajs adapter arrives with the "Real engines" work; refusing beats ignoring the setting.
    throw new Error('KAFKA_BROKERS is set, but this build only has the embedded event log');
  }
  return openFileEventLog({ directory: path.join(config.dataDir, 'log') });
}

export async function startStack(config: Config, logger: Logger): Promise<RunningStack> {
  assertNotSimulatorData(config.dataDir, config.upstream.gammaUrl);
  assertNoLiveBackfill(config.dataDir);
  const log = await openEventLog(config);
  await log.createTopics(allTopicSpecs());
  const store = await openAnalyticsStore(config);
  const control = await openControlStore(config);
  const sink = await startSink(log, store, logger.child({ part: 'sink' }));
  const ingest = config.ingest.enabled ? await startIngest(config, log, logger.child({ part: 'ingest' })) : null;
  const statsLogger = logger.child({ part: 'trader-stats' });
  const traderStats = runPeriodically(
    async () => {
      const run = await recomputeTraderStats(store);
      statsLogger.debug(run, 'trader stats recomputed');
    },
    config.traderStatsIntervalMs,
    (error) => statsLogger.error({ err: error }, 'trader stats failed'),
  );
  const webhooks = config.webhooks.enabled ? await startWebhooks(config, log, control, store, logger) : null;

  const accounts = new Accounts(control);
  const meter = new Meter(control, {
    quotasPerDay: config.access.quotasPerDay,
    creditsPerCall: config.access.creditsPerCall,
    thresholds: config.access.thresholds,
    flushIntervalMs: config.access.meterFlushIntervalMs,
  });
  meter.start();
  // admin.json (URL + token) is written once the port is bound, for `npm run admin`.
  const adminToken = newAdminToken();
  const app = createApp({
    store,
    accounts,
    meter,
    access: { thresholds: config.access.thresholds, ratePerSecond: config.access.ratePerSecond, rateBurstFactor: config.access.rateBurstFactor },
    authCacheTtlMs: config.access.authCacheTtlMs,
    admin: { operations: new AdminOperations(accounts, config.access.thresholds), token: adminToken },
    logger: logger.child({ part: 'api' }),
    validateResponses: config.validateResponses,
    webhooks: webhooks?.api,
    health: {
      version: SERVICE_VERSION,
      sources: () => ingest?.health.snapshot() ?? [],
      sinkLag: async () => {
        const lag: Record<string, number> = {};
        for (const topic of [TOPICS.markets.name, TOPICS.trades.name]) {
          const positions = await log.positions(SINK_GROUP_ID, topic);
          lag[topic] = positions.reduce((sum, p) => sum + (p.endOffset - p.committedOffset), 0);
        }
        return lag;
      },
    },
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const url = typeof address === 'object' && address ? `http://${config.host}:${address.port}` : `http://${config.host}:${config.port}`;
  writeAdminEndpoint(config.dataDir, url, adminToken);
  logger.info({ url, dataDir: config.dataDir, upstream: config.upstream }, 'tapeline is serving');

  return {
    url,
    ingest,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await ingest?.stop();
      await traderStats.stop();
      await webhooks?.stop();
      await sink.stop();
      await meter.stop();
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
