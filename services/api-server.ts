/**
 * The HTTP API with its access layer (keys, tiers, metering, rate limits, read cache), over the
 * given stores. Used by the one-process stack and by the stand-alone `api` part.
 */
import http from 'node:http';
import { createApiHandler } from '../api/app.js';
import type { WebhooksApi } from '../api/routes/webhooks.js';
import { Meter } from './access/meter.js';
import { RefusalLog } from './access/refusals.js';
import { newAdminToken, writeAdminEndpoint } from './admin/admin-endpoint.js';
import { AdminOperations } from './admin/operations.js';
import type { Config } from './config.js';
import { Accounts } from './control/accounts.js';
import type { SourceStatus } from './ingest/source-health.js';
import type { Logger } from './logger.js';
import type { AnalyticsStore } from './ports/analytics-store.js';
import type { ControlStore } from './ports/control-store.js';
import type { EventLog } from './ports/event-log.js';
import { STREAMS } from './read-models/registry.js';
import { sinkLag } from './sink/sink-service.js';

export const SERVICE_VERSION = '0.5.0';

export interface ApiServerOptions {
  config: Config;
  store: AnalyticsStore;
  control: ControlStore;
  log: EventLog;
  logger: Logger;
  sources?: () => SourceStatus[];
  webhooks?: WebhooksApi;
  /** Write DATA_DIR/admin.json so `npm run admin` reaches this process (the one-process stack). */
  adminEndpoint?: boolean;
}

export interface ApiServer {
  url: string;
  stop(): Promise<void>;
}

export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const { config, store, control, log, logger } = options;
  const accounts = new Accounts(control);
  const meter = new Meter(control, { ...config.access, flushIntervalMs: config.access.meterFlushIntervalMs });
  meter.start();
  const refusals = new RefusalLog(control, {
    flushIntervalMs: config.access.meterFlushIntervalMs,
    onFlushError: (error) => logger.warn({ err: error }, 'refused-call log flush failed; kept for the next flush'),
  });
  refusals.start();
  const adminToken = options.adminEndpoint ? newAdminToken() : undefined;
  const { listener, webui } = createApiHandler({
    store,
    accounts,
    meter,
    access: config.access,
    authCacheTtlMs: config.access.authCacheTtlMs,
    admin: adminToken ? { operations: new AdminOperations(accounts, config.access.thresholds), token: adminToken } : undefined,
    logger: logger.child({ part: 'api' }),
    validateResponses: config.validateResponses,
    readCacheTtlMs: config.readCacheTtlMs,
    webhooks: options.webhooks,
    usageHistory: { control, refusals },
    sessionMaxAgeSeconds: config.access.sessionMaxAgeSeconds,
    health: {
      version: SERVICE_VERSION,
      sources: options.sources ?? (() => []),
      sinkLag: () => sinkLag(log, [STREAMS.markets.topic, STREAMS.trades.topic]),
    },
  });
  // Built while the server starts listening, so the first visit to /app does not wait for it.
  const webuiReady = webui.prepare().catch((error: unknown) => logger.error({ err: error }, 'web ui bundle failed to build'));
  const server = http.createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const url = `http://${config.host}:${typeof address === 'object' && address ? address.port : config.port}`;
  if (adminToken) writeAdminEndpoint(config.dataDir, url, adminToken);
  return {
    url,
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await webuiReady;
      await meter.stop();
      await refusals.stop();
    },
  };
}
