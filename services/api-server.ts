/**
 * The HTTP API with its access layer (keys, tiers, metering, rate limits, read cache), over the
 * given stores. Used by the one-process stack and by the stand-alone `api` part.
 */
import http from 'node:http';
import { createApiHandler } from '../api/app.js';
import type { WebhooksApi } from '../api/routes/webhooks.js';
import { Meter } from './access/meter.js';
import { newAdminToken, writeAdminEndpoint } from './admin/admin-endpoint.js';
import { AdminOperations } from './admin/operations.js';
import type { Config } from './config.js';
import { Accounts } from './control/accounts.js';
import { chainSourceRefusal } from './chain/chain-source.js';
import type { ChainStatus } from './chain/follower.js';
import { composeSandboxApis } from './sandbox/compose.js';
import type { SourceStatus } from './ingest/source-health.js';
import type { Logger } from './logger.js';
import type { AnalyticsStore } from './ports/analytics-store.js';
import type { ControlStore } from './ports/control-store.js';
import type { EventLog } from './ports/event-log.js';
import { STREAMS } from './read-models/registry.js';
import { EventPublisher } from './events/publisher.js';
import { MarketLookup } from './ingest/market-lookup.js';
import { UpstreamClient } from './ingest/upstream-client.js';
import { sinkLag } from './sink/sink-service.js';

export const SERVICE_VERSION = '0.5.0';

export interface ApiServerOptions {
  config: Config;
  store: AnalyticsStore;
  control: ControlStore;
  log: EventLog;
  logger: Logger;
  sources?: () => SourceStatus[];
  /** The chain source's figures when it runs in this process. */
  chain?: () => ChainStatus | null;
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
  const sandbox = composeSandboxApis(config, control, store);
  const meter = new Meter(control, {
    ...config.access,
    flushIntervalMs: config.access.meterFlushIntervalMs,
    tokenBalances: sandbox.tokenBalances,
  });
  meter.start();
  const adminToken = options.adminEndpoint ? newAdminToken() : undefined;
  const { ingest, upstream } = config;
  // One attempt per upstream request and a generous request budget: the lookup's own token bucket
  // and deadline are what bound the work (services/ingest/market-lookup.ts).
  const marketLookup = new MarketLookup({
    gamma: new UpstreamClient({
      name: 'gamma',
      baseUrl: upstream.gammaUrl,
      budgetPer10s: 1_000,
      timeoutMs: ingest.lookupTimeoutMs,
      maxAttempts: 1,
    }),
    publisher: new EventPublisher(log),
    perSecond: ingest.lookupPerSecond,
    timeoutMs: ingest.lookupTimeoutMs,
    missTtlMs: ingest.lookupMissTtlMs,
  });
  const { listener } = createApiHandler({
    store,
    accounts,
    control,
    sandbox,
    meter,
    access: config.access,
    feeFallback: config.sandbox.feeFallback,
    authCacheTtlMs: config.access.authCacheTtlMs,
    admin: adminToken ? { operations: new AdminOperations(accounts, config.access.thresholds), token: adminToken } : undefined,
    logger: logger.child({ part: 'api' }),
    validateResponses: config.validateResponses,
    readCacheTtlMs: config.readCacheTtlMs,
    webhooks: options.webhooks,
    marketLookup,
    health: {
      version: SERVICE_VERSION,
      sources: options.sources ?? (() => []),
      sinkLag: () => sinkLag(log, [STREAMS.markets.topic, STREAMS.trades.topic, STREAMS.chainLedger.topic]),
      chainEnabled: chainSourceRefusal(config.chain, config.upstream.gammaUrl) === null,
      chain: options.chain ?? (() => null),
    },
  });
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
      await meter.stop();
      await sandbox.close();
    },
  };
}
