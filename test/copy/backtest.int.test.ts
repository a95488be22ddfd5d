/**
 * Golden backtests: a leader with three trades in a market with a taker fee, order-book history
 * around them, through the real sink into chDB and GET/POST /v1/backtest. Every figure below is
 * computed by hand in the comments (micro-units, half up unless said otherwise):
 *
 * Market: fees on, rate 0.02, exponent 1: fee = shares x 0.02 x p x (1 - p).
 * Leader (chain taker fills of YES): T0 buy 100 @ 0.40; T0+1h buy 50 @ 0.50; T0+2h sell 100 @ 0.60.
 * Books of YES: T0-60s asks 10 @ 0.40, 100 @ 0.41; T0+10s asks 100 @ 0.42; T0+2h+20s bids 5 @ 0.59, 100 @ 0.58.
 * Follower: fixed 10 USDC per leader fill, 30 s after it, 1,000 USDC to start, range = the UTC day of T0.
 *
 * 1. T0+30s buy 10 USDC against the T0+10s book (the delay moved it from 0.40 to 0.42):
 *    23.809523 shares (10 / 0.42 rounded down), notional 10; fee 23.809523 x 0.02 x 0.42 x 0.58 = 0.116;
 *    slippage 10 - 23.809523 x 0.40 (9.523809) = 0.476191.
 * 2. T0+1h+30s: the newest book (T0+10s) is over 10 minutes old -> impact model:
 *    0.50 + 0.005 + 10 USDC x 0.000001 = 0.50501; 19.801588 shares, notional 10;
 *    fee 19.801588 x 0.02 x 0.50501 x 0.49499 = 0.098998; slippage 10 - 19.801588 x 0.50 = 0.099206.
 * 3. T0+2h+30s sell 10 USDC / 0.60 = 16.666666 shares into the T0+2h+20s bids: 5 @ 0.59 = 2.95 (fee 0.02419),
 *    11.666666 @ 0.58 = 6.766666 (fee 0.05684); notional 9.716666, fee 0.08103, avg 0.583;
 *    slippage 16.666666 x 0.60 (10) - 9.716666 = 0.283334.
 * Cash 1000 - 10.116 - 10.098998 + 9.716666 - 0.08103 = 989.420638; held 26.944445 YES marked at the
 * day's close (the last chain fill, 0.60) = 16.166667; equity 1005.587305; return 0.5587 %; no closed
 * position (win rate null); fees 0.296028; slippage 0.858731; volume 29.716666.
 */
import { bookSnapshot, chainFill, conditionId, marketUpserted, T0, txHash, walletAddress } from '../support/events.js';
import { type ProjectionHarness, projectionHarness } from '../support/projection.js';
import { startOfUtcDay } from '../../services/shared/time.js';

const MARKET = conditionId(0x5e);
const LEADER = walletAddress(0x1ead);
const YES = '9001';
const NO = '9002';
const HOUR = 3_600_000;
/** The UTC day of T0 (test/support/events.ts dates T0 from the clock, so the range follows it). */
const DAY_START = startOfUtcDay(T0);

let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('backtest');
  const fill = (n: number, side: 'buy' | 'sell', shares: number, price: number, at: number) =>
    chainFill({
      tx_hash: txHash(0x100 + n),
      block_number: 80_000_000 + n,
      block_time_ms: at,
      wallet: LEADER,
      market_id: MARKET,
      ledger_group: MARKET,
      market_title: 'Golden market?',
      fill: {
        side,
        asset_id: YES,
        shares_micro: String(shares * 1e6),
        usdc_micro: String(Math.round(shares * price * 1e6)),
        price,
        yes_price: price,
      },
    });
  const book = (hash: string, at: number, bids: Array<[number, number]>, asks: Array<[number, number]>) =>
    bookSnapshot({
      market_id: MARKET,
      asset_id: YES,
      hash,
      timestamp_ms: at,
      bids: bids.map(([price, size]) => ({ price, size })),
      asks: asks.map(([price, size]) => ({ price, size })),
    });
  await h.given({
    markets: [
      marketUpserted({
        market_id: MARKET,
        title: 'Golden market?',
        outcome_token_ids: [YES, NO],
        fees_enabled: true,
        fee_rate: 0.02,
        fee_exponent: 1,
        fee_taker_only: true,
      }),
    ],
    bookSnapshots: [
      book(
        'b1',
        T0 - 60_000,
        [[0.39, 100]],
        [
          [0.4, 10],
          [0.41, 100],
        ],
      ),
      book('b2', T0 + 10_000, [[0.41, 100]], [[0.42, 100]]),
      book(
        'b3',
        T0 + 2 * HOUR + 20_000,
        [
          [0.59, 5],
          [0.58, 100],
        ],
        [[0.61, 100]],
      ),
    ],
    chainLedger: [fill(1, 'buy', 100, 0.4, T0), fill(2, 'buy', 50, 0.5, T0 + HOUR), fill(3, 'sell', 100, 0.6, T0 + 2 * HOUR)],
  });
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const range = `from=${new Date(DAY_START).toISOString()}&to=${new Date(DAY_START + 24 * HOUR).toISOString()}`;
const copyQuery = (delay: number) =>
  `/backtest?strategy=copy_wallet&wallet=${LEADER}&sizing=fixed&usdc=10&delay_seconds=${delay}&starting_cash_usdc=1000&${range}`;

test('copy_wallet: three trades, a fee, book and impact fills - every figure as computed by hand', async () => {
  const response = await h.get(copyQuery(30));
  expect(response.status).toBe(200);
  const data = response.body.data;
  expect(data.strategy).toEqual({ kind: 'copy_wallet', wallet: LEADER, sizing: { rule: 'fixed', usdc: 10 }, delay_seconds: 30 });
  expect(data.summary).toEqual({
    final_equity_usdc: 1005.587305,
    total_return_pct: 0.5587,
    max_drawdown_pct: 0,
    win_rate_pct: null,
    won: 0,
    lost: 0,
    trades: 3,
    skipped: 0,
    fees_paid_usdc: 0.296028,
    slippage_paid_usdc: 0.858731,
    volume_usdc: 29.716666,
    book_fills: 2,
    impact_fills: 1,
  });
  expect(data.equity_curve).toEqual([
    {
      date: new Date(DAY_START).toISOString().slice(0, 10),
      cash_usdc: 989.420638,
      positions_usdc: 16.166667,
      equity_usdc: 1005.587305,
    },
  ]);
  const [one, two, three] = data.trades;
  expect(one).toEqual({
    at: new Date(T0 + 30_000).toISOString(),
    market_id: MARKET,
    market_title: 'Golden market?',
    asset_id: YES,
    outcome: 'Yes',
    side: 'buy',
    trigger: `137:${txHash(0x101)}:0`,
    reference_price: 0.4,
    avg_price: 0.42,
    shares: 23.809523,
    notional_usdc: 10,
    fee_usdc: 0.116,
    slippage_usdc: 0.476191,
    basis: 'book',
    book_at: new Date(T0 + 10_000).toISOString(),
    fills: [{ level: 1, price: 0.42, shares: 23.809523, notional_usdc: 10, fee_usdc: 0.116 }],
  });
  expect(two).toMatchObject({
    basis: 'trade_impact',
    book_at: null,
    avg_price: 0.50501,
    shares: 19.801588,
    fee_usdc: 0.098998,
    slippage_usdc: 0.099206,
    fills: [{ level: null, price: 0.50501, shares: 19.801588, notional_usdc: 10, fee_usdc: 0.098998 }],
  });
  expect(three).toMatchObject({
    side: 'sell',
    basis: 'book',
    shares: 16.666666,
    notional_usdc: 9.716666,
    fee_usdc: 0.08103,
    avg_price: 0.583,
    slippage_usdc: 0.283334,
    fills: [
      { level: 1, price: 0.59, shares: 5, notional_usdc: 2.95, fee_usdc: 0.02419 },
      { level: 2, price: 0.58, shares: 11.666666, notional_usdc: 6.766666, fee_usdc: 0.05684 },
    ],
  });
  expect(data.settlements).toEqual([]);
  expect(data.skipped).toEqual([]);
});

test('the delay changes the fill price: without it the first buy walks the T0-60s book (0.40 then 0.41)', async () => {
  const data = (await h.get(copyQuery(0))).body.data;
  // 10 @ 0.40 = 4 USDC, then 6 USDC / 0.41 = 14.634146 shares; fees 0.048 and 0.0708.
  expect(data.trades[0]).toMatchObject({
    avg_price: 0.405941,
    shares: 24.634146,
    fee_usdc: 0.1188,
    slippage_usdc: 0.146342,
    book_at: new Date(T0 - 60_000).toISOString(),
    fills: [
      { level: 1, price: 0.4, shares: 10, notional_usdc: 4, fee_usdc: 0.048 },
      { level: 2, price: 0.41, shares: 14.634146, notional_usdc: 6, fee_usdc: 0.0708 },
    ],
  });
  // The sell at T0+2h comes before the T0+2h+20s book: the impact model, 0.60 - 0.005 - 10 x 0.000001.
  expect(data.trades[2]).toMatchObject({ basis: 'trade_impact', avg_price: 0.59499 });
});

test('deterministic: the same backtest twice is byte-identical, GET and POST alike', async () => {
  const fetchText = async (init?: RequestInit, query = copyQuery(30)) =>
    (await fetch(`${h.api.base}/v1${query}`, { ...init, headers: { authorization: `Bearer ${h.key}`, ...(init?.headers ?? {}) } })).text();
  const first = await fetchText();
  expect(await fetchText()).toBe(first);
  const body = {
    strategy: 'copy_wallet',
    wallet: LEADER,
    sizing: 'fixed',
    usdc: 10,
    delay_seconds: 30,
    starting_cash_usdc: 1000,
    from: new Date(DAY_START).toISOString(),
    to: new Date(DAY_START + 24 * HOUR).toISOString(),
  };
  const post = () =>
    fetchText({ method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }, '/backtest');
  const posted = await post();
  expect(await post()).toBe(posted);
  expect(JSON.parse(posted).data).toEqual(JSON.parse(first).data);
});

test('buy_and_hold and price_threshold over the same tape; bad input is a 400 naming the parameter', async () => {
  // Buy 10 USDC of YES at the day's start: no book then and the last trade before it does not exist -> nothing to reference.
  const hold = (await h.get(`/backtest?strategy=buy_and_hold&market_ids=${MARKET}&order_usdc=10&${range}`)).body.data;
  expect(hold.summary.trades).toBe(0);
  // From T0+1s the last trade is the leader's buy at 0.40: the order fills against the T0-60s book (age 61 s):
  // 10 @ 0.40 then 14.634146 @ 0.41, held to the end at the 0.60 close.
  const from = new Date(T0 + 1_000).toISOString();
  const held = (
    await h.get(
      `/backtest?strategy=buy_and_hold&market_ids=${MARKET}&order_usdc=10&from=${from}&to=${new Date(DAY_START + 24 * HOUR).toISOString()}`,
    )
  ).body.data;
  expect(held.trades).toHaveLength(1);
  expect(held.trades[0]).toMatchObject({ trigger: 'entry', reference_price: 0.4, shares: 24.634146, basis: 'book' });
  // The YES price moved 0.40 -> 0.50 (+25 %) within 90 minutes: momentum buys YES at the move's trade.
  const threshold = (
    await h.get(`/backtest?strategy=price_threshold&market_ids=${MARKET}&change_pct=20&window_minutes=90&order_usdc=10&${range}`)
  ).body.data;
  expect(threshold.trades.map((t: any) => [t.trigger, t.side, t.outcome])).toEqual([[`137:${txHash(0x102)}:0`, 'buy', 'Yes']]);

  for (const [query, parameter] of [
    ['/backtest?strategy=copy_wallet', 'wallet'],
    [`/backtest?strategy=copy_wallet&wallet=${LEADER}&sizing=capped&ratio=0.1`, 'cap_usdc'],
    [`/backtest?strategy=copy_wallet&wallet=${LEADER}&from=2020-01-01T00:00:00Z&to=2022-01-01T00:00:00Z`, 'from'],
    ['/backtest?strategy=price_threshold', 'market_ids'],
    ['/backtest?strategy=nope', 'strategy'],
  ] as const) {
    const response = await h.get(query);
    expect([query, response.status]).toEqual([query, 400]);
    expect(response.body.error).toContain(parameter);
  }
});

test('GET takes 200 market ids with plain commas, the most its URL can carry; 201 is a 400 naming market_ids', async () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => conditionId(0x7000 + i)).join(',');
  const fits = await h.get(`/backtest?strategy=buy_and_hold&market_ids=${ids(200)}&order_usdc=10&${range}`);
  expect([fits.status, fits.body.error]).toEqual([200, undefined]);
  const over = await h.get(`/backtest?strategy=buy_and_hold&market_ids=${ids(201)}&order_usdc=10&${range}`);
  expect(over.status).toBe(400);
  expect(over.body.error).toContain('market_ids');
});
