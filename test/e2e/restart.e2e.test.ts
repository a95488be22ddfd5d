/**
 * kill -9 and restart: the service runs as a child process against a simulator child process whose
 * feed is static (no live trades). Killed mid-ingestion it loses nothing; killed when quiet, every
 * count and every page the API reports is identical after the restart. Keys survive too.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { upstreamTradeIds } from '../support/upstream-truth.js';
import { getJson, postJson, waitFor, walkPages } from '../support/http.js';
import { freePort, runAdminCli, startChild, type Child, simulatorUpstreams } from '../support/processes.js';

const children: Child[] = [];
afterAll(async () => {
  for (const child of children) await child.kill('SIGKILL');
});

async function startSimulatorProcess() {
  const simulator = startChild('simulator/main.ts', {
    SIM_PORT: '0',
    SIM_SEED: '21',
    SIM_MARKET_COUNT: '80',
    SIM_HISTORIC_TRADES: '6000',
    SIM_TRADES_PER_SECOND: '0',
  });
  children.push(simulator);
  const line = await simulator.waitForLog((l) => typeof l.baseUrl === 'string', 30_000);
  return String(line.baseUrl);
}

async function startService(dataDir: string, port: number, simulatorBase: string) {
  const service = startChild('services/main.ts', {
    DATA_DIR: dataDir,
    PORT: String(port),
    ...simulatorUpstreams(simulatorBase),
    TRADES_POLL_INTERVAL_MS: '300',
    MARKETS_POLL_INTERVAL_MS: '2000',
    TRADES_BACKFILL_MARKETS: '0',
  });
  children.push(service);
  await service.waitForLog((l) => l.msg === 'tapeline is serving', 60_000);
  return service;
}

async function snapshot(base: string, key: string) {
  const health = await getJson(`${base}/v1/health`, key);
  const trades = await walkPages(`${base}/v1/trades?limit=500`, key);
  const markets = await walkPages(`${base}/v1/markets?status=all&sort=volume&limit=100`, key);
  return {
    counts: health.body.data.counts,
    tradeIds: trades.items.map((t: any) => t.trade_id),
    marketIds: markets.items.map((m: any) => m.id).sort(),
  };
}

test('kill -9 mid-ingestion and when quiet: nothing lost, nothing doubled, identical counts after restart', async () => {
  const simulatorBase = await startSimulatorProcess();
  const truth = await upstreamTradeIds(simulatorBase);
  expect(truth.size).toBeGreaterThan(5000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-e2e-restart-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;

  // 1. Start, register a key, and kill -9 as soon as the first trades are queryable.
  const first = await startService(dataDir, port, simulatorBase);
  // The trade feed is Tier 2: issue a Tier 2 key with the admin CLI, through the running service.
  const key = (await runAdminCli(dataDir, ['keys', 'create', '--tier', '2', '--name', 'e2e'])).api_key as string;
  const agentKey = (await postJson(`${base}/v1/agents/register`, { name: 'e2e-agent' })).body.data.api_key as string;
  const seenBeforeKill = await waitFor(
    async () => {
      const { body } = await getJson(`${base}/v1/health`, key);
      return body.data.counts.trades > 0 ? body.data.counts.trades : null;
    },
    60_000,
    'first trades',
    50,
  );
  await first.kill('SIGKILL');
  console.log(`killed with ${seenBeforeKill} of ${truth.size} trades indexed`);

  // 2. Restart on the same data: ingestion resumes and converges on exactly the upstream feed.
  await startService(dataDir, port, simulatorBase);
  await waitFor(
    async () => {
      const { body } = await getJson(`${base}/v1/health`, key);
      const lag = Object.values(body.data.pipeline.sink_lag as Record<string, number>).reduce((a, b) => a + b, 0);
      return body.data.counts.trades === truth.size && lag === 0;
    },
    90_000,
    'all upstream trades after the restart',
  );
  const before = await snapshot(base, key);
  expect(before.counts.trades).toBeGreaterThanOrEqual(seenBeforeKill);
  expect(before.tradeIds).toHaveLength(truth.size);
  expect(new Set(before.tradeIds)).toEqual(truth);
  expect(before.counts.markets).toBe(80);

  // Candles agree with the trades for the busiest market.
  const top = (await getJson(`${base}/v1/markets?status=all&sort=volume&limit=1`, key)).body.data[0];
  const candles = (await getJson(`${base}/v1/markets/${top.id}/ohlcv?interval=1d&limit=1000`, key)).body.data;
  const tape = await walkPages(`${base}/v1/trades?market=${top.id}&limit=500`, key);
  expect(candles.reduce((sum: number, c: any) => sum + c.trade_count, 0)).toBe(tape.items.length);

  // 3. kill -9 while quiet, restart: every count and page identical.
  const second = children[children.length - 1]!;
  await second.kill('SIGKILL');
  await startService(dataDir, port, simulatorBase);
  const after = await snapshot(base, key);
  expect(after).toEqual(before);
  expect((await getJson(`${base}/v1/agents/me`, agentKey)).body.data).toMatchObject({ name: 'e2e-agent', tier: 'sandbox' });
}, 300_000);
