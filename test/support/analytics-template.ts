/**
 * A fresh, migrated chDB store for a test, copied from a template instead of migrated: applying every
 * migration to an empty chDB store takes seconds (about 3-5 s on this machine, by load), a copy of the
 * closed data directory a fraction of one. A template holds one database, built once per machine (per
 * tier: each tier has its own TMPDIR) in a child process (chDB allows one data directory per process)
 * and keyed by its name, the chDB version and the migrations' contents, so a changed migration or
 * engine builds a new one. Materialized views name their tables with the database, so a template
 * serves one database name: the harnesses use fixed names. Callers still run the migrations (finding
 * nothing to do), as the service does.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openChdbStore } from '../../services/analytics/clickhouse-store.js';
import { migrate, readMigrations } from '../../services/analytics/migrate.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function templateKey(database: string): string {
  const hash = createHash('sha256').update(database);
  hash.update(fs.readFileSync(path.join(REPO_ROOT, 'node_modules/chdb/package.json')));
  for (const file of ['services/analytics/clickhouse-store.ts', 'services/analytics/migrate.ts'])
    hash.update(fs.readFileSync(path.join(REPO_ROOT, file)));
  for (const migration of readMigrations()) hash.update(migration.name).update(migration.statements.join('\n'));
  return hash.digest('hex').slice(0, 16);
}

function template(database: string): string {
  const target = path.join(os.tmpdir(), `tapeline-chdb-template-${database}-${templateKey(database)}`);
  if (fs.existsSync(path.join(target, 'metadata', `${database}.sql`))) return target;
  // Built aside and renamed into place, so a worker never copies a half-built template; when two
  // workers build at once, the second rename fails and its copy is dropped.
  const building = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-chdb-template-build-'));
  execFileSync(process.execPath, ['--import', 'tsx', 'test/support/analytics-template-build.ts', building, database], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
  try {
    fs.renameSync(building, target);
  } catch {
    fs.rmSync(building, { recursive: true, force: true });
  }
  return target;
}

/** Copies the migrated template of `database` into the new or empty directory `directory` (created if missing). */
export function copyAnalyticsTemplate(directory: string, database: string): void {
  fs.mkdirSync(directory, { recursive: true });
  if (fs.readdirSync(directory).length > 0) throw new Error(`copyAnalyticsTemplate: ${directory} is not empty`);
  // cp -a keeps the data directory's relative symlinks as they are (fs.cpSync resolves them unless told
  // not to) and is several times faster than fs.cpSync on its thousand small files.
  execFileSync('cp', ['-a', `${template(database)}/.`, directory]);
}

/** A migrated store of `database` in the new or empty directory `directory` (created if missing). */
export async function freshAnalyticsStore(
  directory: string,
  database: string,
  governance?: Parameters<typeof openChdbStore>[0]['governance'],
): Promise<AnalyticsStore> {
  copyAnalyticsTemplate(directory, database);
  const store = await openChdbStore({ path: directory, database, governance });
  await migrate(store);
  return store;
}
