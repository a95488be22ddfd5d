/**
 * Composes the whole service in one process: event log, analytics store, control store, sink,
 * ingest and the HTTP API. Each engine comes from its port's adapter selection, so the same
 * composition runs on the embedded twins or on real servers.
 */
import http from 'node:http';
import { createApp } from '../api/app.js';
import { openAnalyticsStore } from './analytics/open-analytics.js';
import type { Config } from './config.js';
import { Accounts } from './control/accounts.js';
import { openControlStore } from './control/open-control.js';
import { openEventLog } from './eventlog/open-event-log.js';
import { startIngest, type IngestService } from './ingest/ingest-service.js';
import type { Logger } from './logger.js';
import { SINK_GROUP_ID, startSink } from './sink/sink-service.js';
import { assertNotSimulatorData } from './shared/data-dir-guard.js';
import { allTopicSpecs, TOPICS } from './shared/topics.js';

export const SERVICE_VERSION = '0.5.0';

export interface RunningStack {
  url: string;
  ingest: IngestService | null;
  stop(): Promise<void>;
}

export async function startStack(config: Config, logger: Logger): Promise<RunningStack> {
  assertNotSimulatorData(config.dataDir, config.upstream.gammaUrl);
  const log = await openEventLog(config, logger);
  await log.createTopics(allTopicSpecs());
  const store = await openAnalyticsStore(config);
  const control = await openControlStore(config);
  const sink = await startSink(log, store, logger.child({ part: 'sink' }));
  const ingest = config.ingest.enabled ? await startIngest(config, log, logger.child({ part: 'ingest' })) : null;

  const app = createApp({
    store,
    accounts: new Accounts(control),
    logger: logger.child({ part: 'api' }),
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
  logger.info({ url, dataDir: config.dataDir, upstream: config.upstream }, 'tapeline is serving');

  return {
    url,
    ingest,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await ingest?.stop();
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
