/**
 * The HTTP API in-process over real embedded engines (chDB + PGlite), with response validation on,
 * configured from an env map like the service itself.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { createApiHandler } from '../../api/app.js';
import { Meter } from '../../services/access/meter.js';
import { AdminOperations } from '../../services/admin/operations.js';
import { openChdbStore } from '../../services/analytics/clickhouse-store.js';
import { migrate } from '../../services/analytics/migrate.js';
import { type Config, loadConfig } from '../../services/config.js';
import { Accounts } from '../../services/control/accounts.js';
import { migrateControlStore } from '../../services/control/migrate.js';
import { openPgliteStore } from '../../services/control/pglite-store.js';
import type { MarketLookup } from '../../services/ingest/market-lookup.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import type { ControlStore } from '../../services/ports/control-store.js';
import { composeSandboxApis, type SandboxApis } from '../../services/sandbox/compose.js';

export interface ApiHarness {
  base: string;
  store: AnalyticsStore;
  accounts: Accounts;
  admin: AdminOperations;
  meter: Meter;
  control: ControlStore;
  sandbox: SandboxApis;
  config: Config;
  close(): Promise<void>;
}

export interface ApiHarnessOptions {
  /** An analytics store to serve (migrated); else a chDB store is opened at chdbPath/database. */
  store?: AnalyticsStore;
  chdbPath?: string;
  database?: string;
  env?: Record<string, string>;
  /** A migrated control store to use (e.g. PostgreSQL); else a fresh PGlite. */
  control?: ControlStore;
  clock?: () => number;
  /** Upstream lookup of markets the catalog does not hold (off unless given). */
  marketLookup?: MarketLookup;
}

export async function startApiHarness(options: ApiHarnessOptions): Promise<ApiHarness> {
  // Rate limits are lifted unless a test sets them: most tests call faster than any tier allows.
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    RATE_SANDBOX_PER_SECOND: '100000',
    RATE_TIER1_PER_SECOND: '100000',
    RATE_TIER2_PER_SECOND: '100000',
    RATE_TIER3_PER_SECOND: '100000',
    ...options.env,
  });
  const ownStore = !options.store;
  const store =
    options.store ??
    (await openChdbStore({
      path: options.chdbPath ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-api-')),
      database: options.database ?? 'api',
    }));
  if (ownStore) await migrate(store);
  const ownControl = !options.control;
  const control = options.control ?? (await openPgliteStore(fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-api-pglite-'))));
  if (ownControl) await migrateControlStore(control);
  const accounts = new Accounts(control);
  const sandbox = composeSandboxApis(config, control, store, options.clock);
  const meter = new Meter(control, {
    ...config.access,
    flushIntervalMs: config.access.meterFlushIntervalMs,
    tokenBalances: sandbox.tokenBalances,
  });
  meter.start();
  const admin = new AdminOperations(accounts, config.access.thresholds);
  const { listener } = createApiHandler({
    store,
    accounts,
    control,
    sandbox,
    meter,
    access: config.access,
    feeFallback: config.sandbox.feeFallback,
    clock: options.clock,
    authCacheTtlMs: config.access.authCacheTtlMs,
    logger: pino({ level: 'silent' }),
    validateResponses: true,
    // Off unless a test asks for it: most tests write data and read it back at once.
    readCacheTtlMs: options.env?.READ_CACHE_TTL_MS ? config.readCacheTtlMs : 0,
    health: { version: 'test', sources: () => [], sinkLag: async () => ({ 'tapeline.trades.v1': 0 }) },
    marketLookup: options.marketLookup,
  });
  const server = http.createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    store,
    accounts,
    admin,
    meter,
    control,
    sandbox,
    config,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await meter.stop();
      await sandbox.close();
      if (ownStore) await store.close();
      if (ownControl) await control.close();
    },
  };
}
