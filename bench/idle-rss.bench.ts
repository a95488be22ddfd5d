/**
 * Idle memory and shutdown of `npm start` offline (issue 58: goals <= 500 MB resident, <= 5 s from
 * SIGTERM to exit). The service runs on a fresh data folder with every upstream pointed at a closed
 * loopback port (nothing leaves the machine), is left idle for IDLE_SECONDS, its resident set read from
 * /proc, then stopped with SIGTERM and timed; then the same again on the now-existing folder (a
 * restart). The baseline in the same run is a bare Node process that loads the same TypeScript loader
 * (tsx) and waits: the service's figures are reported as MB above it and as a ratio to the goal.
 * Writes bench/results/idle-rss.json.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/support/processes.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 45);
const GOAL_MB = 500;

const rssMb = (pid: number) => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024);
};

/** Runs `args` under node with tsx, idles, reads its RSS, stops it with SIGTERM; resolves the figures. */
async function measure(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  if (child.exitCode !== null) throw new Error(`exited early (${child.exitCode}): ${stderr.slice(-2000)}`);
  const rss = rssMb(child.pid!);
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
  node: process.version,
  cores: os.cpus().length,
  load_average_1m: Math.round(os.loadavg()[0]! * 10) / 10,
  at: new Date().toISOString(),
};
fs.writeFileSync(path.join(here, 'results', 'idle-rss.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
