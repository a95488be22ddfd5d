/** Picks the analytics adapter from config: a ClickHouse server when CLICKHOUSE_URL is set, chDB otherwise. */
import path from 'node:path';
import type { Config } from '../config.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { openChdbStore, openHttpStore } from './clickhouse-store.js';
import { migrate, readClusterMigrations } from './migrate.js';

export async function openAnalyticsStore(config: Config): Promise<AnalyticsStore> {
  const { clickhouseUrl, clickhouseDatabase, clickhouseMigrations } = config.engines;
  // chDB is one server: the cluster variants (ON CLUSTER, Replicated engines) need the cluster.
  if (clickhouseMigrations === 'cluster' && !clickhouseUrl) {
    throw new Error('CLICKHOUSE_MIGRATIONS=cluster needs CLICKHOUSE_URL (a server of the cluster)');
  }
  const store = clickhouseUrl
    ? await openHttpStore({ ...withCredentials(clickhouseUrl, clickhouseDatabase), governance: config.analytics })
    : await openChdbStore({ path: path.join(config.dataDir, 'chdb'), database: clickhouseDatabase, governance: config.analytics });
  if (clickhouseMigrations === 'cluster') {
    const { schemaTable, migrations } = readClusterMigrations();
    await migrate(store, migrations, schemaTable);
  } else if (clickhouseMigrations === 'service') {
    await migrate(store);
  }
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
