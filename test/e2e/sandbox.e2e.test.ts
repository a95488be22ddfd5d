/**
 * The sandbox as an agent meets it: the service runs as a child process (every part, embedded
 * engines) against the upstream simulator, which this test drives. Register -> briefing -> a paper
 * market buy against the live simulated book (several levels, the market's taker fee) -> the
 * simulator's clock passes the market's end, it resolves upstream -> the service ingests the
 * resolution, settles the paper position -> settled PnL in the account and in the next briefing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSimulator, simulatorUpstreamEnv, type RunningSimulator } from '../../simulator/server.js';
import type { SimEvent, SimMarket } from '../../simulator/world-types.js';
import { getJson, postJson, waitFor } from '../support/http.js';
import { freePort, startChild, type Child } from '../support/processes.js';

let simulator: RunningSimulator | undefined;
let service: Child | undefined;
afterAll(async () => {
  await service?.kill('SIGTERM');
  await simulator?.close();
});

const feeEnabled = (market: SimMarket, event: SimEvent) =>
  market.category === 'Sports' || market.category === 'Politics' || (market.category === 'Crypto' && event.seriesIndex !== null);

test('register, brief, paper-buy through the book with fees, resolve upstream, see the settled PnL', async () => {
  simulator = await startSimulator({
    port: 0,
    seed: 11,
    marketCount: 80,
    walletCount: 40,
    historicTrades: 2_000,
    historyHours: 12,
    tradesPerSecond: 0.2,
  });
  const now = simulator.state.nowMs();
  const [target] = simulator.state.world.markets
    .filter((m) => !m.placeholder && m.resolvesOnClose && !simulator!.state.status[m.index]?.closed && m.endDateMs > now + 60_000)
    .filter((m) => feeEnabled(m, simulator!.state.world.events[m.eventIndex]!))
    .sort((a, b) => a.endDateMs - b.endDateMs);
  expect(target).toBeDefined();

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  service = startChild('services/main.ts', {
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-e2e-sandbox-')),
    PORT: String(port),
    ...simulatorUpstreamEnv(simulator),
    MARKETS_POLL_INTERVAL_MS: '1000',
    TRADES_POLL_INTERVAL_MS: '500',
    CLOB_POLL_INTERVAL_MS: '1000',
    TRADES_BACKFILL_MARKETS: '0',
  });
  await service.waitForLog((l) => l.msg === 'tapeline is serving', 60_000);

  const registration = await postJson(`${base}/v1/agents/register`, { name: 'e2e-agent' });
  expect(registration.status).toBe(201);
  const key = registration.body.data.api_key as string;
  const first = await getJson(`${base}/v1/briefing`, key);
  expect(first.status).toBe(200);
  expect(first.body.data.paper.account).toMatchObject({ cash_usdc: 10000, open_positions: 0 });

  // The live book of the market's YES outcome, as the service indexed it from the simulator.
  const yesIndex = Math.max(
    0,
    target!.outcomes.findIndex((o) => o.toLowerCase() === 'yes'),
  );
  const book = await waitFor(
    async () => {
      const { status, body } = await getJson(`${base}/v1/markets/${target!.conditionId}/orderbook`, key);
      const yes = status === 200 ? body.data.outcomes[yesIndex] : null;
      return yes?.asks.length >= 2 ? yes : null;
    },
    60_000,
    'the target market book',
  );
  const outcome = book.outcome as string;
  // Through the whole first level and half of the second.
  const size = (Math.floor(book.asks[0].size_shares) + Math.max(1, Math.floor(book.asks[1].size_shares / 2))).toString();
  const placed = await postJson(
    `${base}/v1/paper/orders`,
    { market_id: target!.conditionId, outcome, side: 'buy', type: 'market', size },
    { apiKey: key },
  );
  expect(placed.status).toBe(201);
  const order = placed.body.data;
  expect(order.status).toBe('filled');
  expect(order.fills.length).toBeGreaterThanOrEqual(2);
  expect(order.fills.map((f: any) => f.level)).toEqual(order.fills.map((_: unknown, i: number) => i + 1));
  expect(Number(order.fees_usdc)).toBeGreaterThan(0);
  expect(order.fee_schedule.basis).toBe('market');
  expect(order.book.source).toBe('simulator');
  expect(Number(order.slippage_usdc)).toBeGreaterThan(0);

  // The simulator's clock passes the market's end: it closes and resolves upstream.
  simulator.advance(target!.endDateMs - simulator.state.nowMs() + 120_000);
  const settlement = await waitFor(
    async () => {
      const { body } = await getJson(`${base}/v1/paper/settlements`, key);
      return body.data?.[0];
    },
    90_000,
    'the paper position to settle at resolution',
  );
  const won = settlement.winning_outcome === outcome;
  expect(settlement).toMatchObject({ kind: 'resolved', market_id: target!.conditionId, shares: order.filled_size, price: won ? 1 : 0 });
  // proceeds - cost: shares x payout - the filled notional.
  const expectedPnl = (won ? Number(order.filled_size) : 0) - Number(order.filled_notional_usdc);
  expect(Number(settlement.realized_pnl_usdc)).toBeCloseTo(expectedPnl, 6);

  const account = (await getJson(`${base}/v1/paper/account`, key)).body.data;
  expect(account).toMatchObject({ realized_pnl_usdc: settlement.realized_pnl_usdc, open_positions: 0 });
  expect(Number(account.net_pnl_usdc)).toBeCloseTo(expectedPnl - Number(order.fees_usdc), 6);

  // The resolution signal is recorded by the sandbox's own consumer of the resolutions, apart from the
  // settlement: briefings are read until it is there, their settlements since the last one gathered.
  const settledSince: unknown[] = [];
  const next = await waitFor(
    async () => {
      const briefing = (await getJson(`${base}/v1/briefing`, key)).body.data;
      settledSince.push(...briefing.paper.settlements_since_last);
      return briefing.signals.items.some((s: any) => s.kind === 'resolution' && s.market_id === target!.conditionId) ? briefing : null;
    },
    30_000,
    'the resolution signal in the briefing',
    500,
  );
  expect(settledSince).toEqual([expect.objectContaining({ market_id: target!.conditionId, kind: 'resolved' })]);
  expect(next.paper.account.realized_pnl_usdc).toBe(settlement.realized_pnl_usdc);
}, 240_000);
