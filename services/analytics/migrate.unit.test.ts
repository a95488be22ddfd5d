/**
 * The migration runner's one exception: a MergeTree setting listed as optional (it only spares engine
 * work) is skipped on a server that does not have it, so an older ClickHouse still migrates; any other
 * statement, and the optional one on a server that has it, runs.
 */
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { loadConfig } from '../config.js';
import { migrate, optionalSetting, readClusterMigrations, readMigrations } from './migrate.js';
import { openAnalyticsStore } from './open-analytics.js';

/** A store that records the statements it is sent and knows the given MergeTree settings. */
function recordingStore(settings: string[]) {
  const commands: string[] = [];
  const store = {
    command: async (sql: string) => {
      commands.push(sql);
    },
    query: async (sql: string) => (sql.includes('merge_tree_settings') ? settings.map((name) => ({ name })) : []),
    insert: async () => {},
  } as unknown as AnalyticsStore;
  return { store, commands };
}

const MIGRATION = {
  version: 9001,
  name: '9001_test',
  statements: [
    "ALTER TABLE t MODIFY SETTING auto_statistics_types = ''",
    'ALTER TABLE t MODIFY SETTING min_compress_block_size = 4096',
    'CREATE TABLE IF NOT EXISTS u (x UInt8) ENGINE = MergeTree ORDER BY x',
  ],
};

test('only the listed settings are optional', () => {
  expect(optionalSetting("ALTER TABLE position_ledger MODIFY SETTING auto_statistics_types = ''")).toBe('auto_statistics_types');
  expect(optionalSetting("alter table x modify setting auto_statistics_types=''")).toBe('auto_statistics_types');
  expect(optionalSetting('ALTER TABLE x MODIFY SETTING min_compress_block_size = 4096')).toBeUndefined();
  expect(optionalSetting('CREATE TABLE x (a UInt8) ENGINE = MergeTree ORDER BY a')).toBeUndefined();
});

test('a server without an optional setting skips its statement and runs the rest', async () => {
  const { store, commands } = recordingStore(['min_compress_block_size']);
  expect(await migrate(store, [MIGRATION])).toEqual(['9001_test']);
  expect(commands.slice(1)).toEqual([MIGRATION.statements[1], MIGRATION.statements[2]]);
});

test('a server with the setting runs every statement', async () => {
  const { store, commands } = recordingStore(['min_compress_block_size', 'auto_statistics_types']);
  await migrate(store, [MIGRATION]);
  expect(commands.slice(1)).toEqual(MIGRATION.statements);
});

test('the cluster variants: the same versions and names, recorded in a schema_migrations table created ON CLUSTER', async () => {
  const { schemaTable, migrations } = readClusterMigrations();
  expect(migrations.map((migration) => migration.name)).toEqual(readMigrations().map((migration) => migration.name));
  expect(schemaTable).toEqual([
    expect.stringMatching(/^CREATE TABLE IF NOT EXISTS schema_migrations ON CLUSTER '\{cluster\}'[\s\S]*ReplicatedMergeTree/),
  ]);
  const { store, commands } = recordingStore(['auto_statistics_types']);
  expect(await migrate(store, migrations.slice(0, 2), schemaTable)).toEqual(['0001_markets', '0002_trades']);
  expect(commands).toEqual([...schemaTable, ...migrations[0]!.statements, ...migrations[1]!.statements]);
  expect(commands.slice(1).every((statement) => statement.includes("ON CLUSTER '{cluster}'"))).toBe(true);
});

test('CLICKHOUSE_MIGRATIONS=cluster is refused without a ClickHouse server, before any store opens', async () => {
  const config = loadConfig({ CLICKHOUSE_MIGRATIONS: 'cluster', DATA_DIR: '/nonexistent/tapeline' });
  await expect(openAnalyticsStore(config)).rejects.toThrow('CLICKHOUSE_MIGRATIONS=cluster needs CLICKHOUSE_URL');
  expect(loadConfig({}).engines.clickhouseMigrations).toBe('service');
});
