/** The HTTP API for read benchmarks: a Tier 2 key with quotas and rate limits out of the way, wired as the service wires it. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pino } from 'pino';
import { composeApi } from '../services/api-server.js';
import { loadConfig } from '../services/config.js';
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
  const config = loadConfig({
    QUOTA_TIER2_PER_DAY: '1000000000',
    RATE_TIER2_PER_SECOND: '1000000',
    ...(options.readCache ? {} : { READ_CACHE_TTL_MS: '0' }),
  });
  const api = composeApi({
    config,
    store,
    control,
    logger: pino({ level: 'silent' }),
    health: { version: 'bench', sources: () => [], sinkLag: async () => ({}) },
  });
  await api.start();
  const key = (await api.operations.createKey('bench', '2')).api_key;
  const server = http.createServer(api.handler.listener);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    key,
    readCacheTtlMs: config.readCacheTtlMs,
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections();
      await api.stop();
      await control.close();
    },
  };
}
