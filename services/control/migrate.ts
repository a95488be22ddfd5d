/**
 * Forward-only control-store migrations (services/control/migrations/NNNN_name.sql), each applied
 * in its own transaction together with its schema_migrations row, so a file is all-or-nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ControlStore } from '../ports/control-store.js';

/** Arbitrary constant naming "tapeline control-store migrations" among advisory locks. */
const MIGRATION_LOCK_KEY = 7_270_001;
const MIGRATIONS_DIRECTORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export async function migrateControlStore(store: ControlStore, directory = MIGRATIONS_DIRECTORY): Promise<string[]> {
  // Several processes (e.g. API replicas) may start at once on one server: a transaction-scoped
  // advisory lock lets one of them migrate while the others wait, then find the work done.
  await store.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
  });
  const applied = new Set((await store.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => Number(r.version)));
  const files = fs
    .readdirSync(directory)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
  const newlyApplied: string[] = [];
  for (const file of files) {
    const version = Number(file.slice(0, 4));
    if (applied.has(version)) continue;
    const sql = fs.readFileSync(path.join(directory, file), 'utf8');
    const statements = sql
      .split(/;\s*$/m)
      .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
      .filter(Boolean);
    const appliedHere = await store.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
      if ((await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [version])).length > 0) return false;
      for (const statement of statements) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [version, file.replace(/\.sql$/, '')]);
      return true;
    });
    if (appliedHere) newlyApplied.push(file);
  }
  return newlyApplied;
}
