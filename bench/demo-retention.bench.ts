/**
 * The file event log's retention on a running demo (issue 59, M3 proof): `npm run demo` on a fresh data
 * folder with small segments and a small per-partition retention, for DURATION_SECONDS; every 10 s
 * `/v1/health` gives the log's disk use, what retention deleted and the records any consumer group lost.
 * The bound is what retention allows when every group keeps up: per partition the retention plus the
 * segment being written and one being read. Writes bench/results/demo-retention.json.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/support/processes.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const DURATION_SECONDS = Number(process.env.DURATION_SECONDS ?? 600);
const SEGMENT_BYTES = 1024 * 1024;
const RETENTION_BYTES = 2 * 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The log's partitions and bytes as the file system holds them (independent of what /v1/health says). */
function onDisk(logDir: string) {
  const topicsDir = path.join(logDir, 'topics');
  let partitions = 0;
  let bytes = 0;
  for (const topic of fs.existsSync(topicsDir) ? fs.readdirSync(topicsDir) : []) {
    const numbers = new Set<string>();
    for (const file of fs.readdirSync(path.join(topicsDir, topic))) {
      const match = /^(\d+)(?:\.\d+)?\.log$/.exec(file);
      if (!match) continue;
      numbers.add(match[1]!);
      bytes += fs.statSync(path.join(topicsDir, topic, file)).size;
    }
    partitions += numbers.size;
  }
  return { partitions, bytes };
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-demo-retention-'));
const port = await freePort();
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  PORT: String(port),
  ADMIN_PORT: String(await freePort()),
  LOG_LEVEL: 'warn',
  SIM_HISTORY_HOURS: '6',
  EVENT_LOG_SEGMENT_BYTES: String(SEGMENT_BYTES),
  EVENT_LOG_RETENTION_BYTES: String(RETENTION_BYTES),
};
const demo: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'services/demo.ts'], { cwd: root, env, stdio: 'ignore' });
const started = Date.now();
try {
  while (!fs.existsSync(path.join(dataDir, 'admin.json'))) {
    if (Date.now() - started > 300_000) throw new Error('the demo did not start in 5 minutes');
    await sleep(1_000);
  }
  const created = spawnSync(process.execPath, ['--import', 'tsx', 'services/admin/cli.ts', 'keys', 'create', '--tier', '2'], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
  const key = (JSON.parse(created.stdout) as { api_key: string }).api_key;
  const samples: Array<{ at_s: number; bytes: number; disk_bytes: number; deleted_segments: number }> = [];
  let last: Record<string, unknown> = {};
  while (Date.now() - started < DURATION_SECONDS * 1000) {
    await sleep(10_000);
    const response = await fetch(`http://127.0.0.1:${port}/v1/health`, { headers: { authorization: `Bearer ${key}` } });
    if (!response.ok) continue;
    const log = ((await response.json()) as { data: { event_log: Record<string, unknown> | null } }).data.event_log;
    if (!log) continue;
    last = log;
    const disk = onDisk(path.join(dataDir, 'log'));
    samples.push({
      at_s: Math.round((Date.now() - started) / 1000),
      bytes: Number(log.bytes),
      disk_bytes: disk.bytes,
      deleted_segments: Number(log.deleted_segments),
    });
  }
  const { partitions } = onDisk(path.join(dataDir, 'log'));
  const bound = partitions * (RETENTION_BYTES + 2 * SEGMENT_BYTES);
  const maxBytes = Math.max(...samples.map((s) => Math.max(s.bytes, s.disk_bytes)));
  const lost = last.lost_records as Record<string, number> | undefined;
  const result = {
    bench: 'demo-retention',
    duration_seconds: DURATION_SECONDS,
    segment_bytes: SEGMENT_BYTES,
    retention_bytes_per_partition: RETENTION_BYTES,
    partitions,
    bound_bytes: bound,
    max_bytes: maxBytes,
    max_ratio_to_bound: Math.round((maxBytes / bound) * 1000) / 1000,
    final_bytes: samples.at(-1)?.bytes ?? null,
    deleted_segments: last.deleted_segments ?? null,
    lost_records_by_group: lost ?? null,
    lost_records: Object.values(lost ?? {}).reduce((sum, n) => sum + n, 0),
    samples: samples.length,
    node: process.version,
    load_average_1m: Math.round(os.loadavg()[0]! * 10) / 10,
    at: new Date().toISOString(),
  };
  fs.writeFileSync(path.join(here, 'results', 'demo-retention.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
} finally {
  demo.kill('SIGTERM');
  await new Promise((resolve) => demo.once('exit', resolve));
  fs.rmSync(dataDir, { recursive: true, force: true });
}
