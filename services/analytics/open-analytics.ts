/** Picks the analytics adapter from config: a ClickHouse server when CLICKHOUSE_URL is set, chDB otherwise. */
import path from 'node:path';
import type { Config } from '../config.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { openChdbStore, openHttpStore } from './clickhouse-store.js';
import { migrate } from './migrate.js';

export async function openAnalyticsStore(config: Config): Promise<AnalyticsStore> {
  const { clickhouseUrl, clickhouseDatabase } = config.engines;
  const store = clickhouseUrl
    ? await openHttpStore({ ...withCredentials(clickhouseUrl, clickhouseDatabase), governance: config.analytics })
    : await openChdbStore({ path: path.join(config.dataDir, 'chdb'), database: clickhouseDatabase, governance: config.analytics });
  await migrate(store);
  return store;
}

function withCredentials(rawUrl: string, database: string) {
  const url = new URL(rawUrl);
  const username = decodeURIComponent(url.username) || undefined;
  const password = decodeURIComponent(url.password) || undefined;
  url.username = '';
  url.password = '';
  return { url: url.toString().replace(/\/$/, ''), database, username, password };
}
