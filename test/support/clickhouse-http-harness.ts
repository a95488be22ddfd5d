/**
 * TEST-ONLY. Starts test/support/clickhouse-http-harness-server.ts (ClickHouse's HTTP interface
 * backed by chDB) as a child process, so a ClickHouse "server" lives outside the test process as a
 * real one would, and can be restarted on the same data folder or told to fail inserts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './processes.js';

export interface ClickHouseHttpHarness {
  url: string;
  port: number;
  /** The next `count` INSERTs fail: 'before' touching the table, or 'after' the rows landed. */
  failInserts(count: number, mode?: 'before' | 'after'): Promise<void>;
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

const SERVER_SCRIPT = path.join(REPO_ROOT, 'test/support/clickhouse-http-harness-server.ts');

export async function startClickHouseHttpHarness(dataDir: string, port = 0): Promise<ClickHouseHttpHarness> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', SERVER_SCRIPT, dataDir, String(port)], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`ClickHouse HTTP harness did not start:\n${output}`)), 60_000);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /\{"listening":(\d+)\}/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`ClickHouse HTTP harness exited (${code}):\n${output}`));
    });
  });
  const url = `http://127.0.0.1:${listening}`;
  return {
    url,
    port: listening,
    async failInserts(count, mode = 'before') {
      const response = await fetch(`${url}/__harness/faults`, { method: 'POST', body: JSON.stringify({ failInserts: count, mode }) });
      if (!response.ok) throw new Error(`harness fault injection failed: ${response.status}`);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
