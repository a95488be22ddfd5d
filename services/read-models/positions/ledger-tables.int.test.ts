/**
 * The ledger's table and every MergeTree table its views fill compute no automatic column statistics
 * in their merges (migration 0062): found from the views themselves, so a view added later without
 * the setting fails here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openChdbStore } from '../../analytics/clickhouse-store.js';
import { migrate } from '../../analytics/migrate.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';

let store: AnalyticsStore;

beforeAll(async () => {
  store = await openChdbStore({ path: fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-ledger-tables-')), database: 'ledger_tables' });
  await migrate(store);
});
afterAll(() => store.close());

test('the ledger and the MergeTree tables of its views have no automatic statistics', async () => {
  const views = await store.query<{ target: string }>(
    `SELECT extract(create_table_query, 'TO ledger_tables\\\\.(\\\\w+)') AS target FROM system.tables
      WHERE database = 'ledger_tables' AND engine = 'MaterializedView' AND match(as_select, 'FROM ledger_tables\\\\.position_ledger\\\\b')`,
  );
  const fed = ['position_ledger', ...views.map((view) => view.target)];
  const tables = await store.query<{ name: string; engine: string; engine_full: string }>(
    `SELECT name, engine, engine_full FROM system.tables WHERE database = 'ledger_tables' AND name IN {names:Array(String)} ORDER BY name`,
    { names: fed },
  );
  const mergeTrees = tables.filter((table) => table.engine.endsWith('MergeTree'));
  expect(mergeTrees.map((table) => table.name)).toEqual([
    'ledger_progress',
    'position_daily',
    'position_ledger',
    'position_state',
    'trader_days',
    'trader_lifetime',
    'trader_market_pnl',
    'trader_recent_days',
    'trader_window_counts',
    'wallet_coverage',
  ]);
  for (const table of mergeTrees)
    expect([table.name, table.engine_full]).toEqual([table.name, expect.stringContaining("auto_statistics_types = ''")]);
});
