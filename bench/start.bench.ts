/**
 * Start time of `npm start` offline: from spawn to the `tapeline is serving` log line, on a fresh data
 * folder (the first start: PGlite's initdb, every migration of both stores) and on the same folder again
 * (a restart: nothing to create or migrate). Every upstream points at a closed loopback port, so nothing
 * leaves the machine. RUNS times each, alternating. The baseline in the same run is a bare Node process
 * that loads the same TypeScript loader (tsx) and exits; the service's figures are also given as ratios
 * to it. Writes bench/results/start.json (RESULT_NAME=start-<label> writes another file, e.g. to keep a
 * run of an earlier commit beside this one).
 *
 *   RUNS=5 npm run bench:start
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/support/processes.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const RUNS = Number(process.env.RUNS ?? 5);
const RESULT_NAME = process.env.RESULT_NAME ?? 'start';
const OFFLINE = {
  POLYMARKET_GAMMA_URL: 'http://127.0.0.1:1',
  POLYMARKET_CLOB_URL: 'http://127.0.0.1:1',
  POLYMARKET_DATA_URL: 'http://127.0.0.1:1',
  POLYMARKET_WS_URL: 'ws://127.0.0.1:1',
  POLYGON_RPC_URL: 'http://127.0.0.1:1',
};

/** Milliseconds from spawning `args` under node with tsx until a stdout line contains `ready` (then SIGTERM), or until it exits. */
async function timeUntil(args: string[], env: NodeJS.ProcessEnv, ready: string | null): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  if (ready === null) {
    await exited;
    return performance.now() - started;
  }
  let buffered = '';
  const readyAt = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      buffered += String(chunk);
      if (buffered.includes(ready)) resolve(performance.now() - started);
    });
    exited.then((code) => reject(new Error(`exited (${code}) before serving: ${stderr.slice(-1500)}`)));
  });
  child.kill('SIGTERM');
  await exited;
  return readyAt;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const baseline: number[] = [];
const fresh: number[] = [];
const restart: number[] = [];
for (let run = 0; run < RUNS; run++) {
  baseline.push(await timeUntil(['-e', ''], process.env, null));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-start-bench-'));
  const port = await freePort();
  const env = {
    ...process.env,
    ...OFFLINE,
    DATA_DIR: dataDir,
    PORT: String(port),
    ADMIN_PORT: String(await freePort()),
    LOG_PRETTY: 'false',
  };
  fresh.push(await timeUntil(['services/main.ts'], env, 'tapeline is serving'));
  restart.push(await timeUntil(['services/main.ts'], env, 'tapeline is serving'));
  fs.rmSync(dataDir, { recursive: true, force: true });
  console.log(
    `run ${run + 1}: baseline ${Math.round(baseline.at(-1)!)} ms, fresh ${Math.round(fresh.at(-1)!)} ms, restart ${Math.round(restart.at(-1)!)} ms`,
  );
}

const summary = (values: number[]) => ({
  median_ms: Math.round(median(values)),
  runs_ms: values.map(Math.round),
  ratio_to_baseline: Number((median(values) / median(baseline)).toFixed(1)),
});
const result = {
  bench: 'start',
  what: "npm start offline (every upstream a closed loopback port): spawn to the 'tapeline is serving' line",
  runs: RUNS,
  commit: process.env.BENCH_COMMIT ?? null,
  baseline_node_tsx: { median_ms: Math.round(median(baseline)), runs_ms: baseline.map(Math.round) },
  fresh_data_dir: summary(fresh),
  restart: summary(restart),
  node: process.version,
  cores: os.cpus().length,
  load_average_1m: os.loadavg()[0]!.toFixed(2),
  at: new Date().toISOString(),
};
fs.mkdirSync(path.join(root, 'bench/results'), { recursive: true });
fs.writeFileSync(path.join(root, `bench/results/${RESULT_NAME}.json`), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
