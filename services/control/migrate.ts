/**
 * Forward-only control-store migrations (services/control/migrations/NNNN_name.sql), each applied
 * in its own transaction together with its schema_migrations row, so a file is all-or-nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ControlStore } from '../ports/control-store.js';

const MIGRATIONS_DIRECTORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export async function migrateControlStore(store: ControlStore, directory = MIGRATIONS_DIRECTORY): Promise<string[]> {
  await store.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
  const applied = new Set((await store.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => Number(r.version)));
  const files = fs.readdirSync(directory).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  const newlyApplied: string[] = [];
  for (const file of files) {
    const version = Number(file.slice(0, 4));
    if (applied.has(version)) continue;
    const sql = fs.readFileSync(path.join(directory, file), 'utf8');
    const statements = sql.split(/;\s*$/m).map((s) => s.replace(/^\s*--.*$/gm, '').trim()).filter(Boolean);
    await store.transaction(async (tx) => {
      for (const statement of statements) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [version, file.replace(/\.sql$/, '')]);
    });
    newlyApplied.push(file);
  }
  return newlyApplied;
}
