/**
 * The HTTP API with its access layer (keys, tiers, metering, rate limits, read cache) over the given
 * stores, plus the operator listener (/admin, /metrics) on its own loopback port. `composeApi` wires
 * the pieces once for the service, the benchmarks and the test harness alike; `startApiServer` also
 * listens. Used by the one-process stack and by the stand-alone `api` part.
 */
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdminApp } from '../api/admin.js';
import { type ApiHandler, createApiHandler } from '../api/app.js';
import {
  type MetricsSource,
  cached,
  chainMetrics,
  ingestionMetrics,
  positionReconciliationMetrics,
  reconciliationMetrics,
} from '../api/metrics.js';
import type { HealthInputs } from '../api/routes/health.js';
import type { WebhooksApi } from './webhooks/subscriptions.js';
import { type Family, single } from './shared/metric-family.js';
import { ApiInstances } from './access/api-instances.js';
import { Meter } from './access/meter.js';
import { RefusalLog } from './access/refusals.js';
import { RegistrationLimits } from './access/registration-limits.js';
import { newAdminToken, writeAdminEndpoint } from './admin/admin-endpoint.js';
import { AdminOperations } from './admin/operations.js';
import { chainBackfillFiles, readChainBackfillState } from './backfill/chain-backfill.js';
import { historyFiles, readHistoryProgress } from './backfill/history-fill.js';
import type { Config } from './config.js';
import { Accounts } from './control/accounts.js';
import { KeyLifecycle } from './control/key-lifecycle.js';
import { chainSourceRefusal } from './chain/chain-source.js';
import type { ChainStatus } from './chain/follower.js';
import { composeSandboxApis, type SandboxApis } from './sandbox/compose.js';
import type { SourceStatus } from './ingest/source-health.js';
import type { UpstreamStatus } from './ingest/upstream-reachability.js';
import type { Logger } from './logger.js';
import type { AnalyticsStore } from './ports/analytics-store.js';
import type { ControlStore } from './ports/control-store.js';
import type { EventLog } from './ports/event-log.js';
import { processorMetricsText } from './processors/processor-metrics.js';
import { engineMemoryMetrics, processMemoryMetrics, readEngineMemory } from './analytics/engine-memory.js';
import type { FairQueueStats } from './analytics/fair-queue.js';
import { reconciliationHours } from './read-models/chain-ledger/queries.js';
import { reconciliationSummary } from './read-models/positions/upstream-reconciliation.js';
import { STREAMS } from './read-models/registry.js';
import { EventPublisher } from './events/publisher.js';
import { MarketLookup } from './ingest/market-lookup.js';
import { LEDGER_GROUP_ID, STATEFUL_PROJECTIONS, sinkLag, sinkTopics } from './sink/sink-service.js';
import { readVerificationRun } from './shared/verification.js';
import { AccountEventFeed } from './copy/account-events.js';
import { StreamService } from './streams/stream-service.js';
import { ExportJobs } from './exports/jobs.js';
import { ExportRunner } from './exports/runner.js';
import { streamMetrics } from './streams/stream-metrics.js';
import { openUpstream } from './ingest/upstreams.js';

const SERVICE_VERSION = '0.5.0';

/** The sink lag is read from the log at most this often, however often health or metrics ask. */
const SINK_LAG_TTL_MS = 5_000;
/** How long the last verification run read from the data folder is reused by /health. */
const VERIFICATION_TTL_MS = 5_000;

export interface ComposeOptions {
  config: Config;
  store: AnalyticsStore;
  control: ControlStore;
  logger: Logger;
  health: HealthInputs;
  webhooks?: WebhooksApi;
  /** Extra metric families (e.g. the sink's, when it runs in this process). */
  metrics?: () => Family[];
  /** Looks up markets the catalog does not hold yet (GET /markets/{id}). */
  marketLookup?: MarketLookup;
  /** The clock of records the API writes (paper fills, fee quotes, copy subscriptions); default Date.now. */
  clock?: () => number;
  /** The event log live streams read (/v1/stream, /v1/stream/sse); without it they answer 404. */
  log?: EventLog;
}

export interface ComposedApi {
  handler: ApiHandler;
  accounts: Accounts;
  keys: KeyLifecycle;
  meter: Meter;
  /** Calls refused with 402/429, kept for GET /usage/refusals and the usage history. */
  refusals: RefusalLog;
  instances: ApiInstances;
  operations: AdminOperations;
  metrics: MetricsSource;
  sandbox: SandboxApis;
  start(): Promise<void>;
  /**
   * Ends every live stream (SSE responses end, WebSockets close 1001). A server's close waits for
   * its connections, and a stream's never ends by itself, so this runs once the server stops accepting.
   */
  closeStreams(): void;
  stop(): Promise<void>;
}

export function composeApi(options: ComposeOptions): ComposedApi {
  const { config, control } = options;
  const logger = options.logger.child({ part: 'api' });
  const accounts = new Accounts(control);
  const keys = new KeyLifecycle(control, { keysPerAccount: config.access.keysPerAccount });
  const sandbox = composeSandboxApis(config, control, options.store, options.clock);
  const meter = new Meter(control, {
    ...config.access,
    flushIntervalMs: config.access.meterFlushIntervalMs,
    tokenBalances: sandbox.tokenBalances,
    onFlushError: (error) => logger.warn({ err: error }, 'usage flush failed; the counts are kept for the next one'),
  });
  const refusals = new RefusalLog(control, {
    flushIntervalMs: config.access.meterFlushIntervalMs,
    onFlushError: (error) => logger.warn({ err: error }, 'refused-call log flush failed; kept for the next flush'),
  });
  const instances = new ApiInstances(control, config.access.heartbeatIntervalMs, (error) =>
    logger.warn({ err: error }, 'API heartbeat failed; keeping the last count of API processes'),
  );
  const streams = options.log
    ? new StreamService(options.log, options.store, config.streams, logger, new AccountEventFeed(control))
    : undefined;
  const exportClock = options.clock ?? Date.now;
  const exportJobs = new ExportJobs(control, exportClock);
  const exportRunner = new ExportRunner(
    exportJobs,
    options.store,
    path.join(config.dataDir, 'exports'),
    {
      maxBytes: config.exports.maxBytes,
      bytesPerCall: config.exports.bytesPerCall,
      retentionMs: config.exports.retentionHours * 3_600_000,
    },
    logger.child({ component: 'exports' }),
    async (accountId, calls) => {
      const charged = await meter.chargeCalls(accountId, 'tier2', calls);
      return charged.ok ? null : charged.reason;
    },
    exportClock,
  );
  const handler = createApiHandler({
    streams,
    exports: { jobs: exportJobs, runner: exportRunner, store: options.store, settings: config.exports, clock: exportClock },
    store: options.store,
    accounts,
    control,
    sandbox,
    feeFallback: config.sandbox.feeFallback,
    copyPicksMinResolved: config.copy.picks.minResolved,
    clock: options.clock,
    copyLimits: { subscriptionsPerAccount: config.copy.subscriptionsPerAccount, strategiesPerAccount: config.copy.strategiesPerAccount },
    keys,
    meter,
    access: config.access,
    auth: {
      cacheTtlMs: config.access.authCacheTtlMs,
      negativeCacheTtlMs: config.access.authNegativeCacheTtlMs,
      failuresPerIpPerMinute: config.access.authFailuresPerIpPerMinute,
      failuresPerPrefixPerMinute: config.access.authFailuresPerPrefixPerMinute,
      trustProxyHops: config.trustProxyHops,
    },
    registrations: new RegistrationLimits(control, {
      perIpPerHour: config.access.registrationsPerIpPerHour,
      perHour: config.access.registrationsPerHour,
    }),
    rateShare: () => instances.count(),
    logger,
    validateResponses: config.validateResponses,
    readCache: { ttlMs: config.readCacheTtlMs, maxEntries: config.readCacheMaxEntries, maxBytes: config.readCacheMaxBytes },
    webhooks: options.webhooks,
    marketLookup: options.marketLookup,
    health: options.health,
    usageHistory: { control, refusals, clock: options.clock },
    sessionMaxAgeSeconds: config.access.sessionMaxAgeSeconds,
  });
  const operations = new AdminOperations(accounts, config.access.thresholds, keys, (ids) => handler.owners.forgetKeys(ids));
  // Reconciled hours change once a minute (RECONCILIATION_INTERVAL_MS); a scrape reuses them.
  const reconciled = cached(() => reconciliationHours(options.store, 24), SINK_LAG_TTL_MS);
  const positionsReconciled = cached(() => reconciliationSummary(options.store), SINK_LAG_TTL_MS);
  const engineMemory = cached(() => readEngineMemory(options.store), SINK_LAG_TTL_MS);
  const metrics: MetricsSource = {
    async collect() {
      const cache = handler.cache.stats();
      const usage = meter.stats();
      const queue = (options.store as { queueStats?: () => FairQueueStats }).queueStats?.();
      return [
        ...ingestionMetrics(options.health.sources(), await options.health.sinkLag()),
        ...chainMetrics(options.health.chain?.() ?? null),
        ...reconciliationMetrics(await reconciled()),
        ...positionReconciliationMetrics(await positionsReconciled()),
        single('tapeline_read_cache_entries', 'Responses in the read cache.', 'gauge', cache.entries),
        single('tapeline_read_cache_bytes', 'Bytes held by the read cache.', 'gauge', cache.bytes),
        single('tapeline_read_cache_evictions_total', 'Entries evicted to stay within the bounds.', 'counter', cache.evictions),
        single(
          'tapeline_auth_lookups_total',
          'API-key lookups in the control store (cache misses).',
          'counter',
          handler.owners.lookupCount,
        ),
        single(
          'tapeline_usage_flush_failures_total',
          'Usage flushes that failed (their counts were kept).',
          'counter',
          usage.flush_failures,
        ),
        single(
          'tapeline_usage_refunds_total',
          'Charged calls given back because they were not served (429 from the query lanes, or 5xx).',
          'counter',
          usage.refunds,
        ),
        single('tapeline_api_processes', 'API processes sharing the per-key limits.', 'gauge', instances.count()),
        ...(queue
          ? [
              single('tapeline_analytics_queries_running', 'Analytics statements running.', 'gauge', queue.running),
              single('tapeline_analytics_queries_queued', 'Analytics statements waiting for their turn.', 'gauge', queue.queued),
              single('tapeline_analytics_queries_rejected_total', 'Statements refused by the queue bounds.', 'counter', queue.rejected),
              single(
                'tapeline_analytics_queries_abandoned_total',
                'Waiting statements dropped unrun because their request was answered or closed by its caller.',
                'counter',
                queue.abandoned,
              ),
            ]
          : []),
        ...(streams ? streamMetrics(streams.figures()) : []),
        ...engineMemoryMetrics(await engineMemory()),
        ...processMemoryMetrics(),
        ...(options.metrics?.() ?? []),
      ];
    },
    exposition: processorMetricsText,
  };
  return {
    handler,
    accounts,
    keys,
    meter,
    refusals,
    instances,
    operations,
    metrics,
    sandbox,
    async start() {
      meter.start();
      await exportRunner.start();
      refusals.start();
      await instances.start();
    },
    closeStreams() {
      streams?.close();
    },
    async stop() {
      streams?.close();
      await exportRunner.stop();
      await meter.stop();
      await refusals.stop();
      await instances.stop();
      await sandbox.close();
    },
  };
}

export interface ApiServerOptions {
  config: Config;
  store: AnalyticsStore;
  control: ControlStore;
  log: EventLog;
  logger: Logger;
  sources?: () => SourceStatus[];
  /** Whether each upstream can be reached (an ingest part in this process). */
  upstreams?: () => UpstreamStatus[];
  /** The chain source's figures when it runs in this process. */
  chain?: () => ChainStatus | null;
  webhooks?: WebhooksApi;
  metrics?: () => Family[];
  /** Write DATA_DIR/admin.json so `npm run admin` reaches this process (the embedded control store). */
  adminEndpoint?: boolean;
}

export interface ApiServer {
  url: string;
  /** The operator listener (/admin, /metrics). */
  adminUrl: string;
  stop(): Promise<void>;
}

export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const { config, log, logger } = options;
  // The sink's backlog and the position ledger's (a consumer group of its own: trader figures lag by
  // it), read together once per period however many scrapes and health checks ask.
  const lags = cached(
    async () => ({
      sink: await sinkLag(log, [STREAMS.markets.topic, STREAMS.trades.topic, STREAMS.chainLedger.topic]),
      ledger: await sinkLag(log, sinkTopics(STATEFUL_PROJECTIONS), LEDGER_GROUP_ID),
    }),
    SINK_LAG_TTL_MS,
  );
  const lag = async () => (await lags()).sink;
  const ledgerLag = async () => (await lags()).ledger;
  const { ingest } = config;
  // One attempt per upstream request and a generous request budget: the lookup's own token bucket
  // and deadline are what bound the work (services/ingest/market-lookup.ts).
  const marketLookup = new MarketLookup({
    gamma: openUpstream(config, 'gamma', { budgetPer10s: 1_000, timeoutMs: ingest.lookupTimeoutMs, maxAttempts: 1 }),
    publisher: new EventPublisher(log),
    perSecond: ingest.lookupPerSecond,
    timeoutMs: ingest.lookupTimeoutMs,
    missTtlMs: ingest.lookupMissTtlMs,
  });
  const api = composeApi({
    ...options,
    marketLookup,
    health: {
      version: SERVICE_VERSION,
      sources: options.sources ?? (() => []),
      upstreams: options.upstreams ?? (() => []),
      sinkLag: lag,
      ledgerLag,
      chainEnabled: chainSourceRefusal(config.chain, config.upstream.gammaUrl) === null,
      chain: options.chain ?? (() => null),
      eventLog: log.storage ? cached(() => log.storage!(), SINK_LAG_TTL_MS) : undefined,
      // A small file, written whole then renamed by the verifier; read at most every few seconds.
      verification: cached(async () => readVerificationRun(config.dataDir), VERIFICATION_TTL_MS),
      // Two small files the backfill replaces whole after every range.
      chainBackfill: cached(async () => readChainBackfillState(chainBackfillFiles(config.dataDir)), VERIFICATION_TTL_MS),
      // The history fill replaces its plan file whole after every range.
      chainHistory: cached(
        async () =>
          readHistoryProgress(
            historyFiles(config.dataDir),
            config.chain.history && chainSourceRefusal(config.chain, config.upstream.gammaUrl) === null,
          ),
        VERIFICATION_TTL_MS,
      ),
    },
  });
  await api.start();
  // Built while the server starts listening, so the first visit to /app does not wait for it.
  const webuiReady = api.handler.webui.prepare().catch((error: unknown) => logger.error({ err: error }, 'web ui bundle failed to build'));
  const adminToken = options.adminEndpoint ? newAdminToken() : undefined;
  const server = http.createServer(api.handler.listener);
  if (api.handler.upgrade) server.on('upgrade', api.handler.upgrade);
  const adminServer = http.createServer(
    createAdminApp({
      admin: adminToken ? { operations: api.operations, token: adminToken } : undefined,
      metrics: api.metrics,
      logger,
    }),
  );
  try {
    await listen(server, config.port, config.host);
    await listenAdmin(adminServer, config, logger);
  } catch (error) {
    server.close();
    await webuiReady;
    await api.stop();
    throw error;
  }
  const url = `http://${config.host}:${(server.address() as AddressInfo).port}`;
  const adminUrl = `http://${config.admin.host}:${(adminServer.address() as AddressInfo).port}`;
  if (adminToken) writeAdminEndpoint(config.dataDir, adminUrl, adminToken);
  logger.info({ url, adminUrl }, 'api listening (operator endpoints on the admin URL)');
  return {
    url,
    adminUrl,
    async stop() {
      const closed = Promise.all([close(server), close(adminServer)]);
      api.closeStreams();
      await closed;
      await webuiReady;
      await api.stop();
    },
  };
}

/**
 * Connections the kernel completes before the event loop accepts them (Linux caps it at
 * net.core.somaxconn, 4096 by default). Node's default of 511 overflowed when one client opened 1,000
 * stream connections at once while the loop was busy: the kernel dropped handshakes, and some of those
 * connections were reset (79 of the abuse tier's 1,000 in one CI run).
 */
const LISTEN_BACKLOG = 4096;

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The configured admin port; the default one falls back to an ephemeral port when taken (several processes per host). */
async function listenAdmin(server: http.Server, config: Config, logger: Logger): Promise<void> {
  try {
    await listen(server, config.admin.port, config.admin.host);
  } catch (error) {
    if (!config.admin.portIsDefault || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    logger.warn({ port: config.admin.port }, 'default admin port is taken; using an ephemeral port (see admin.json or set ADMIN_PORT)');
    await listen(server, 0, config.admin.host);
  }
}

async function close(server: http.Server): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
}
