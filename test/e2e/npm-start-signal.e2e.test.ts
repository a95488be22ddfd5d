/**
 * `npm start` stops on a SIGTERM sent to npm alone, as a supervisor (systemd's main PID, a container
 * runtime) sends it. npm hands the signal to its script's process; a script run through `sh -c` without
 * `exec` left that shell to die of it and the service running on, orphaned, holding its data folder's
 * lock. The service must log its stop, and nothing npm started may outlive it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closedUpstreams, freePort, REPO_ROOT } from '../support/processes.js';

let npm: ChildProcess | undefined;
let dataDir: string | undefined;

/** Whether any process of the group `pgid` is still alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

afterAll(() => {
  if (npm?.pid && groupAlive(npm.pid)) process.kill(-npm.pid, 'SIGKILL');
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const waitUntil = async (condition: () => boolean, ms: number) => {
  for (const deadline = Date.now() + ms; Date.now() < deadline && !condition(); ) await new Promise((resolve) => setTimeout(resolve, 50));
  return condition();
};

test('SIGTERM to the npm process stops the service npm start runs, and nothing it started outlives it', async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-e2e-npm-start-'));
  const closed = `http://127.0.0.1:${await freePort()}`;
  const port = await freePort();
  let output = '';
  // Its own process group, so the test can tell whether anything npm started is left, and clean up.
  npm = spawn('npm', ['start'], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LOG_PRETTY: 'false',
      DATA_DIR: dataDir,
      PORT: String(port),
      ADMIN_PORT: String(await freePort()),
      ...closedUpstreams(closed),
    },
  });
  npm.stdout!.on('data', (chunk) => (output += String(chunk)));
  npm.stderr!.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<void>((resolve) => npm!.once('exit', () => resolve()));
  expect(await waitUntil(() => output.includes('"msg":"tapeline is serving"'), 120_000)).toBe(true);
  // Serving, as a user sees it: the API answers (the stop handler is installed once the start returned).
  for (let answered = false; !answered; await new Promise((resolve) => setTimeout(resolve, 200)))
    answered = (await fetch(`http://127.0.0.1:${port}/v1/markets`).catch(() => null))?.status === 401;
  await new Promise((resolve) => setTimeout(resolve, 1_000));

  process.kill(npm.pid!, 'SIGTERM');
  await exited;
  // The service's own stop, not a process killed from outside: it logs it and exits.
  expect((await waitUntil(() => output.includes('"msg":"stopped; exiting"'), 20_000)) ? '' : output.slice(-3000)).toBe('');
  expect(await waitUntil(() => !groupAlive(npm!.pid!), 20_000)).toBe(true);
}, 180_000);

/** The service (services/main.ts) started in `env`, its output collected. */
function startService(env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/main.ts'], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  const exit = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { process: child, exit, output: () => output };
}

test('a SIGTERM while the service is still starting stops it the same way: what started is closed, and it exits 0', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-e2e-start-signal-'));
  try {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LOG_PRETTY: 'false',
      DATA_DIR: dir,
      PORT: String(await freePort()),
      ADMIN_PORT: String(await freePort()),
      ...closedUpstreams(closed),
    };
    const service = startService(env);
    // The first part has started; the others and the API have not.
    expect(await waitUntil(() => service.output().includes('"msg":"part started"'), 120_000)).toBe(true);
    service.process.kill('SIGTERM');
    expect(await service.exit).toEqual({ code: 0, signal: null });
    const output = service.output();
    expect(output).toContain('"msg":"stopping"');
    expect(output).toContain('"msg":"stores closed"');
    expect(output).toContain('"msg":"stopped; exiting"');
    expect(output).not.toContain('"msg":"tapeline is serving"');
    // Its folder is free again: the next start on it serves.
    const again = startService(env);
    const served = await waitUntil(() => again.output().includes('"msg":"tapeline is serving"'), 120_000);
    again.process.kill('SIGTERM');
    await again.exit;
    expect(served ? '' : again.output().slice(-3000)).toBe('');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 300_000);
