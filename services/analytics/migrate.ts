/**
 * Forward-only ClickHouse migrations: each read model's migrations/NNNN_name.sql, applied in version
 * order at startup (one sequence across all read models), each recorded in schema_migrations once
 * all its statements have run. Statements are idempotent (IF NOT EXISTS) so a crash halfway through
 * a file is repaired by the next start.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { READ_MODELS } from '../read-models/registry.js';

export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

export function readMigrations(directories: readonly string[] = READ_MODELS.map((model) => model.migrations)): Migration[] {
  const migrations = directories
    .filter((directory) => fs.existsSync(directory))
    .flatMap((directory) =>
      fs
        .readdirSync(directory)
        .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
        .map((file) => ({
          version: Number(file.slice(0, 4)),
          name: file.replace(/\.sql$/, ''),
          statements: splitStatements(fs.readFileSync(path.join(directory, file), 'utf8')),
        })),
    )
    .sort((a, b) => a.version - b.version);
  const clash = migrations.find((migration, index) => index > 0 && migrations[index - 1]!.version === migration.version);
  if (clash) throw new Error(`two migrations share version ${clash.version}: number a new migration after the highest one`);
  return migrations;
}

/** Splits on semicolons that end a line; the SQL files keep one statement per such terminator. */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*$/m)
    .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
    .filter((statement) => statement.length > 0);
}

/**
 * MergeTree settings a migration may set that an older server does not have: each only spares the
 * engine work (it changes no result), so on such a server its `MODIFY SETTING` is skipped, not failed.
 * `auto_statistics_types` names the column statistics every merge computes for every column (on by
 * default since ClickHouse PR #101275, 2026); the ledger's tables turn them off (migration 0062,
 * docs/POSITIONS.md).
 */
const OPTIONAL_SETTINGS: ReadonlySet<string> = new Set(['auto_statistics_types']);

/** The optional setting a `MODIFY SETTING` statement sets, if it sets one (one setting per statement). */
export function optionalSetting(statement: string): string | undefined {
  const name = /\bMODIFY\s+SETTING\s+(\w+)\s*=/i.exec(statement)?.[1];
  return name !== undefined && OPTIONAL_SETTINGS.has(name) ? name : undefined;
}

/** The migrator's record of applied versions (created before any migration runs). */
export const SCHEMA_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations
    (version UInt32, name String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3))
    ENGINE = MergeTree ORDER BY version`;

export async function migrate(store: AnalyticsStore, migrations = readMigrations()): Promise<string[]> {
  await store.command(SCHEMA_MIGRATIONS_TABLE);
  const applied = new Set(
    (await store.query<{ version: number }>('SELECT version FROM schema_migrations')).map((row) => Number(row.version)),
  );
  const newlyApplied: string[] = [];
  let serverSettings: Set<string> | undefined;
  const serverHas = async (setting: string) => {
    serverSettings ??= new Set((await store.query<{ name: string }>('SELECT name FROM system.merge_tree_settings')).map((row) => row.name));
    return serverSettings.has(setting);
  };
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    for (const statement of migration.statements) {
      const optional = optionalSetting(statement);
      if (optional !== undefined && !(await serverHas(optional))) continue;
      await store.command(statement);
    }
    await store.insert('schema_migrations', [{ version: migration.version, name: migration.name }]);
    newlyApplied.push(migration.name);
  }
  return newlyApplied;
}
