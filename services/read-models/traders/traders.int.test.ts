/**
 * Trader endpoints on hand-computed books: stats, positions and PnL curve live from fills; leaderboard
 * and browse from the stats job's tables.
 */
import type { TradeExecuted } from '../../events/types.js';
import { bookSnapshot, marketUpserted, walletActivity } from '../../../test/support/events.js';
import { getJson, walkPages } from '../../../test/support/http.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { recomputeTraderStats } from './stats-job.js';

const HOUR = 3_600_000;
const NOW = Date.now();
const M1 = `0x${'1'.repeat(64)}`;
const M2 = `0x${'2'.repeat(64)}`;
const A = `0x${'a'.repeat(40)}`;
const B = `0x${'b'.repeat(40)}`;
const C = `0x${'c'.repeat(40)}`;
const D = `0x${'d'.repeat(40)}`;

const market = (id: string, over: Parameters<typeof marketUpserted>[0]) =>
  marketUpserted({
    event_id: `${id}:1`,
    market_id: id,
    gamma_id: '1',
    slug: id.slice(0, 8),
    title: `Market ${id.slice(2, 4)}`,
    outcome_token_ids: [`${id.slice(2, 6)}0`, `${id.slice(2, 6)}1`],
    updated_at_ms: NOW,
    ingested_at_ms: NOW,
    ...over,
  });

let n = 0;
const trade = (
  wallet: string,
  marketId: string,
  outcomeIndex: number,
  side: 'buy' | 'sell',
  size: number,
  price: number,
  atMs: number,
): TradeExecuted => ({
  event_id: `t${++n}`,
  source: 'simulator',
  market_id: marketId,
  market_title: 'x',
  asset_id: `${marketId.slice(2, 6)}${outcomeIndex}`,
  wallet,
  side,
  outcome: outcomeIndex === 0 ? 'Yes' : 'No',
  outcome_index: outcomeIndex,
  price,
  yes_price: outcomeIndex === 0 ? price : 1 - price,
  size,
  size_usdc: size * price,
  timestamp_ms: atMs,
  tx_hash: `0x${String(n).padStart(64, '0')}`,
  ingested_at_ms: atMs,
});

let h: ProjectionHarness;
let api: ProjectionHarness['api'];
let key: string;

beforeAll(async () => {
  h = await projectionHarness('traders');
  api = h.api;
  key = h.key;
  const activity = (type: string, usdc: number, atMs: number) =>
    walletActivity({
      event_id: `${type}-${atMs}`,
      wallet: C,
      market_id: M1,
      type,
      asset_id: '',
      side: '',
      outcome: '',
      outcome_index: 999,
      size: usdc,
      usdc_size: usdc,
      price: 0,
      tx_hash: `0x${'e'.repeat(64)}`,
      timestamp_ms: atMs,
      ingested_at_ms: NOW,
    });
  await h.given({
    markets: [
      market(M1, { status: 'resolved', resolved_outcome: 'Yes', outcome_prices: [1, 0], closed_ms: NOW - 2 * HOUR }),
      market(M2, { category: 'Sports', outcome_prices: [0.3, 0.7] }),
    ],
    trades: [
      trade(A, M1, 0, 'buy', 100, 0.4, NOW - 50 * HOUR),
      trade(A, M1, 0, 'buy', 50, 0.7, NOW - 40 * HOUR),
      trade(A, M1, 0, 'sell', 60, 0.8, NOW - 30 * HOUR),
      trade(A, M2, 1, 'buy', 20, 0.6, NOW - 20 * HOUR),
      trade(B, M1, 1, 'buy', 50, 0.5, NOW - 45 * HOUR),
      trade(C, M1, 1, 'sell', 100, 0.3, NOW - 40 * HOUR),
      // M2's last trade: YES at 0.25, so NO last traded at 0.75.
      trade(D, M2, 0, 'buy', 10, 0.25, NOW - 10 * HOUR),
    ],
    bookSnapshots: [
      // M2 YES: two-sided, spread 0.02 -> marked at the mid 0.28.
      bookSnapshot({
        market_id: M2,
        asset_id: '22220',
        hash: 'y1',
        timestamp_ms: NOW - HOUR,
        bids: [{ price: 0.27, size: 100 }],
        asks: [{ price: 0.29, size: 100 }],
      }),
      // M2 NO: bids only (one-sided) -> marked at its last trade 0.75, not at the bid or the catalog's 0.7.
      bookSnapshot({ market_id: M2, asset_id: '22221', hash: 'n1', timestamp_ms: NOW - HOUR, bids: [{ price: 0.65, size: 100 }] }),
    ],
    walletActivity: [activity('SPLIT', 100, NOW - 48 * HOUR), activity('REDEEM', 100, NOW - HOUR)],
  });
  await recomputeTraderStats(h.store, NOW);
}, 60_000);
afterAll(() => h.close());

test('wallet stats: realized 18, unrealized 45 at the payout + 3 at the last trade (one-sided book), one market won', async () => {
  const { status, body } = await getJson(`${api.base}/v1/traders/${A.toUpperCase().replace('0X', '0x')}`, key);
  expect(status).toBe(200);
  expect(body.data.lifetime).toEqual({
    total_realized_pnl: 18,
    unrealized_pnl: 48,
    total_pnl: 66,
    volume_usdc: 40 + 35 + 48 + 12,
    trades: 4,
    markets_traded: 2,
    won: 1,
    lost: 0,
    resolved: 1,
    win_rate_pct: 100,
  });
  expect(body.data.last_30d).toEqual({ total_realized_pnl: 18, volume_usdc: 135, trades: 4 });
  expect(body.data.category_pnl.map((c: any) => [c.category, c.total_pnl])).toEqual([
    ['Politics', 63],
    ['Sports', 3],
  ]);
  expect(body.data.risk_score).toBeGreaterThanOrEqual(0);
  expect(body.data.risk_score).toBeLessThanOrEqual(100);
});

test('a losing wallet: the unredeemed loser counts as lost', async () => {
  const { body } = await getJson(`${api.base}/v1/traders/${B}`, key);
  expect(body.data.lifetime).toMatchObject({ total_realized_pnl: 0, unrealized_pnl: -25, won: 0, lost: 1, win_rate_pct: 0 });
});

test('a tracked wallet: split 100, sell NO at 0.3 (-20), redeem YES at 1 (+50); the split is not volume', async () => {
  const { body } = await getJson(`${api.base}/v1/traders/${C}`, key);
  expect(body.data.lifetime).toMatchObject({ total_realized_pnl: 30, unrealized_pnl: 0, volume_usdc: 30, trades: 1, won: 1, lost: 0 });
  expect((await getJson(`${api.base}/v1/positions/${C}`, key)).body.data.positions).toEqual([]);
});

test('open positions with average entry, the mark and its basis, and unrealized PnL', async () => {
  const row = (p: any) => [p.market_id, p.outcome, p.size_shares, p.avg_entry_price, p.mark_price, p.mark_basis, p.unrealized_pnl_usdc];
  const { body } = await getJson(`${api.base}/v1/positions/${A}`, key);
  expect(body.data.positions.map(row)).toEqual([
    [M1, 'Yes', 90, 0.5, 1, 'payout', 45],
    // 20 x (0.75 - 0.6)
    [M2, 'No', 20, 0.6, 0.75, 'last_trade', 3],
  ]);
  // 10 x (0.28 - 0.25)
  expect((await getJson(`${api.base}/v1/positions/${D}`, key)).body.data.positions.map(row)).toEqual([
    [M2, 'Yes', 10, 0.25, 0.28, 'mid', 0.3],
  ]);
});

test('daily PnL curve ends today with realized + unrealized', async () => {
  const { body } = await getJson(`${api.base}/v1/traders/${A}/pnl?days=5`, key);
  expect(body.data.points).toHaveLength(5);
  const today = body.data.points[4];
  expect(today.date).toBe(new Date(NOW).toISOString().slice(0, 10));
  expect(today.realized).toBe(18);
  expect(today.total).toBe(today.realized + today.unrealized);
});

test('leaderboard ranks by realized PnL, win rate, volume; category boards; cursor pages carry ranks', async () => {
  const byPnl = await getJson(`${api.base}/v1/leaderboard?limit=1`, key);
  expect(byPnl.body.data).toEqual([expect.objectContaining({ rank: 1, wallet: C, total_realized_pnl: 30, win_rate_pct: 100 })]);
  const all = await walkPages(`${api.base}/v1/leaderboard?limit=1`, key);
  expect(all.items.map((e: any) => [e.rank, e.wallet])).toEqual([
    [1, C],
    [2, A],
    [3, D],
    [4, B],
  ]);
  const byWinRate = await getJson(`${api.base}/v1/leaderboard?sort_by=win_rate_pct`, key);
  expect(byWinRate.body.data.map((e: any) => e.wallet)).toEqual([C, A, B]);
  const sports = await getJson(`${api.base}/v1/leaderboard?category=sports&sort_by=total_pnl`, key);
  expect(sports.body.data).toEqual([
    expect.objectContaining({ wallet: A, category: 'Sports', total_pnl: 3 }),
    expect.objectContaining({ wallet: D, category: 'Sports', total_pnl: 0.3 }),
  ]);
  const browse = await getJson(`${api.base}/v1/traders/browse?min_volume=100`, key);
  expect(browse.body.data.map((e: any) => e.wallet)).toEqual([A]);
  expect(browse.body.data[0].rank).toBeUndefined();
});

test.each([
  ['/v1/traders/0x123', 400],
  ['/v1/traders/not-a-wallet/pnl', 400],
  [`/v1/positions/0xzz${'a'.repeat(38)}`, 400],
  [`/v1/traders/0x${'e'.repeat(40)}`, 404],
  ['/v1/leaderboard?sort_by=luck', 400],
  ['/v1/leaderboard?category=sports&sort_by=risk_score', 400],
  [`/v1/traders/${A}/pnl?days=0`, 400],
])('%s -> %i', async (url, status) => {
  const response = await getJson(`${api.base}${url}`, key);
  expect(response.status).toBe(status);
  expect(response.body.success).toBe(false);
});
