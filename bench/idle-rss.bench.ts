/**
 * Idle memory and shutdown of `npm start` offline (issue 58: goals <= 500 MB resident, <= 5 s from
 * SIGTERM to exit). The service runs on a fresh data folder with every upstream pointed at a closed
 * loopback port (nothing leaves the machine), is left idle for IDLE_SECONDS, its resident set read from
 * /proc, then stopped with SIGTERM and timed; then the same again on the now-existing folder (a
 * restart). The baseline in the same run is a bare Node process that loads the same TypeScript loader
 * (tsx) and waits: the service's figures are reported as MB above it and as a ratio to the goal.
 * DEMO_MINUTES=n (default 10; 0 skips it) also runs the demo (`services/demo.ts`, simulated Polymarket and
 * chain on loopback) on a fresh folder for n minutes and samples its RSS each minute, with who holds
 * it (V8's heap, external memory, the analytics engine's tracked total, from its /metrics): the issue's
 * second goal, the demo's resident set after 10 minutes of catching up and serving.
 * Writes bench/results/idle-rss.json.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/support/processes.js';
import { emptyStopLines, readStopLine } from './stop-lines.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 45);
const GOAL_MB = 500;
const DEMO_MINUTES = Number(process.env.DEMO_MINUTES ?? 10);

/** A memory field of /proc/<pid>/status (VmRSS; RssAnon: heaps, V8's, chDB's, PGlite's WASM memory; RssFile: mapped libraries), in MB. */
const statusMb = (pid: number, field = 'VmRSS') => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) / 1024);
};

/** Runs `args` under node with tsx, idles, reads its RSS, stops it with SIGTERM; resolves the figures. */
async function measure(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  if (child.exitCode !== null) throw new Error(`exited early (${child.exitCode}): ${stderr.slice(-2000)}`);
  const rss = statusMb(child.pid!);
  const stopped = Date.now();
  const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  child.kill('SIGTERM');
  const { code, signal } = await exit;
  return { rss_mb: rss, sigterm_to_exit_ms: Date.now() - stopped, exit_code: code, exit_signal: signal, stderr_tail: stderr.slice(-600) };
}

const baseline = await measure(['-e', 'setInterval(() => {}, 1000); process.on("SIGTERM", () => process.exit(0));'], process.env);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-idle-rss-'));
const closed = `http://127.0.0.1:${await freePort()}`;
const serviceEnv = async () => ({
  ...process.env,
  DATA_DIR: dataDir,
  PORT: String(await freePort()),
  ADMIN_PORT: String(await freePort()),
  LOG_LEVEL: 'warn',
  POLYMARKET_GAMMA_URL: closed,
  POLYMARKET_CLOB_URL: closed,
  POLYMARKET_DATA_URL: closed,
  POLYMARKET_WS_URL: closed.replace('http', 'ws'),
  POLYGON_RPC_URL: closed,
});
const fresh = await measure(['services/main.ts'], await serviceEnv());
const restarted = await measure(['services/main.ts'], await serviceEnv());
fs.rmSync(dataDir, { recursive: true, force: true });

/** The demo's RSS once a minute for `minutes`, then its SIGTERM-to-exit time. */
async function demoRss(minutes: number) {
  const demoDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-idle-rss-demo-'));
  const adminPort = await freePort();
  const env = {
    ...process.env,
    DATA_DIR: demoDir,
    PORT: String(await freePort()),
    ADMIN_PORT: String(adminPort),
    LOG_PRETTY: 'false',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/demo.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  // Only the stop's lines are kept (each part's time, the sink part's steps), so a slow stop says where.
  const stop = emptyStopLines();
  let pending = '';
  child.stdout.on('data', (chunk) => {
    const lines = (pending + String(chunk)).split('\n');
    pending = lines.pop() ?? '';
    for (const text of lines) if (text.includes('stopped') || text.includes('stores closed')) readStopLine(text, stop);
  });
  const samples: Array<{ minute: number; rss_mb: number; anon_mb: number; file_mb: number } & Partial<Record<string, number>>> = [];
  for (let minute = 1; minute <= minutes; minute++) {
    await new Promise((resolve) => setTimeout(resolve, 60_000));
    if (child.exitCode !== null) throw new Error(`demo exited early (${child.exitCode}): ${stderr.slice(-2000)}`);
    const pid = child.pid!;
    samples.push({
      minute,
      rss_mb: statusMb(pid),
      anon_mb: statusMb(pid, 'RssAnon'),
      file_mb: statusMb(pid, 'RssFile'),
      ...(await memoryFigures(adminPort)),
    });
  }
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const stopped = Date.now();
  child.kill('SIGTERM');
  const code = await exit;
  const took = Date.now() - stopped;
  fs.rmSync(demoDir, { recursive: true, force: true });
  const last = samples.at(-1)!.rss_mb;
  return {
    minutes,
    samples,
    rss_mb: last,
    max_rss_mb: Math.max(...samples.map((sample) => sample.rss_mb)),
    ratio_to_goal: Math.round((last / GOAL_MB) * 100) / 100,
    sigterm_to_exit_ms: took,
    stop_ms: stop,
    exit_after_stopped_ms: stop.stopped_ms === null ? null : took - stop.stopped_ms,
    exit_code: code,
  };
}
/**
 * Who holds the demo's anonymous memory, from its operator /metrics: V8's heap (total and used),
 * memory outside it (external: Buffers and the embedded control store's WASM memory) and the
 * analytics engine's own accounting (tracked), in MB. What none of them covers is native memory
 * no one tracks (allocator arenas, thread stacks).
 */
async function memoryFigures(adminPort: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${adminPort}/metrics`)).text();
  const mb = (pattern: RegExp) => Math.round(Number(pattern.exec(text)?.[1] ?? Number.NaN) / 1_048_576);
  return {
    v8_heap_total_mb: mb(/^tapeline_process_memory_bytes\{figure="heap_total"\} (\S+)$/m),
    v8_heap_used_mb: mb(/^tapeline_process_memory_bytes\{figure="heap_used"\} (\S+)$/m),
    external_mb: mb(/^tapeline_process_memory_bytes\{figure="external"\} (\S+)$/m),
    engine_tracked_mb: mb(/^tapeline_analytics_engine_memory_bytes\{figure="tracked"\} (\S+)$/m),
  };
}

const demo = DEMO_MINUTES > 0 ? await demoRss(DEMO_MINUTES) : null;

const figures = (m: typeof fresh) => ({
  ...m,
  above_baseline_mb: m.rss_mb - baseline.rss_mb,
  ratio_to_goal: Math.round((m.rss_mb / GOAL_MB) * 100) / 100,
});
const result = {
  bench: 'idle-rss',
  idle_seconds: IDLE_SECONDS,
  goal_mb: GOAL_MB,
  baseline_node_tsx: baseline,
  offline_fresh_data_dir: figures(fresh),
  offline_restart: figures(restarted),
  demo_after_minutes: demo,
  node: process.version,
  cores: os.cpus().length,
  load_average_1m: Math.round(os.loadavg()[0]! * 10) / 10,
  at: new Date().toISOString(),
};
const resultsFile = path.join(here, 'results', 'idle-rss.json');
// Earlier runs kept for comparison (`before_<change>` entries) stay in the file.
const earlier = fs.existsSync(resultsFile)
  ? Object.fromEntries(
      Object.entries(JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as object).filter(([key]) => key.startsWith('before_')),
    )
  : {};
fs.writeFileSync(resultsFile, `${JSON.stringify({ ...result, ...earlier }, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
