/**
 * Stopping a busy demo (issue 58: Ctrl-C took 31-74 s and once ended in a native abort). The demo runs
 * on a fresh data folder until it serves, then BUSY_SECONDS more (catching up its simulated history, indexing, the chain
 * follower and the jobs all at work), is sent SIGTERM, and timed to its exit; each part's stop time comes
 * from its `part stopped` log line. RUNS times. The baseline in the same run is a bare Node process that
 * loads the same TypeScript loader (tsx) and exits on SIGTERM. Writes bench/results/shutdown.json.
 *
 * CONTENDERS=n runs n busy loops beside the demo, as a CI machine running other tests is loaded; with
 * BUSY_SECONDS past 180 the stop meets the demo's second copy-picks run (COPY_PICKS_INTERVAL_MS), the
 * longest job. Writes bench/results/shutdown-contended.json then.
 *
 * BUSY_SECONDS=a-b spreads the runs' stops evenly over a..b seconds, so they meet the demo at different
 * moments (catch-up, jobs, idle) rather than one; the p99 is over all runs (issue 58: 20 stops).
 *
 *   BUSY_SECONDS=200 RUNS=2 CONTENDERS=2 npx tsx bench/shutdown.bench.ts
 *   BUSY_SECONDS=10-120 RUNS=20 CONTENDERS=2 npx tsx bench/shutdown.bench.ts
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/support/processes.js';
import { emptyStopLines, readStopLine, type StopLines } from './stop-lines.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const [BUSY_FROM, BUSY_TO] = (process.env.BUSY_SECONDS ?? '60').split('-').map(Number) as [number, number?];
const RUNS = Number(process.env.RUNS ?? 3);
/** Busy seconds of run `run` (0-based): evenly from BUSY_FROM to BUSY_TO, or BUSY_FROM for all. */
const busySecondsOf = (run: number) =>
  BUSY_TO === undefined || RUNS === 1 ? BUSY_FROM : BUSY_FROM + ((BUSY_TO - BUSY_FROM) * run) / (RUNS - 1);
const GOAL_MS = 5_000;
const CONTENDERS = Number(process.env.CONTENDERS ?? 0);

interface Stop {
  sigterm_to_exit_ms: number;
  exit_code: number | null;
  exit_signal: string | null;
  parts_ms: StopLines['parts_ms'];
  stores_closed_ms: StopLines['stores_closed_ms'];
  sink_steps_ms: StopLines['sink_steps_ms'];
  stopped_ms: StopLines['stopped_ms'];
  /** SIGTERM to exit less the service's own stop: the process's exit (native teardown, reaping). */
  exit_after_stopped_ms: number | null;
  busy_seconds: number;
  stderr_tail: string;
}

/**
 * Starts `args` under node with tsx, waits for the log line `ready` (none: at once), lets it run `busyMs`
 * more, stops it with SIGTERM and times the exit.
 */
async function stopAfter(args: string[], env: NodeJS.ProcessEnv, busyMs: number, ready?: string): Promise<Stop> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const started = Date.now();
  while (ready && !stdout.includes(`"msg":"${ready}"`)) {
    if (child.exitCode !== null || Date.now() - started > 300_000) throw new Error(`not ${ready}: ${stderr.slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await new Promise((resolve) => setTimeout(resolve, busyMs));
  if (child.exitCode !== null) throw new Error(`exited early (${child.exitCode}): ${stderr.slice(-2000)}`);
  const stopped = Date.now();
  child.kill('SIGTERM');
  const { code, signal } = await exit;
  const took = Date.now() - stopped;
  const stop = emptyStopLines();
  for (const text of stdout.split('\n')) readStopLine(text, stop);
  return {
    sigterm_to_exit_ms: took,
    exit_code: code,
    exit_signal: signal,
    ...stop,
    exit_after_stopped_ms: stop.stopped_ms === null ? null : took - stop.stopped_ms,
    busy_seconds: Math.round(busyMs / 1000),
    stderr_tail: stderr.slice(-600),
  };
}

const contenders = Array.from({ length: CONTENDERS }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
// A run that throws must not leave busy loops behind.
process.on('exit', () => {
  for (const contender of contenders) contender.kill('SIGKILL');
});
const baseline = await stopAfter(['-e', 'setInterval(() => {}, 1000); process.on("SIGTERM", () => process.exit(0));'], process.env, 2_000);
const runs: Stop[] = [];
for (let run = 0; run < RUNS; run++) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-shutdown-'));
  runs.push(
    await stopAfter(
      ['services/demo.ts'],
      { ...process.env, DATA_DIR: dataDir, PORT: String(await freePort()), ADMIN_PORT: String(await freePort()), LOG_PRETTY: 'false' },
      busySecondsOf(run) * 1000,
      'tapeline is serving',
    ),
  );
  fs.rmSync(dataDir, { recursive: true, force: true });
}
// Explicitly: a run that ended without the exit event (a wrapper killed) left them spinning for minutes.
for (const contender of contenders) contender.kill('SIGKILL');
const times = runs.map((r) => r.sigterm_to_exit_ms).sort((a, b) => a - b);
const result = {
  bench: 'shutdown',
  busy_seconds: process.env.BUSY_SECONDS ?? '60',
  contenders: CONTENDERS,
  goal_ms: GOAL_MS,
  baseline_node_tsx: baseline,
  demo: runs,
  demo_median_ms: times[Math.floor(times.length / 2)],
  demo_max_ms: times.at(-1),
  /** Nearest rank: with 20 runs or fewer, the slowest stop. */
  demo_p99_ms: times[Math.ceil(0.99 * times.length) - 1],
  over_goal: times.filter((ms) => ms > GOAL_MS).length,
  ratio_median_to_baseline: Math.round((times[Math.floor(times.length / 2)]! / Math.max(1, baseline.sigterm_to_exit_ms)) * 10) / 10,
  clean_exits: runs.filter((r) => r.exit_code === 0).length,
  node: process.version,
  cores: os.cpus().length,
  load_average_1m: Math.round(os.loadavg()[0]! * 10) / 10,
  at: new Date().toISOString(),
};
fs.writeFileSync(
  path.join(here, 'results', CONTENDERS > 0 ? 'shutdown-contended.json' : 'shutdown.json'),
  `${JSON.stringify(result, null, 2)}\n`,
);
console.log(JSON.stringify(result, null, 2));
