/**
 * Everything the service writes under DATA_DIR is the owner's alone (issue 59, low): the composition
 * creates the folder 0700 and every file and folder in it owner-only (the event log's segments and
 * offsets, the chDB store, checkpoints, admin.json), an existing folder open to others is tightened
 * and said so, and the admin CLI, opening the control store itself, does the same. PGlite gives its
 * files 0666 whatever the umask, so its folder, 0700, is what keeps them private.
 *
 * Each case starts from the umask a login shell usually has (022), under which the folders and files
 * were created group- and world-readable before.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../services/config.js';
import { PartResources } from '../../services/parts/resources.js';
import { simulatorUpstreamEnv, startSimulator } from '../../simulator/server.js';
import { startStack } from '../../services/stack.js';
import { getJson, postJson, waitFor } from '../support/http.js';
import { runAdminCli } from '../support/processes.js';

const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-privacy-'));
const initialUmask = process.umask(0o022);
beforeEach(() => {
  process.umask(0o022);
});
afterAll(() => {
  process.umask(initialUmask);
  fs.rmSync(parent, { recursive: true, force: true });
});

/** Every path under `root` (symbolic links skipped: their mode means nothing) whose mode lets group or others in. */
function openToOthers(root: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    const stat = fs.lstatSync(at);
    if (stat.isSymbolicLink()) return;
    if (stat.mode & 0o077) found.push(`${(stat.mode & 0o777).toString(8)} ${path.relative(root, at) || '.'}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(at)) walk(path.join(at, name));
  };
  walk(root);
  return found;
}

const mode = (at: string) => (fs.statSync(at).mode & 0o777).toString(8);
const outsideControlStore = (entries: string[]) => entries.filter((entry) => !/^\d+ pglite\//.test(entry));

test('the whole service on a new folder: no path it wrote is open to group or others', async () => {
  const dataDir = path.join(parent, 'fresh', 'data');
  const frozen = Date.now();
  const simulator = await startSimulator({
    port: 0,
    seed: 5,
    marketCount: 5,
    walletCount: 5,
    historicTrades: 200,
    historyHours: 6,
    clock: () => frozen,
  });
  const stack = await startStack(
    loadConfig({
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'silent',
      ...simulatorUpstreamEnv(simulator),
      MARKETS_POLL_INTERVAL_MS: '1000',
      TRADES_POLL_INTERVAL_MS: '500',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    }),
    pino({ level: 'silent' }),
  );
  try {
    const key = (await runAdminCli(dataDir, ['keys', 'create', '--tier', '2'])).api_key as string;
    // Records through the log into chDB, and a webhook secret into the control store.
    await waitFor(async () => (await getJson(`${stack.url}/v1/health`, key)).body.data?.counts.trades > 0, 90_000, 'trades indexed');
    const hook = await postJson(
      `${stack.url}/v1/webhooks`,
      { url: 'http://127.0.0.1:9/hook', events: ['trade.executed'] },
      { apiKey: key },
    );
    expect(hook.status).toBe(201);
  } finally {
    await stack.stop();
    await simulator.close();
  }
  // What the service wrote: the log's segments and offsets, chDB's parts, ingest checkpoints, admin.json.
  for (const written of ['log/topics', 'log/groups', 'chdb', 'ingest', 'admin.json', 'pglite']) {
    expect(fs.existsSync(path.join(dataDir, written))).toBe(true);
  }
  expect(mode(dataDir)).toBe('700');
  expect(mode(path.join(dataDir, 'pglite'))).toBe('700');
  expect(outsideControlStore(openToOthers(dataDir))).toEqual([]);
}, 180_000);

test('an existing folder open to others is made owner-only, and the log says so once', async () => {
  const dataDir = path.join(parent, 'existing');
  fs.mkdirSync(dataDir);
  fs.chmodSync(dataDir, 0o755);
  const warnings: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line).msg) });
  const resources = new PartResources(loadConfig({ DATA_DIR: dataDir }), logger);
  await resources.close();
  expect(mode(dataDir)).toBe('700');
  expect(warnings).toEqual(['DATA_DIR was open to group or others: made it owner-only']);
  // Already private: nothing to say.
  await new PartResources(loadConfig({ DATA_DIR: dataDir }), logger).close();
  expect(warnings).toHaveLength(1);
});

test('the admin CLI on a new folder (opening the control store itself) leaves nothing open to others outside PGlite', async () => {
  const dataDir = path.join(parent, 'admin', 'data');
  await runAdminCli(dataDir, ['keys', 'create', '--tier', '1']);
  expect(mode(dataDir)).toBe('700');
  expect(mode(path.join(dataDir, 'pglite'))).toBe('700');
  expect(outsideControlStore(openToOthers(dataDir))).toEqual([]);
}, 60_000);
