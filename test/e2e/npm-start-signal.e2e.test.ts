/**
 * `npm start` stops on a SIGTERM sent to npm alone, as a supervisor (systemd's main PID, a container
 * runtime) sends it. npm hands the signal to its script's process; a script run through `sh -c` without
 * `exec` left that shell to die of it and the service running on, orphaned, holding its data folder's
 * lock. The service must log its stop, and nothing npm started may outlive it. Ctrl-C at a terminal
 * delivers SIGINT twice (to the foreground group, and forwarded by npm): one stop, stores closed.
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

afterEach(() => {
  if (npm?.pid && groupAlive(npm.pid)) process.kill(-npm.pid, 'SIGKILL');
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const waitUntil = async (condition: () => boolean, ms: number) => {
  for (const deadline = Date.now() + ms; Date.now() < deadline && !condition(); ) await new Promise((resolve) => setTimeout(resolve, 50));
  return condition();
};

/** `npm start` in its own process group (as a terminal's foreground job), serving with closed upstreams. */
async function startNpm(): Promise<{ npm: ChildProcess; output: () => string; exited: Promise<void> }> {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-e2e-npm-start-'));
  const closed = `http://127.0.0.1:${await freePort()}`;
  const port = await freePort();
  let output = '';
  // Its own process group, so the test can tell whether anything npm started is left, and clean up.
  const child = spawn('npm', ['start'], {
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
  npm = child;
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  expect(await waitUntil(() => output.includes('"msg":"tapeline is serving"'), 120_000)).toBe(true);
  // Serving, as a user sees it: the API answers (the stop handler is installed once the start returned).
  for (let answered = false; !answered; await new Promise((resolve) => setTimeout(resolve, 200)))
    answered = (await fetch(`http://127.0.0.1:${port}/v1/markets`).catch(() => null))?.status === 401;
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return { npm: child, output: () => output, exited };
}

test('SIGTERM to the npm process stops the service npm start runs, and nothing it started outlives it', async () => {
  const { npm, output, exited } = await startNpm();
  process.kill(npm.pid!, 'SIGTERM');
  await exited;
  // The service's own stop, not a process killed from outside: it logs it and exits.
  expect((await waitUntil(() => output().includes('"msg":"stopped; exiting"'), 20_000)) ? '' : output().slice(-3000)).toBe('');
  expect(await waitUntil(() => !groupAlive(npm.pid!), 20_000)).toBe(true);
}, 180_000);

test('Ctrl-C at the terminal stops it the same way, though the service gets SIGINT twice (from the terminal, and from npm)', async () => {
  const { npm, output } = await startNpm();
  // A terminal's Ctrl-C: SIGINT to every process of the foreground group; npm forwards its own to the script.
  process.kill(-npm.pid!, 'SIGINT');
  expect(await waitUntil(() => !groupAlive(npm.pid!), 30_000)).toBe(true);
  expect(output().match(/"msg":"stopping"/g)).toHaveLength(1);
  expect(output()).toContain('"msg":"stores closed"');
  expect(output()).toContain('"msg":"stopped; exiting"');
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

test('a signal a second or more after the first, while the stop still runs, exits at once (1); one sooner is the same request', async () => {
  // A service whose stop never finishes, so only the second signal can end it.
  const script = `
    import { startUntilSignal } from './services/stack.ts';
    import { createLogger } from './services/logger.ts';
    await startUntilSignal(async () => ({ stop: () => new Promise(() => {}) }), createLogger({ logLevel: 'info', logPretty: false }));
    setInterval(() => {}, 1_000); // a running service's event loop is never empty
    console.log('"msg":"ready"');`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  expect((await waitUntil(() => output.includes('"msg":"ready"'), 60_000)) ? '' : output).toBe('');
  child.kill('SIGINT');
  await new Promise((resolve) => setTimeout(resolve, 100));
  child.kill('SIGINT');
  // Still stopping 1.5 s after both.
  expect(await Promise.race([exit, new Promise((resolve) => setTimeout(() => resolve('running'), 1_500))])).toBe('running');
  child.kill('SIGINT');
  expect(await exit).toBe(1);
  expect(output.match(/"msg":"stopping"/g)).toHaveLength(1);
}, 90_000);
