/**
 * Golden test of the position ledger and the trader endpoints: chain fills of both roles, splits,
 * merges, redemptions and a neg-risk conversion across resolved, voided and open markets, through the
 * real sink into chDB; every figure below is computed by hand in the comments (USDC).
 */
import type { ChainLedgerEvent } from '../../events/types.generated.js';
import { chainLedgerEvent, marketUpserted, outcomeFill, outcomeToken, txHash } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { DAY_MS, startOfUtcDay } from '../../shared/time.js';
import { readMigrations } from '../../analytics/migrate.js';
import { loadConfig } from '../../config.js';
import { walletPositions } from '../positions/queries.js';
import { walletReports } from './queries.js';
import { TraderValuation } from './valuation.js';
import { BoardPages, PAGED_BOARDS } from './board-pages.js';

const NOW = Date.now();
const TODAY = startOfUtcDay(NOW);
// Two days ago, yesterday, and a moment earlier today (always before now).
const D2 = TODAY - 2 * DAY_MS + 3_600_000;
const D1 = TODAY - DAY_MS + 3_600_000;
const D0 = TODAY + Math.floor((NOW - TODAY) / 2);

const M1 = `0x${'1'.repeat(64)}`; // resolved YES
const M2 = `0x${'2'.repeat(64)}`; // open (Sports)
const M3 = `0x${'3'.repeat(64)}`; // voided 50-50
const M4 = `0x${'4'.repeat(64)}`; // neg-risk question 0
const M5 = `0x${'5'.repeat(64)}`; // neg-risk question 1
const NR = `0x${'9'.repeat(62)}00`;
const W = (c: string) => `0x${c.repeat(40)}`;
const [A, B, C, D, E, F, G, H, J] = ['a', 'b', 'c', 'd', 'e', 'f', '7', '8', '6'].map(W) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];
const tok = outcomeToken;

let n = 0;
let block = 80_000_000;
/** A chain fill: `shares` at `price` (USDC per share) on outcome `i` of `market`. */
function fill(
  wallet: string,
  market: string,
  i: number,
  side: 'buy' | 'sell',
  shares: number,
  price: number,
  at: number,
  role: 'taker' | 'maker' = 'taker',
) {
  n += 1;
  block += 1;
  return outcomeFill({ tx: n, block, at, wallet, market, index: i, side, shares, price, role });
}
function change(
  kind: 'split' | 'merge' | 'redemption',
  wallet: string,
  market: string,
  amount: number,
  at: number,
  indexSets = ['1', '2'],
) {
  n += 1;
  block += 1;
  return chainLedgerEvent({
    kind,
    tx_hash: txHash(n),
    log_index: 2,
    block_number: block,
    block_hash: `0x${block.toString(16).padStart(64, '0')}`,
    block_time_ms: at,
    market_id: market,
    ledger_group: market,
    wallet,
    position_change: {
      amount_micro: String(Math.round(amount * 1e6)),
      index_sets: indexSets,
      redeemed_micro: [],
      outcome_token_ids: [tok(market, 0), tok(market, 1)],
      collateral_token: '0x2791bca1f2de4661ed88a30c99a7a9449aa84174',
    },
  });
}
function conversion(wallet: string, indexSet: string, amount: number, at: number): ChainLedgerEvent {
  n += 1;
  block += 1;
  return chainLedgerEvent({
    kind: 'conversion',
    tx_hash: txHash(n),
    log_index: 3,
    block_number: block,
    block_hash: `0x${block.toString(16).padStart(64, '0')}`,
    block_time_ms: at,
    market_id: '',
    ledger_group: NR,
    neg_risk: true,
    wallet,
    position_change: null,
    conversion: {
      neg_risk_market_id: NR,
      index_set: indexSet,
      amount_micro: String(amount * 1e6),
      question_count: 0,
      fee_bips: 0,
      questions: [],
      questions_from: '',
      fee_from: '',
    },
  });
}

/** The fill with a fee in collateral (v2). */
const withFee = (event: ChainLedgerEvent, fee: number): ChainLedgerEvent => ({
  ...event,
  fill: { ...event.fill!, fee_micro: String(Math.round(fee * 1e6)), fee_asset: 'usdc' },
});

const market = (id: string, over: Parameters<typeof marketUpserted>[0] = {}) =>
  marketUpserted({
    event_id: `${id}:1`,
    market_id: id,
    title: `Market ${id.slice(2, 4)}`,
    outcome_token_ids: [tok(id, 0), tok(id, 1)],
    updated_at_ms: NOW,
    ingested_at_ms: NOW,
    ...over,
  });

let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('positions');
  await h.given({
    markets: [
      market(M1, { status: 'resolved', resolved_outcome: 'Yes', outcome_prices: [1, 0], closed_ms: D0 - 1000 }),
      market(M2, { category: 'Sports', outcome_prices: [0.35, 0.65] }),
      market(M3, { status: 'voided', outcome_prices: [0.5, 0.5], closed_ms: D1 + 5000 }),
      market(M4, { category: 'Elections', neg_risk: true, neg_risk_market_id: NR, question_id: `${NR.slice(0, -2)}00` }),
      market(M5, {
        category: 'Elections',
        neg_risk: true,
        neg_risk_market_id: NR,
        question_id: `${NR.slice(0, -2)}01`,
        outcome_prices: [0.6, 0.4],
      }),
    ],
  });
  const events = [
    fill(B, M1, 1, 'buy', 50, 0.5, D2), // B: 50 NO at 0.5 = 25, never redeemed
    change('split', C, M1, 100, D2 + 1000), // C: 100 YES + 100 NO at 0.5 each = 50 + 50
    fill(A, M1, 0, 'buy', 100, 0.4, D2 + 2000), // A: 100 YES for 40
    fill(A, M1, 0, 'buy', 50, 0.7, D2 + 3000, 'maker'), // A: 50 YES for 35 -> 150 held, cost 75
    fill(E, M1, 0, 'buy', 10, 0.5, D2 + 4000, 'maker'), // E: 10 YES for 5
    fill(J, M2, 0, 'buy', 2, 0.5, D2 + 5000, 'maker'), // J: 2 YES of M2 for 1; a maker fill makes no candle
    fill(J, M5, 0, 'buy', 1, 0.5, D2 + 6000, 'maker'), // J: 1 YES of M5 for 0.5; M5 never has a candle
    fill(J, M4, 0, 'buy', 5, 0.1, D2 + 7000, 'maker'), // J: 5 YES of M4 for 0.5; M4's first candle is D1's
    fill(A, M1, 0, 'sell', 60, 0.8, D1), // A: 48 - 75 x 60/150 = 18 realized; 90 held, cost 45
    fill(C, M1, 1, 'sell', 100, 0.3, D1 + 1000, 'maker'), // C: 30 - 50 = -20
    fill(E, M1, 0, 'sell', 10, 0.5, D1 + 2000, 'maker'), // E: 5 - 5 = 0: net exactly 0
    fill(F, M1, 0, 'sell', 10, 0.9, D1 + 3000, 'maker'), // F: sells what it never held: no basis, no PnL
    fill(D, M3, 0, 'buy', 10, 0.4, D1 + 4000), // D: 10 YES for 4 in the voided market
    fill(G, M4, 1, 'buy', 10, 0.8, D1 + 5000), // G: 10 NO of question 0 for 8
    change('split', H, M2, 20, D1 + 6000), // H: 20 YES + 20 NO for 10 + 10
    change('redemption', A, M1, 90, D0), // A: 90 YES at payout 1: 90 - 45 = 45
    change('redemption', C, M1, 100, D0 + 1000), // C: 100 YES at 1: 100 - 50 = 50
    conversion(G, '1', 10, D0 + 2000), // G: NO q0 leaves at cost 8; 10 YES of q1 cost 8 - 0 collateral
    change('merge', H, M2, 10, D0 + 3000), // H: sells 10 of each at 0.5: 5 - 5 = 0 each
    withFee(fill(A, M2, 1, 'buy', 20, 0.6, D0 + 4000), 0.24), // A: 20 NO for 12, and a fee of 0.24
    fill(D, M2, 0, 'buy', 5, 0.3, D0 + 5000), // last M2 trade: YES 0.3, so NO marks at 0.7
  ];
  await h.given({ chainLedger: events });
  await new TraderValuation(h.store).run(NOW);
}, 120_000);
afterAll(() => h.close());

test('wallet A: maker and taker fills, a redemption and an open position', async () => {
  const { status, body } = await h.get(`/traders/${A.toUpperCase().replace('0X', '0x')}`);
  expect(status).toBe(200);
  // realized 18 + 45 = 63; unrealized 20 x 0.7 - 12 = 2; volume 40 + 35 + 48 + 12 = 135 over 4 fills;
  // the NO buy's fee 0.24 (not in its cost basis)
  expect(body.data.lifetime).toEqual({
    total_realized_pnl: 63,
    unrealized_pnl: 2,
    total_pnl: 65,
    volume_usdc: 135,
    fees_paid_usdc: 0.24,
    trades: 4,
    markets_traded: 2,
    won: 1,
    lost: 0,
    resolved: 1,
    win_rate_pct: 100,
  });
  expect(body.data.last_30d).toEqual({ total_realized_pnl: 63, volume_usdc: 135, fees_paid_usdc: 0.24, trades: 4 });
  expect(body.data.category_pnl.map((c: any) => [c.category, c.realized_pnl, c.unrealized_pnl, c.total_pnl])).toEqual([
    ['Politics', 63, 0, 63],
    ['Sports', 0, 2, 2],
  ]);
  // Only open position: 12 of 12 open cost; nothing bought below 0.15. Capital at risk: D2 pays 75
  // (75 in), D1 pays nothing and gets 48 back (27 in), D0 pays 12 (27 + 12 = 39): the peak is 75.
  // Equity = 75 + the 30-day curve [0 ... 0, -15, 45, 65]: from the peak 75 down to 60 is 15 / 75 = 0.2.
  expect(body.data.risk_components).toEqual({ concentration: 1, long_shot_share: 0, drawdown: 0.2, capital_at_risk_usdc: 75 });
  // 40 x 1 + 30 x 0 + 30 x 0.2 = 46
  expect(body.data.risk_score).toBe(46);
  expect(body.data.data_as_of).toBe(new Date(D0 + 5000).toISOString());
  expect(body.data.data_as_of_block).toBe(block);
});

test('daily curve of A: realized to date + unrealized at each day-s close', async () => {
  const { body } = await h.get(`/traders/${A}/pnl?days=3`);
  expect(body.data.points).toEqual([
    // 150 held, cost 75, M1 closes at 0.4 (the day's last taker fill): 60 - 75 = -15
    { date: new Date(D2).toISOString().slice(0, 10), realized: 0, unrealized: -15, total: -15 },
    // 18 realized; 90 held, cost 45, close 0.8: 72 - 45 = 27
    { date: new Date(D1).toISOString().slice(0, 10), realized: 18, unrealized: 27, total: 45 },
    // redeemed: 63 realized; 20 NO of M2 at 0.7: 14 - 12 = 2
    { date: new Date(D0).toISOString().slice(0, 10), realized: 63, unrealized: 2, total: 65 },
  ]);
});

const day = (at: number) => new Date(at).toISOString().slice(0, 10);

test('curves of B, D and J: the other outcome at 1 - YES, a state from before the window, the payout from the day a market closed, no close yet', async () => {
  const points = async (w: string, days: number) => (await h.get(`/traders/${w}/pnl?days=${days}`)).body.data.points;
  // B holds 50 NO of M1, cost 25. D2: YES closes at 0.4, NO = 0.6: 30 - 25 = 5. D1: YES 0.8, NO 0.2:
  // 10 - 25 = -15. Today M1 is resolved YES: NO pays 0, -25.
  expect(await points(B, 3)).toEqual([
    { date: day(D2), realized: 0, unrealized: 5, total: 5 },
    { date: day(D1), realized: 0, unrealized: -15, total: -15 },
    { date: day(D0), realized: 0, unrealized: -25, total: -25 },
  ]);
  // The longest and the shortest curve: the same last days; one day is today's point alone.
  const year = await points(B, 365);
  expect([year.length, year[0].unrealized]).toEqual([365, 0]);
  expect(year.slice(-3)).toEqual(await points(B, 3));
  expect(await points(B, 1)).toEqual([{ date: day(D0), realized: 0, unrealized: -25, total: -25 }]);
  // Two days: B's only state change is on D2, before the window; D1 still values it.
  expect(await points(B, 2)).toEqual([
    { date: day(D1), realized: 0, unrealized: -15, total: -15 },
    { date: day(D0), realized: 0, unrealized: -25, total: -25 },
  ]);
  // D bought 10 YES of M3 for 4 on D1, when M3 closed (voided, 0.5 each): D1 is valued at the payout,
  // 5 - 4 = 1, not at its close 0.4. Today also 5 YES of M2 at its last trade 0.3: 1.5 - 1.5 = 0.
  expect(await points(D, 3)).toEqual([
    { date: day(D2), realized: 0, unrealized: 0, total: 0 },
    { date: day(D1), realized: 0, unrealized: 1, total: 1 },
    { date: day(D0), realized: 0, unrealized: 1, total: 1 },
  ]);
  // J holds 2 YES of M2, 1 YES of M5 and 5 YES of M4 from D2. M2's first candle is today's (D's trade at
  // 0.3), M5 never has one, M4's first is D1's (G's NO at 0.8: YES closes at 0.2). D2: none has a price,
  // all are left out (0). D1: M4 5 x 0.2 - 0.5 = 0.5. Today: M2 2 x 0.3 - 1 = -0.4, M5 at its catalog
  // price 0.6 - 0.5 = 0.1, M4 still 0.5: 0.2.
  expect(await points(J, 3)).toEqual([
    { date: day(D2), realized: 0, unrealized: 0, total: 0 },
    { date: day(D1), realized: 0, unrealized: 0.5, total: 0.5 },
    { date: day(D0), realized: 0, unrealized: 0.2, total: 0.2 },
  ]);
});

test('losers, exact zeros, no cost basis and voided markets', async () => {
  const lifetime = async (w: string) => (await h.get(`/traders/${w}`)).body.data.lifetime;
  // B: 50 NO unredeemed in a market NO lost: marked at 0 -> -25, lost
  expect(await lifetime(B)).toMatchObject({ total_realized_pnl: 0, unrealized_pnl: -25, total_pnl: -25, won: 0, lost: 1, win_rate_pct: 0 });
  // C: split, sell NO -20, redeem YES +50 -> 30, won; the split is not volume
  expect(await lifetime(C)).toMatchObject({ total_realized_pnl: 30, unrealized_pnl: 0, volume_usdc: 30, trades: 1, won: 1, lost: 0 });
  // E: net exactly 0 is neither won nor lost; F never had a cost basis
  expect(await lifetime(E)).toMatchObject({ total_realized_pnl: 0, won: 0, lost: 0, resolved: 0, win_rate_pct: null });
  expect(await lifetime(F)).toMatchObject({ total_realized_pnl: 0, volume_usdc: 9, won: 0, lost: 0, win_rate_pct: null });
  // D: voided market marked at 0.5: 5 - 4 = 1, excluded from win rate; plus 5 YES of M2 at 0.3 (mark 0.3: 0)
  expect(await lifetime(D)).toMatchObject({ unrealized_pnl: 1, won: 0, lost: 0, win_rate_pct: null });
});

test("positions: a position's fees", async () => {
  const a = (await h.get(`/positions/${A}`)).body.data.positions;
  expect(a.map((p: any) => [p.market_id, p.outcome, p.cost_basis_usdc, p.fees_paid_usdc])).toEqual([[M2, 'No', 12, 0.24]]);
});

test('positions: a conversion moves the NO cost to the YES of the other question; a merge keeps the average', async () => {
  const g = (await h.get(`/positions/${G}`)).body.data.positions;
  // 10 YES of question 1 carrying the 8 the NO cost; M5 has no trade or book: catalog price 0.6
  expect(
    g.map((p: any) => [p.market_id, p.outcome, p.size_shares, p.avg_entry_price, p.cost_basis_usdc, p.mark_price, p.unrealized_pnl_usdc]),
  ).toEqual([[M5, 'Yes', 10, 0.8, 8, 0.6, -2]]);
  const hp = (await h.get(`/positions/${H}`)).body.data;
  // 10 of each left at 0.5; YES marks at 0.3 (-2), NO at 0.7 (+2)
  expect(hp.positions.map((p: any) => [p.outcome, p.size_shares_micro, p.avg_entry_price, p.unrealized_pnl_usdc])).toEqual([
    ['No', '10000000', 0.5, 2],
    ['Yes', '10000000', 0.5, -2],
  ]);
  expect(hp.data_as_of).toBe(new Date(D0 + 5000).toISOString());
});

test('positions: pages by value, largest first, with a cursor bound to the wallet', async () => {
  const whole = (await h.get(`/positions/${H}`)).body;
  expect(whole.data.open_positions).toBe(2);
  expect(whole.data.pagination).toEqual({ limit: 50, has_more: false, next_cursor: null });
  // NO is worth 7 (10 at 0.7), YES 3 (10 at 0.3)
  const first = (await h.get(`/positions/${H}?limit=1`)).body;
  expect(first.data.positions.map((p: any) => [p.outcome, p.current_value_usdc])).toEqual([['No', 7]]);
  expect(first.data.open_positions).toBe(2);
  expect(first.data.pagination).toMatchObject({ limit: 1, has_more: true });
  const cursor = encodeURIComponent(first.data.pagination.next_cursor);
  const second = (await h.get(`/positions/${H}?limit=1&cursor=${cursor}`)).body;
  expect(second.data.positions.map((p: any) => [p.outcome, p.current_value_usdc])).toEqual([['Yes', 3]]);
  expect(second.data.pagination).toEqual({ limit: 1, has_more: false, next_cursor: null });
  expect([...first.data.positions, ...second.data.positions]).toEqual(whole.data.positions);
  // Another wallet's read refuses the cursor, as does an edited one.
  const foreign = await h.get(`/positions/${G}?limit=1&cursor=${cursor}`);
  expect(foreign.status).toBe(400);
  expect(foreign.body.error).toContain('cursor');
  expect((await h.get(`/positions/${H}?cursor=bm90LWEtY3Vyc29y`)).status).toBe(400);
  expect((await h.get(`/positions/${H}?limit=501`)).status).toBe(400);
});

test('positions: closed ones by realized PnL, largest first, with a signed cursor bound to the status; all of them by value', async () => {
  const row = (p: any) => [
    p.market_id,
    p.outcome,
    p.size_shares,
    p.avg_entry_price,
    p.cost_basis_usdc,
    p.unrealized_pnl_usdc,
    p.realized_pnl_usdc,
  ];
  const times = (p: any) => [p.outcome, p.opened_at === null, typeof p.last_trade_at];
  // C: 100 YES redeemed at 1 (+50), 100 NO sold at 0.3 (-20); nothing open.
  const closed = (await h.get(`/positions/${C}?status=closed`)).body.data;
  expect(closed.positions.map(row)).toEqual([
    [M1, 'Yes', 0, null, 0, 0, 50],
    [M1, 'No', 0, null, 0, 0, -20],
  ]);
  expect([closed.open_positions, closed.closed_positions]).toEqual([0, 2]);
  expect(closed.positions.map(times)).toEqual([
    ['Yes', true, 'string'],
    ['No', true, 'string'],
  ]);
  const open = (await h.get(`/positions/${C}`)).body.data;
  expect([open.positions, open.open_positions, open.closed_positions]).toEqual([[], 0, 2]);
  // A page at a time: the second starts after a cursor holding the first's realized PnL, and the last
  // one's (negative) realized ends the list.
  const first = (await h.get(`/positions/${C}?status=closed&limit=1`)).body.data;
  expect(first.positions.map(row)).toEqual([closed.positions.map(row)[0]]);
  const cursor = encodeURIComponent(first.pagination.next_cursor);
  const second = (await h.get(`/positions/${C}?status=closed&limit=1&cursor=${cursor}`)).body.data;
  expect(second.positions.map(row)).toEqual([closed.positions.map(row)[1]]);
  expect(second.pagination).toEqual({ limit: 1, has_more: false, next_cursor: null });
  // The cursor of one order does not page another.
  const other = await h.get(`/positions/${C}?status=all&limit=1&cursor=${cursor}`);
  expect([other.status, other.body.error]).toEqual([400, expect.stringContaining('cursor')]);
  expect((await h.get(`/positions/${C}?status=shut`)).status).toBe(400);
  // A: its NO of M2 open (worth 14), the YES of M1 closed after a sale (+18) and its redemption (+45);
  // not the NO of M1, which it never held (the redemption leaves that token's row at zero).
  const all = (await h.get(`/positions/${A}?status=all`)).body.data;
  expect(all.positions.map(row)).toEqual([
    [M2, 'No', 20, 0.6, 12, 2, 0],
    [M1, 'Yes', 0, null, 0, 0, 63],
  ]);
  expect([all.open_positions, all.closed_positions]).toEqual([1, 1]);
  // Every wallet: open and closed split its positions, and their realized PnL adds up to its lifetime figure.
  for (const wallet of [A, B, C, D, E, F, G, H, J]) {
    const [every, lifetime] = await Promise.all([
      h.get(`/positions/${wallet}?status=all&limit=500`).then((r) => r.body.data),
      h.get(`/traders/${wallet}`).then((r) => r.body.data.lifetime),
    ]);
    expect(every.positions).toHaveLength(every.open_positions + every.closed_positions);
    const realized = every.positions.reduce((sum: number, p: any) => sum + Math.round(p.realized_pnl_usdc * 1e6), 0) / 1e6;
    expect([wallet, realized]).toEqual([wallet, lifetime.total_realized_pnl]);
  }
});

test("/positions' lean read values every wallet's positions exactly as its full report does", async () => {
  const wallets = [A, B, C, D, E, F, G, H, J];
  const { reports } = await walletReports(h.store, wallets, { nowMs: NOW, curveDays: 0 });
  let open = 0;
  for (const wallet of wallets) {
    const lean = await walletPositions(h.store, wallet);
    expect(lean?.positions).toEqual(reports.get(wallet)!.report.positions);
    open += lean!.positions.filter((p) => p.qty > 0n).length;
  }
  expect(open).toBeGreaterThanOrEqual(5);
  expect(await walletPositions(h.store, `0x${'d'.repeat(39)}1`)).toBeNull();
});

test('leaderboard: realized from the views, windows and categories, refusals', async () => {
  const board = (await h.get('/leaderboard?limit=3')).body;
  expect(board.data.map((e: any) => [e.rank, e.wallet, e.total_realized_pnl])).toEqual([
    [1, A, 63],
    [2, C, 30],
    [3, expect.any(String), 0],
  ]);
  const byTotal = (await h.get('/leaderboard?sort_by=total_pnl&limit=2')).body.data;
  expect(byTotal.map((e: any) => [e.wallet, e.total_pnl])).toEqual([
    [A, 65],
    [C, 30],
  ]);
  const thirty = (await h.get('/leaderboard?window=30d&sort_by=volume&limit=1')).body.data;
  // A's one fee, 0.24 on its NO buy, lifetime and in the window (as /traders/{wallet} serves it).
  expect(thirty[0]).toMatchObject({ wallet: A, volume_30d_usdc: 135, fees_paid_usdc: 0.24, fees_paid_30d_usdc: 0.24 });
  const sports = (await h.get('/leaderboard?category=sports&sort_by=total_pnl&limit=1')).body.data;
  expect(sports[0]).toMatchObject({ wallet: A, category: 'Sports', total_pnl: 2, fees_paid_usdc: null, fees_paid_30d_usdc: null });
  // Sports by volume: A's one fill there, 20 NO at 0.6 = 12 USDC, nothing realized; then D's 5 YES at 0.3.
  const sportsVolume = (await h.get('/leaderboard?category=sports&sort_by=volume&limit=2')).body.data;
  expect(sportsVolume.map((e: any) => [e.wallet, e.volume_usdc, e.total_realized_pnl])).toEqual([
    [A, 12, 0],
    [D, 1.5, 0],
  ]);
  expect((await h.get('/leaderboard?window=30d&sort_by=total_pnl')).status).toBe(400);
  expect((await h.get('/leaderboard?window=30d&sort_by=win_rate_pct')).status).toBe(400);
  expect((await h.get('/leaderboard?category=sports&window=30d')).status).toBe(400);
  expect((await h.get('/leaderboard?category=sports&sort_by=risk_score')).status).toBe(400);
  const browse = (await h.get('/traders/browse?min_volume=100')).body.data;
  expect(browse.map((e: any) => e.wallet)).toEqual([A]);
  expect(browse[0].rank).toBeUndefined();
  // The largest accepted bound is still exact in Int64 micro-units; one above it is refused by name.
  const largest = await h.get('/traders/browse?min_volume=1000000000000');
  expect([largest.status, largest.body.data, largest.body.error]).toEqual([200, [], undefined]);
  const tooLarge = await h.get('/traders/browse?min_volume=368883487682862.9');
  expect(tooLarge.status).toBe(400);
  expect(JSON.stringify(tooLarge.body)).toContain('min_volume');
});

test('the valuation pass merges its tables once a tenth of them is rewritten, and the boards read the same', async () => {
  const boards = ['/leaderboard?sort_by=total_pnl', '/leaderboard?sort_by=risk_score', '/leaderboard?category=sports&sort_by=total_pnl'];
  const read = async () =>
    Promise.all(boards.map(async (url) => (await h.get(url)).body.data.map(({ stats_as_of: _, ...entry }: any) => entry)));
  const parts = async (table: string) => {
    const [row] = await h.store.query<{ parts: string; rows: string }>(
      `SELECT toString(count()) AS parts, toString(sum(rows)) AS rows FROM system.parts
        WHERE database = currentDatabase() AND table = {table:String} AND active`,
      { table },
    );
    return [Number(row!.parts), Number(row!.rows)];
  };
  const before = await read();
  const wallets = [A, B, C, D, E, F, G, H, J];
  // Every wallet valued again, in two inserts: a second row for each until the merge.
  const valuation = new TraderValuation(h.store, 5_000, 1);
  await valuation.value(wallets.slice(0, 4), NOW);
  await valuation.value(wallets.slice(4), NOW);
  expect(await parts('trader_valuation')).toEqual([1, wallets.length]);
  const [categoryParts] = await parts('trader_category_valuation');
  expect(categoryParts).toBe(1);
  expect(await read()).toEqual(before);
  expect(before[0].map((e: any) => [e.wallet, e.total_pnl])).toEqual(
    expect.arrayContaining([
      [A, 65],
      [C, 30],
    ]),
  );
});

test('trader_valuation has 256-row granules (0061), and the migration run again after a crash keeps every row', async () => {
  const boards = ['/leaderboard?sort_by=total_pnl', '/leaderboard?sort_by=win_rate_pct', '/leaderboard'];
  const read = async () =>
    Promise.all(boards.map(async (url) => (await h.get(url)).body.data.map(({ stats_as_of: _, ...entry }: any) => entry)));
  const table = async () => {
    const rows = await h.store.query<{ name: string; create_table_query: string }>(
      `SELECT name, create_table_query FROM system.tables
        WHERE database = currentDatabase() AND name IN ('trader_valuation', 'trader_valuation_next')`,
    );
    const valued = await h.store.query('SELECT * FROM trader_valuation FINAL ORDER BY wallet');
    return {
      tables: rows.map((r) => r.name),
      granules: /index_granularity = (\d+)/.exec(rows.find((r) => r.name === 'trader_valuation')!.create_table_query)?.[1],
      valued,
    };
  };
  const before = { table: await table(), boards: await read() };
  expect(before.table.tables).toEqual(['trader_valuation']);
  expect(before.table.granules).toBe('256');
  expect(before.table.valued.length).toBeGreaterThan(5);
  const { statements } = readMigrations().find((m) => m.name === '0061_trader_valuation_small_granules')!;
  // A run that stopped after the exchange (the old table left as trader_valuation_next), then the rerun.
  for (const statement of statements.slice(0, 4)) await h.store.command(statement);
  expect((await table()).tables.sort()).toEqual(['trader_valuation', 'trader_valuation_next']);
  for (const statement of statements) await h.store.command(statement);
  const after = await table();
  expect(after).toEqual(before.table);
  expect(await read()).toEqual(before.boards);
});

test.each([
  ['/traders/0x123', 400],
  ['/traders/not-a-wallet/pnl', 400],
  [`/positions/0xzz${'a'.repeat(38)}`, 400],
  [`/traders/0x${'d'.repeat(39)}1`, 404],
  [`/positions/0x${'d'.repeat(39)}1`, 404],
  ['/leaderboard?sort_by=luck', 400],
  [`/traders/${A}/pnl?days=0`, 400],
])('%s -> %i', async (url, status) => {
  const response = await h.get(url);
  expect(response.status).toBe(status);
  expect(response.body.success).toBe(false);
});

test('the boards served from their built pages equal the boards ranked live: every sort, window, filter and page, built whole or to a depth', async () => {
  const filters = ['', '&min_volume=10', '&min_trades=2', '&min_win_rate=50', '&max_risk_score=50', '&min_volume=1&max_risk_score=99'];
  const urls = PAGED_BOARDS.flatMap(({ sortBy, window }) => [
    `/leaderboard?sort_by=${sortBy}&window=${window}&limit=2`,
    ...filters.map((f) => `/traders/browse?sort_by=${sortBy}&window=${window}&limit=2${f}`),
  ]);
  /** Every page of a board, followed through its cursors. */
  const walk = async (url: string) => {
    const pages = [];
    for (let cursor: string | null = ''; cursor !== null; ) {
      const { status, body }: { status: number; body: any } = await h.get(`${url}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect([url, status, body.error]).toEqual([url, 200, undefined]);
      pages.push(body);
      cursor = body.pagination.next_cursor;
    }
    return pages;
  };
  // One at a time: a key has a bounded queue of queries in flight.
  const walkAll = async () => {
    const boards = [];
    for (const url of urls) boards.push(await walk(url));
    return boards;
  };
  const live = await walkAll();
  expect(await h.store.query('SELECT * FROM leaderboard_pages')).toEqual([]);
  const build = await new BoardPages(h.store, loadConfig({}).leaderboardPageDepth).build();
  expect(build.built).toBe(true);
  const perBoard = await h.store.query<{ board: string; n: string }>(
    'SELECT board, toString(count()) AS n FROM leaderboard_pages GROUP BY board ORDER BY board',
  );
  expect(perBoard.map((r) => r.board)).toEqual(PAGED_BOARDS.map(({ sortBy, window }) => `${sortBy}:${window}`).sort());
  expect(perBoard.reduce((sum, r) => sum + Number(r.n), 0)).toBe(build.rows);
  const paged = await walkAll();
  // Every wallet here was valued, so stats_as_of is its valuation's time on both.
  expect(paged).toEqual(live);
  expect(live.flat().flatMap((page) => page.data).length).toBeGreaterThan(100);
  // A board that no built row passes (every filtered-out page) is ranked live: the same empty page.
  expect((await h.get('/traders/browse?min_volume=1000000')).body.data).toEqual([]);
  // Built to a depth of 4 ranks: the first page of each board (2 entries and the row after them) is the
  // build's, the pages past the depth are ranked live, and the boards are the same page for page.
  await new BoardPages(h.store, 4).build(Date.now(), true);
  const depths = await h.store.query<{ board: string; n: string; truncated: number }>(
    'SELECT board, toString(count()) AS n, max(truncated) AS truncated FROM leaderboard_pages GROUP BY board ORDER BY board',
  );
  expect(depths.every((r) => Number(r.n) <= 4)).toBe(true);
  expect(depths.filter((r) => r.truncated === 1).length).toBeGreaterThanOrEqual(5);
  expect(await walkAll()).toEqual(live);
  // Later tests read the boards live again.
  await h.store.command('TRUNCATE TABLE leaderboard_pages');
  // Hundreds of board reads: minutes on a loaded 2-core machine (it took over 60 s once).
}, 180_000);
