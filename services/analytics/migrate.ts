/**
 * Forward-only ClickHouse migrations: clickhouse/migrations/NNNN_name.sql, applied in order at
 * startup, each recorded in schema_migrations once all its statements have run. Statements are
 * idempotent (IF NOT EXISTS) so a crash halfway through a file is repaired by the next start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AnalyticsStore } from '../ports/analytics-store.js';

export const MIGRATIONS_DIRECTORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../clickhouse/migrations');

export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

export function readMigrations(directory = MIGRATIONS_DIRECTORY): Migration[] {
  return fs
    .readdirSync(directory)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 4)),
      name: file.replace(/\.sql$/, ''),
      statements: splitStatements(fs.readFileSync(path.join(directory, file), 'utf8')),
    }));
}

/** Splits on semicolons that end a line; the SQL files keep one statement per such terminator. */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*$/m)
    .map((statement) => statement.replace(/^\s*--.*$/gm, '').trim())
    .filter((statement) => statement.length > 0);
}

export async function migrate(store: AnalyticsStore, migrations = readMigrations()): Promise<string[]> {
  await store.command(`CREATE TABLE IF NOT EXISTS schema_migrations
    (version UInt32, name String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3))
    ENGINE = MergeTree ORDER BY version`);
  const applied = new Set(
    (await store.query<{ version: number }>('SELECT version FROM schema_migrations')).map((row) => Number(row.version)),
  );
  const newlyApplied: string[] = [];
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    for (const statement of migration.statements) await store.command(statement);
    await store.insert('schema_migrations', [{ version: migration.version, name: migration.name }]);
    newlyApplied.push(migration.name);
  }
  return newlyApplied;
}
