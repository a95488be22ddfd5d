/**
 * `npm run backfill` as a person runs it, against a simulator process whose tape is static:
 * killed with SIGKILL part-way, rerun (it resumes from its checkpoint), then rerun again once
 * finished; ClickHouse then holds exactly the simulator's trades in the range once each, and every
 * price-history point of every outcome token. While the service runs on the data folder, the
 * command refuses and says why.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { normalizeGammaMarket } from '../../services/ingest/normalize-market.js';
import { normalizeDataTrade } from '../../services/ingest/normalize-trade.js';
import { freePort, REPO_ROOT, startChild, type Child, simulatorUpstreams } from '../support/processes.js';

const children: Child[] = [];
const dataDirs: string[] = [];
afterAll(async () => {
  for (const child of children) await child.kill('SIGKILL');
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A run that has not ended by then is killed and says so in its stderr, so a stall fails as itself. */
const RUN_DEADLINE_MS = 150_000;

interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function upstreamEnv(simulatorBase: string, dataDir: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATA_DIR: dataDir,
    ...simulatorUpstreams(simulatorBase),
    LOG_PRETTY: 'false',
  };
}

/** Runs the CLI; `killWhen` sees stderr as it grows and may ask for a SIGKILL. */
function runBackfill(args: string[], env: Record<string, string>, killWhen?: (stderr: string) => boolean): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'services/backfill/cli.ts', ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const deadline = setTimeout(() => {
      stderr += `\n[the test killed this run after ${RUN_DEADLINE_MS} ms]`;
      child.kill('SIGKILL');
    }, RUN_DEADLINE_MS);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (killWhen?.(stderr)) child.kill('SIGKILL');
    });
    child.once('exit', (code, signal) => {
      clearTimeout(deadline);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

function queryChdb(dataDir: string, sql: string): Promise<any[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'test/support/chdb-query.ts', dataDir, sql],
      { cwd: REPO_ROOT },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout))),
    );
  });
}

async function getJson<T>(url: string): Promise<T> {
  return (await (await fetch(url)).json()) as T;
}

/** What the backfill should produce, read from the simulator directly. */
async function upstreamTruth(base: string, fromMs: number, toMs: number, fidelity: number) {
  const markets = (await getJson<unknown[]>(`${base}/gamma/markets?closed=false&limit=500`))
    .map((raw) => normalizeGammaMarket(raw, 'simulator', 0))
    .flatMap((r) => (r.ok && r.value.status === 'active' ? [r.value] : []));
  const tradeIds = new Set<string>();
  let historyPoints = 0;
  for (const market of markets) {
    for (let offset = 0; ; offset += 500) {
      const page = await getJson<unknown[]>(`${base}/data/trades?takerOnly=true&market=${market.market_id}&limit=500&offset=${offset}`);
      for (const row of page) {
        const trade = normalizeDataTrade(row, 'simulator', 0);
        if (trade.ok && trade.value.timestamp_ms >= fromMs && trade.value.timestamp_ms <= toMs) tradeIds.add(trade.value.event_id);
      }
      if (page.length < 500) break;
    }
    for (const token of market.outcome_token_ids) {
      const { history } = await getJson<{ history: Array<{ t: number }> }>(
        `${base}/clob/prices-history?market=${token}&startTs=${Math.floor(fromMs / 1000)}&endTs=${Math.floor(toMs / 1000)}&fidelity=${fidelity}`,
      );
      historyPoints += history.filter((p) => p.t * 1000 >= fromMs && p.t * 1000 <= toMs).length;
    }
  }
  return { markets: markets.length, tradeIds, historyPoints };
}

test('interrupted, resumed and re-run: every upstream trade in the range exactly once, every price point, and no run beside the service', async () => {
  const simulator = startChild('simulator/main.ts', {
    SIM_PORT: '0',
    SIM_SEED: '21',
    SIM_MARKET_COUNT: '30',
    SIM_HISTORIC_TRADES: '4000',
    SIM_TRADES_PER_SECOND: '0',
  });
  children.push(simulator);
  const base = String((await simulator.waitForLog((l) => typeof l.baseUrl === 'string', 30_000)).baseUrl);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-e2e-backfill-'));
  dataDirs.push(dataDir);
  const env = upstreamEnv(base, dataDir);
  // A range that cuts the simulator's 48 h history in half, in whole seconds (the API's unit).
  const toMs = Math.floor(Date.now() / 1000) * 1000;
  const fromMs = toMs - 12 * 3_600_000;
  const args = ['--from', new Date(fromMs).toISOString(), '--to', new Date(toMs).toISOString()];
  const truth = await upstreamTruth(base, fromMs, toMs, 5);
  expect(truth.markets).toBeGreaterThan(10);
  expect(truth.tradeIds.size).toBeGreaterThan(300);

  // 1. A slow run (tight request budgets), killed -9 once a few markets are done.
  const marketsDone = (stderr: string) => Math.max(0, ...[...stderr.matchAll(/backfill: (\d+)\/\d+ markets/g)].map((m) => Number(m[1])));
  const killed = await runBackfill(
    args,
    { ...env, DATA_BUDGET_PER_10S: '3', CLOB_BUDGET_PER_10S: '6' },
    (stderr) => marketsDone(stderr) >= 3,
  );
  expect(killed.signal).toBe('SIGKILL');
  const checkpoint = JSON.parse(fs.readFileSync(path.join(dataDir, 'ingest', 'backfill-checkpoint.json'), 'utf8'));
  expect(checkpoint.next_market).toBeGreaterThanOrEqual(3);
  expect(checkpoint.next_market).toBeLessThan(truth.markets);

  // 2. The same command resumes where the checkpoint says and finishes (and indexes).
  const resumed = await runBackfill(args, env);
  expect({ code: resumed.code, tail: resumed.stderr.slice(-2000) }).toMatchObject({ code: 0 });
  expect(resumed.stderr).toContain(`resuming: ${checkpoint.next_market} of ${truth.markets} markets done`);
  expect(marketsDone(resumed.stderr)).toBe(truth.markets);
  // Plain progress lines (not a TTY) and a JSON summary on stdout.
  const summary = JSON.parse(resumed.stdout.trim());
  expect(summary).toMatchObject({ outcome: 'complete', markets: truth.markets, markets_done: truth.markets, capped_markets: 0 });

  // 3. Re-run once finished: a fresh pass over the same range, harmless.
  const again = await runBackfill(args, env);
  expect({ code: again.code, tail: again.stderr.slice(-2000) }).toMatchObject({ code: 0 });
  expect(again.stderr).not.toContain('resuming');
  expect(JSON.parse(again.stdout.trim())).toMatchObject({ outcome: 'complete', trades: truth.tradeIds.size, ticks: truth.historyPoints });

  // 4. Beside a running service on the same folder it refuses, saying why.
  const port = await freePort();
  const service = startChild('services/main.ts', { ...env, PORT: String(port), INGEST_ENABLED: 'false' });
  children.push(service);
  await service.waitForLog((l) => l.msg === 'tapeline is serving', 60_000);
  const refused = await runBackfill(args, env);
  expect({ code: refused.code, tail: refused.stderr.slice(-2000) }).toMatchObject({ code: 3 });
  expect(refused.stderr).toMatch(/tapeline service \(pid \d+.*\) is running on/);
  await service.kill('SIGTERM');

  // 5. ClickHouse: each upstream trade in the range once, and every price point of every token.
  const [trades] = await queryChdb(dataDir, 'SELECT count() AS n, uniqExact(trade_id) AS u, min(ts) AS first, max(ts) AS last FROM trades');
  expect(Number(trades.n)).toBe(truth.tradeIds.size);
  expect(Number(trades.u)).toBe(truth.tradeIds.size);
  const stored = await queryChdb(dataDir, 'SELECT trade_id FROM trades');
  expect(new Set(stored.map((r) => r.trade_id))).toEqual(truth.tradeIds);
  const [ticks] = await queryChdb(
    dataDir,
    "SELECT count() AS n FROM price_ticks FINAL WHERE kind = 'history' AND origin = 'prices-history'",
  );
  expect(Number(ticks.n)).toBe(truth.historyPoints);
  const [markets] = await queryChdb(dataDir, 'SELECT count() AS n FROM markets FINAL');
  expect(Number(markets.n)).toBe(truth.markets);
}, 240_000);
