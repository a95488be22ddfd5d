/** The HTTP API for read benchmarks: a Tier 2 key with quotas and rate limits out of the way. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pino } from 'pino';
import { createApiHandler } from '../api/app.js';
import { Meter } from '../services/access/meter.js';
import { AdminOperations } from '../services/admin/operations.js';
import { loadConfig } from '../services/config.js';
import { Accounts } from '../services/control/accounts.js';
import { migrateControlStore } from '../services/control/migrate.js';
import { openPgliteStore } from '../services/control/pglite-store.js';
import type { AnalyticsStore } from '../services/ports/analytics-store.js';

export interface BenchApi {
  base: string;
  key: string;
  readCacheTtlMs: number;
  close(): Promise<void>;
}

export async function startBenchApi(store: AnalyticsStore, directory: string, options: { readCache: boolean }): Promise<BenchApi> {
  const control = await openPgliteStore(path.join(directory, 'pglite'));
  await migrateControlStore(control);
  const config = loadConfig({ QUOTA_TIER2_PER_DAY: '1000000000', RATE_TIER2_PER_SECOND: '1000000' });
  const accounts = new Accounts(control);
  const meter = new Meter(control, { ...config.access, flushIntervalMs: config.access.meterFlushIntervalMs });
  meter.start();
  const key = (await new AdminOperations(accounts, config.access.thresholds).createKey('bench', '2')).api_key;
  const readCacheTtlMs = options.readCache ? config.readCacheTtlMs : 0;
  const { listener } = createApiHandler({
    store,
    accounts,
    control,
    meter,
    access: config.access,
    authCacheTtlMs: config.access.authCacheTtlMs,
    readCacheTtlMs,
    logger: pino({ level: 'silent' }),
    health: { version: 'bench', sources: () => [], sinkLag: async () => ({}) },
  });
  const server = http.createServer(listener);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    key,
    readCacheTtlMs,
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      await meter.stop();
      await control.close();
    },
  };
}
