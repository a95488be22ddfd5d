/** Child processes for end-to-end tests: the service and the simulator as real OS processes. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyAnalyticsTemplate } from './analytics-template.js';

/**
 * The scripts whose data directory holds the service's chDB store. Not the demo: it refuses a data
 * directory holding anything it did not write itself (services/shared/data-dir-guard.ts).
 */
const SERVICES = new Set(['services/main.ts']);

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** How long a child may take to stop after a signal before the test fails naming it. */
const STOP_DEADLINE_MS = 60_000;

export interface Child {
  process: ChildProcess;
  output: () => string;
  /** Resolves with the first parsed JSON log line matching `predicate`. */
  waitForLog(predicate: (line: Record<string, unknown>) => boolean, timeoutMs: number): Promise<Record<string, unknown>>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function startChild(script: string, env: Record<string, string>, args: string[] = []): Child {
  // The service on a new data directory first migrates an empty chDB store, seconds of a start; the
  // tests start it many times, so its store is copied from the migrated template instead and the
  // service finds every migration applied, as on any restart (the demos and the migration tests still
  // migrate empty stores).
  const chdb = env.DATA_DIR ? path.join(env.DATA_DIR, 'chdb') : null;
  if (SERVICES.has(script) && chdb && !env.CLICKHOUSE_URL && !fs.existsSync(chdb))
    copyAnalyticsTemplate(chdb, env.CLICKHOUSE_DATABASE || 'tapeline');
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_PRETTY: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Names the process in a failure, so a timeout among several children says which one stalled.
  const label = [script, ...args].join(' ');
  let output = '';
  const waiters: Array<{ predicate: (line: Record<string, unknown>) => boolean; resolve: (line: Record<string, unknown>) => void }> = [];
  let buffer = '';
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    buffer += chunk.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const text of lines) {
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text);
      } catch {
        continue;
      }
      for (const waiter of [...waiters]) {
        if (waiter.predicate(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  return {
    process: child,
    output: () => output,
    waitForLog(predicate, timeoutMs) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`${label}: timed out after ${timeoutMs} ms waiting for a log line; output so far:\n${output.slice(-3000)}`)),
          timeoutMs,
        );
        child.once('exit', (code) => reject(new Error(`${label}: exited (${code}) before the log line; output:\n${output.slice(-3000)}`)));
        waiters.push({
          predicate,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
      });
    },
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      // A process that does not stop is a failure that names it, not a test timeout.
      let timer: NodeJS.Timeout | undefined;
      const stalled = new Promise<'stalled'>((resolve) => {
        timer = setTimeout(() => resolve('stalled'), STOP_DEADLINE_MS);
      });
      const outcome = await Promise.race([exited, stalled]);
      clearTimeout(timer);
      if (outcome === 'stalled') {
        child.kill('SIGKILL');
        await exited;
        throw new Error(`${label}: did not stop within ${STOP_DEADLINE_MS} ms of ${signal}; output:\n${output.slice(-3000)}`);
      }
    },
  };
}

/** The Polymarket upstream settings that point a service at a simulator child process serving on `base`. */
export function simulatorUpstreams(base: string): Record<string, string> {
  return {
    POLYMARKET_GAMMA_URL: `${base}/gamma`,
    POLYMARKET_CLOB_URL: `${base}/clob`,
    POLYMARKET_DATA_URL: `${base}/data`,
    POLYMARKET_WS_URL: `${base.replace(/^http/, 'ws')}/ws/market`,
  };
}

/** Every upstream (and the chain) at `closed`, a loopback address nothing listens on: an offline start. */
export function closedUpstreams(closed: string): Record<string, string> {
  return {
    POLYMARKET_GAMMA_URL: closed,
    POLYMARKET_CLOB_URL: closed,
    POLYMARKET_DATA_URL: closed,
    POLYMARKET_WS_URL: closed.replace(/^http/, 'ws'),
    POLYGON_RPC_URL: closed,
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

/** Runs `npm run admin -- <args>` (as a person would) against the service on `dataDir`; returns its JSON output. */
export function runAdminCli(dataDir: string, args: string[], extraEnv: Record<string, string> = {}): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'services/admin/cli.ts', ...args],
      { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, ...extraEnv } },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`admin ${args.join(' ')} failed: ${stderr || error.message}`));
        resolve(JSON.parse(stdout));
      },
    );
  });
}
