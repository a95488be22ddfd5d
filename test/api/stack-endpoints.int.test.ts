/**
 * Every read endpoint over data the real pipeline ingested from the simulator (REST + websocket),
 * with every response validated against the OpenAPI document by the service itself.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../services/config.js';
import { startStack, type RunningStack } from '../../services/stack.js';
import { simulatorUpstreamEnv, startSimulator, type RunningSimulator } from '../../simulator/server.js';
import { getJson, postJson, waitFor } from '../support/http.js';
import { runAdminCli } from '../support/processes.js';

const FROZEN = Date.now();
let simulator: RunningSimulator;
let stack: RunningStack;
let key: string;
let dataDir: string;

beforeAll(async () => {
  simulator = await startSimulator({
    port: 0,
    seed: 17,
    marketCount: 30,
    walletCount: 25,
    historicTrades: 2500,
    historyHours: 24,
    clock: () => FROZEN,
  });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-stack-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'silent',
    VALIDATE_RESPONSES: 'true',
    ...simulatorUpstreamEnv(simulator),
    MARKETS_POLL_INTERVAL_MS: '1000',
    TRADES_POLL_INTERVAL_MS: '500',
    CLOB_POLL_INTERVAL_MS: '1000',
    WALLETS_POLL_INTERVAL_MS: '1000',
    TRADER_VALUATION_INTERVAL_MS: '1000',
    RATE_TIER2_PER_SECOND: '100000',
  });
  stack = await startStack(config, pino({ level: 'silent' }));
  key = (await runAdminCli(dataDir, ['keys', 'create', '--tier', '2'])).api_key;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await simulator?.close();
});

test('every read endpoint answers in the documented shape over ingested data', async () => {
  const base = `${stack.url}/v1`;
  const get = (url: string) => getJson(`${base}${url}`, key);
  await waitFor(async () => (await get('/health')).body.data?.counts.trades >= 2000, 60_000, 'trades ingested');
  const [top] = (await get('/markets?sort=volume&limit=1')).body.data;
  const wallet = (await get('/trades?limit=1')).body.data[0].wallet;
  // Both sides of the YES book: the first snapshot of a market can be its NO token's alone (once, on a loaded machine).
  await waitFor(
    async () => {
      const { status, body } = await get(`/markets/${top.id}/orderbook`);
      return status === 200 && body.data.yes?.best_bid != null && body.data.yes?.best_ask != null;
    },
    30_000,
    "the YES token's order book",
  );
  await waitFor(async () => (await get('/leaderboard?limit=5')).body.data?.length > 0, 30_000, 'trader stats');
  await waitFor(async () => (await get('/events?status=all')).body.data?.length > 0, 30_000, 'events');

  const expectations: Array<[string, number]> = [
    ['/health', 200],
    ['/usage', 200],
    ['/pricing/access', 200],
    ['/markets?status=all&sort=liquidity&limit=5', 200],
    ['/markets/categories', 200],
    [`/markets/${top.slug}`, 200],
    [`/markets/${top.id}/ohlcv?interval=5m&limit=168`, 200],
    [`/markets/${top.id}/orderbook`, 200],
    [`/markets/${top.id}/price/ticks?limit=5`, 200],
    [`/markets/${top.id}/trades?limit=5`, 200],
    [`/trades?limit=5&side=buy&from=${new Date(Date.now() - 86_400_000).toISOString()}`, 200],
    ['/volume/timeseries?range_days=7', 200],
    ['/events?status=all&limit=5', 200],
    ['/series', 200],
    [`/traders/${wallet}`, 200],
    [`/traders/${wallet}/pnl?days=7`, 200],
    [`/positions/${wallet}`, 200],
    ['/leaderboard?sort_by=volume&limit=5', 200],
    ['/traders/browse?sort_by=win_rate_pct&limit=5', 200],
    [`/orderbook/history?market=${top.id}&interval=1m`, 200],
  ];
  for (const [url, status] of expectations) {
    const response = await get(url);
    if (response.status !== status) throw new Error(`${url}: HTTP ${response.status} ${JSON.stringify(response.body)}`);
    expect(response.body.success).toBe(true);
  }
  const book = (await get(`/markets/${top.id}/orderbook`)).body.data;
  expect(book.yes.best_bid).toBeLessThan(book.yes.best_ask);
  expect(book.yes.spread_bps).toBeGreaterThan(0);
  const registration = await postJson(`${base}/agents/register`, { name: 'stack' });
  expect((await getJson(`${base}/agents/me`, registration.body.data.api_key)).status).toBe(200);
}, 180_000);
