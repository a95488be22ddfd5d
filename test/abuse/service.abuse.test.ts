/**
 * Abuse suite against the demo (the whole service as a child process, on loopback only, bounded in
 * count and time): 10,000 registrations, 100,000 cache-busting URLs, 1,000 concurrent slow queries
 * and 1,000 webhook subscriptions to a hanging receiver. Throughout, a control client on its own key
 * and address keeps reading; the service must keep answering it (p99 within 3x of its idle p99), its
 * RSS must stay bounded, and no response may be a 5xx. The floods run in their own process
 * (test/abuse/abuse-scenario.ts), which prints the report checked here.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../support/processes.js';

const P99_FACTOR = 3;
const RSS_GROWTH_MB = 400;

test('abuse: the service keeps answering other keys, memory stays bounded, no 5xx', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'test/abuse/abuse-scenario.ts')], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).toBe(0);
  const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as any;
  console.log(JSON.stringify(report, null, 2));

  expect(report.attack_5xx).toEqual([]);
  expect(report.control_5xx).toBe(0);
  expect(report.control_non_200).toBe(0);
  const phases = ['registrations', 'cache-busting', 'slow-queries', 'webhooks'];
  for (const name of ['idle', ...phases]) expect(report.control[name].samples).toBeGreaterThan(20);
  expect(Number.isFinite(report.idle_p99_ms)).toBe(true);
  for (const name of phases) expect(report.control[name].p99_ms).toBeLessThanOrEqual(P99_FACTOR * report.idle_p99_ms);
  // Registrations: at most ten per address per hour got through (eight addresses).
  expect(report.attack_statuses.registrations['201'] ?? 0).toBeLessThanOrEqual(80);
  // The read cache stayed within its bounds; no phase grew the process far beyond its idle footprint.
  expect(report.read_cache.entries).toBeLessThanOrEqual(5_000);
  expect(report.read_cache.bytes).toBeLessThanOrEqual(64 * 1024 * 1024);
  for (const name of phases) expect(report.rss_mb_max[name]).toBeLessThanOrEqual(report.rss_mb_max.idle + RSS_GROWTH_MB);
  // The webhook flood did not stop the control account's deliveries.
  expect(report.webhooks.control_deliveries_during).toBeGreaterThan(0);
}, 900_000);
