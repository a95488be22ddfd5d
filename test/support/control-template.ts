/**
 * A fresh PGlite control store for a test, copied from a template cluster instead of created: initdb
 * in WASM takes seconds per test file (3-12 s on this machine, by load), a copy of the closed cluster
 * milliseconds. The template is built once per machine and keyed by the PGlite version and the control
 * migrations' contents, so a changed migration or engine builds a new one; it holds the migrated
 * schema, and callers still run the migrations (finding nothing to do), as the service does.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrateControlStore } from '../../services/control/migrate.js';
import { openPgliteStore } from '../../services/control/pglite-store.js';
import type { ControlStore } from '../../services/ports/control-store.js';
import { REPO_ROOT } from './processes.js';

function templateKey(): string {
  const hash = createHash('sha256');
  hash.update(fs.readFileSync(path.join(REPO_ROOT, 'node_modules/@electric-sql/pglite/package.json')));
  hash.update(fs.readFileSync(path.join(REPO_ROOT, 'services/control/pglite-store.ts')));
  const migrations = path.join(REPO_ROOT, 'services/control/migrations');
  for (const file of fs.readdirSync(migrations).sort()) hash.update(file).update(fs.readFileSync(path.join(migrations, file)));
  return hash.digest('hex').slice(0, 16);
}

async function template(): Promise<string> {
  const target = path.join(os.tmpdir(), `tapeline-pglite-template-${templateKey()}`);
  if (fs.existsSync(path.join(target, 'PG_VERSION'))) return target;
  // Built aside and renamed into place, so a worker never copies a half-built template; when two
  // workers build at once, the second rename fails and its copy is dropped.
  const building = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-pglite-template-build-'));
  const store = await openPgliteStore(building);
  await migrateControlStore(store);
  await store.close();
  try {
    fs.renameSync(building, target);
  } catch {
    fs.rmSync(building, { recursive: true, force: true });
  }
  return target;
}

export async function freshControlStore(): Promise<ControlStore> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-api-pglite-'));
  fs.cpSync(await template(), directory, { recursive: true });
  return openPgliteStore(directory);
}
