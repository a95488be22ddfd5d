/**
 * One process at a time on a DATA_DIR's embedded engines: the start-up guards (PartResources, used
 * by every way of starting tapeline) take DATA_DIR/tapeline.lock and refuse a folder a live process
 * holds, naming it; a lock left by a killed process is taken over; with every engine a server the
 * folder is shared freely.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../services/config.js';
import { PartResources } from '../../services/parts/resources.js';
import { acquireDataDirLock, DataDirBusyError, LOCK_FILE } from '../../services/shared/data-dir-lock.js';

const silent = pino({ level: 'silent' });
const folder = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-lock-'));

test('a second service on the same folder is refused, naming the holder; after close the folder is free again', async () => {
  const dataDir = folder();
  const config = loadConfig({ DATA_DIR: dataDir });
  const first = new PartResources(config, silent);
  // Another process (a child holding the lock stands in for a second tapeline) cannot take it...
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '-e',
      `import('./services/parts/resources.ts').then(async ({ PartResources }) => {
         const { loadConfig } = await import('./services/config.ts');
         try { new PartResources(loadConfig({ DATA_DIR: ${JSON.stringify(dataDir)} }), { info() {}, warn() {}, child() { return this; } }); console.log('took it'); }
         catch (error) { console.log(error.message); }
       })`,
    ],
    { cwd: path.resolve(import.meta.dirname, '../..'), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise((resolve) => child.once('exit', resolve));
  expect(output).toMatch(new RegExp(`another tapeline process \\(pid ${process.pid}\\) is running on`));
  expect(output).not.toContain('took it');
  await first.close();
  expect(fs.existsSync(path.join(dataDir, LOCK_FILE))).toBe(false);
  const again = new PartResources(config, silent);
  await again.close();
}, 60_000);

test('a lock naming a dead process is taken over', () => {
  const dataDir = folder();
  const dead = spawnSyncPid();
  fs.writeFileSync(path.join(dataDir, LOCK_FILE), JSON.stringify({ pid: dead, role: 'service', started_at: '2026-01-01T00:00:00Z' }));
  const lock = acquireDataDirLock(dataDir, 'service');
  expect(JSON.parse(fs.readFileSync(lock.file, 'utf8'))).toMatchObject({ pid: process.pid, role: 'service' });
  lock.release();
});

test('a live backfill holding the folder is explained to the service', () => {
  const dataDir = folder();
  fs.writeFileSync(
    path.join(dataDir, LOCK_FILE),
    JSON.stringify({ pid: process.ppid, role: 'backfill', started_at: '2026-01-01T00:00:00Z' }),
  );
  expect(() => new PartResources(loadConfig({ DATA_DIR: dataDir }), silent)).toThrow(/a backfill \(pid \d+\) is writing into/);
  expect(() => acquireDataDirLock(dataDir, 'admin')).toThrow(DataDirBusyError);
});

test('with Kafka, ClickHouse and PostgreSQL servers nothing embedded is in the folder: no lock is taken', async () => {
  const dataDir = folder();
  fs.writeFileSync(
    path.join(dataDir, LOCK_FILE),
    JSON.stringify({ pid: process.ppid, role: 'service', started_at: '2026-01-01T00:00:00Z' }),
  );
  const resources = new PartResources(
    loadConfig({
      DATA_DIR: dataDir,
      KAFKA_BROKERS: '127.0.0.1:1',
      SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1',
      CLICKHOUSE_URL: 'http://127.0.0.1:1',
      DATABASE_URL: 'postgres://127.0.0.1:1/x',
    }),
    silent,
  );
  await resources.close();
  expect(JSON.parse(fs.readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')).pid).toBe(process.ppid);
});

/** The pid of a process that has exited. */
function spawnSyncPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid;
}
