/**
 * The HTTP API in-process over real embedded engines (chDB + PGlite), with response validation on,
 * configured from an env map like the service itself, and wired by the service's own composition.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { freshAnalyticsStore } from './analytics-template.js';
import type { Meter } from '../../services/access/meter.js';
import type { RefusalLog } from '../../services/access/refusals.js';
import type { AdminOperations } from '../../services/admin/operations.js';
import { openChdbStore } from '../../services/analytics/clickhouse-store.js';
import { migrate } from '../../services/analytics/migrate.js';
import { composeApi, type ComposedApi } from '../../services/api-server.js';
import { type Config, loadConfig } from '../../services/config.js';
import type { Accounts } from '../../services/control/accounts.js';
import { migrateControlStore } from '../../services/control/migrate.js';
import { freshControlStore } from './control-template.js';
import type { MarketLookup } from '../../services/ingest/market-lookup.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import type { ControlStore } from '../../services/ports/control-store.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { webhooksApi } from '../../services/webhooks/start-webhooks.js';
import type { SandboxApis } from '../../services/sandbox/compose.js';

export interface ApiHarness {
  base: string;
  store: AnalyticsStore;
  control: ControlStore;
  accounts: Accounts;
  admin: AdminOperations;
  meter: Meter;
  refusals: RefusalLog;
  api: ComposedApi;
  sandbox: SandboxApis;
  config: Config;
  close(): Promise<void>;
}

export interface ApiHarnessOptions {
  /** An analytics store to serve (migrated); else a chDB store is opened at chdbPath/database. */
  store?: AnalyticsStore;
  chdbPath?: string;
  database?: string;
  /** A control store to use (migrated); else a fresh PGlite. */
  control?: ControlStore;
  env?: Record<string, string>;
  /** Serve /v1/webhooks too (subscriptions only: no dispatcher runs). */
  webhooks?: boolean;
  clock?: () => number;
  /** Upstream lookup of markets the catalog does not hold (off unless given). */
  marketLookup?: MarketLookup;
  /** The event log live streams read (/v1/stream, /v1/stream/sse: off unless given). */
  log?: EventLog;
}

export async function startApiHarness(options: ApiHarnessOptions): Promise<ApiHarness> {
  // Rate limits are lifted unless a test sets them: most tests call faster than any tier allows;
  // registration and failed-authentication limits too (tests register many agents from 127.0.0.1).
  // The read cache is off unless a test asks for it: most tests write data and read it back at once.
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    RATE_SANDBOX_PER_SECOND: '100000',
    RATE_TIER1_PER_SECOND: '100000',
    RATE_TIER2_PER_SECOND: '100000',
    RATE_TIER3_PER_SECOND: '100000',
    RATE_FREE_PER_IP_PER_SECOND: '100000',
    REGISTRATIONS_PER_IP_PER_HOUR: '100000',
    REGISTRATIONS_PER_HOUR: '100000',
    AUTH_FAILURES_PER_IP_PER_MINUTE: '100000',
    READ_CACHE_TTL_MS: '0',
    VALIDATE_RESPONSES: 'true',
    ...options.env,
  });
  const ownStore = !options.store;
  const named = options.chdbPath !== undefined || options.database !== undefined;
  const store =
    options.store ??
    (named
      ? await openChdbStore({
          path: options.chdbPath ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-api-')),
          database: options.database ?? 'api',
          governance: config.analytics,
        })
      : await freshAnalyticsStore(fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-api-')), 'api', config.analytics));
  if (ownStore && named) await migrate(store);
  const ownControl = !options.control;
  const control = options.control ?? (await freshControlStore());
  if (ownControl) await migrateControlStore(control);
  const api = composeApi({
    config,
    store,
    control,
    clock: options.clock,
    logger: pino({ level: 'silent' }),
    health: { version: 'test', sources: () => [], sinkLag: async () => ({ 'tapeline.trades.v1': 0 }) },
    webhooks: options.webhooks ? webhooksApi(config, control) : undefined,
    marketLookup: options.marketLookup,
    log: options.log,
  });
  await api.start();
  const server = http.createServer(api.handler.listener);
  if (api.handler.upgrade) server.on('upgrade', api.handler.upgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    store,
    control,
    accounts: api.accounts,
    admin: api.operations,
    meter: api.meter,
    refusals: api.refusals,
    api,
    sandbox: api.sandbox,
    config,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await api.stop();
      server.closeAllConnections();
      await closed;
      if (ownStore) await store.close();
      if (ownControl) await control.close();
    },
  };
}
