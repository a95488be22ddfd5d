/**
 * Paper trading through the HTTP API over the real engines (file log -> sink -> chDB books; PGlite
 * ledger; the sandbox processor for resting fills and settlement), every response validated against
 * the API document. Expected figures are computed by hand in the comments.
 */
import { bookSnapshot, conditionId, marketResolved, marketUpserted, tradeExecuted } from '../support/events.js';
import { type SandboxHarness, sandboxHarness } from '../support/sandbox-harness.js';

const MARKET = conditionId(101);
const YES = '1011';
const NO = '1012';
const VOID_MARKET = conditionId(102);
const STALE_MARKET = conditionId(104);
const now = Date.now();

let h: SandboxHarness;
let key: string;

const order = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  h.request('POST', '/paper/orders', key, body, headers);
const buy = (size: unknown, extra: Record<string, unknown> = {}) =>
  order({ market_id: MARKET, outcome: 'YES', side: 'buy', type: 'market', size, ...extra });

beforeAll(async () => {
  h = await sandboxHarness('paper', { env: { PAPER_STARTING_BALANCE_USDC: '10000' } });
  await h.given({
    markets: [
      marketUpserted({
        market_id: MARKET,
        category: 'Sports',
        outcome_token_ids: [YES, NO],
        tick_size: 0.01,
        end_ms: now + 2 * 3_600_000,
        fees_enabled: true,
        fee_type: 'sports_fees_v2',
        fee_rate: 0.03,
        fee_exponent: 1,
        fee_taker_only: true,
      }),
      marketUpserted({ market_id: VOID_MARKET, outcome_token_ids: ['1021', '1022'], tick_size: 0.01 }),
      marketUpserted({ market_id: conditionId(103), outcome_token_ids: ['1031', '1032'], status: 'resolved', outcome_prices: [1, 0] }),
      marketUpserted({ market_id: STALE_MARKET, outcome_token_ids: ['1041', '1042'], tick_size: 0.01 }),
    ],
    bookSnapshots: [
      bookSnapshot({
        market_id: MARKET,
        asset_id: YES,
        hash: 'b1',
        timestamp_ms: now - 60_000,
        asks: [
          { price: 0.5, size: 100 },
          { price: 0.52, size: 200 },
          { price: 0.55, size: 500 },
        ],
        bids: [
          { price: 0.48, size: 100 },
          { price: 0.47, size: 300 },
        ],
      }),
      bookSnapshot({
        market_id: VOID_MARKET,
        asset_id: '1021',
        hash: 'v1',
        timestamp_ms: now - 60_000,
        asks: [{ price: 0.3, size: 1000 }],
        bids: [{ price: 0.28, size: 1000 }],
      }),
      // Older than PAPER_MAX_BOOK_AGE_MS (an hour by default).
      bookSnapshot({
        market_id: STALE_MARKET,
        asset_id: '1041',
        hash: 's1',
        timestamp_ms: now - 2 * 3_600_000,
        asks: [{ price: 0.3, size: 1000 }],
        bids: [{ price: 0.28, size: 1000 }],
      }),
    ],
  });
  key = await h.register('paper-agent');
}, 60_000);
afterAll(() => h?.close());

test('an order against a book older than PAPER_MAX_BOOK_AGE_MS is refused, naming the market and the bound (issue 59, low)', async () => {
  const refused = await order({ market_id: STALE_MARKET, outcome: 'YES', side: 'buy', type: 'market', size: '10' });
  expect(refused.status).toBe(400);
  expect(refused.body.error).toMatch(
    /^market_id: the newest indexed book of Yes is \d+ s old, older than 3600 s \(PAPER_MAX_BOOK_AGE_MS\)/,
  );
  const account = (await h.request('GET', '/paper/account', key)).body.data;
  expect(account.open_positions).toBe(0);
});

test('a market buy walks the book level by level, pays the taker fee per fill and reports slippage', async () => {
  const response = await buy('250');
  expect(response.status).toBe(201);
  const placed = response.body.data;
  // 100 @ 0.50 + 150 @ 0.52: notional 50 + 78 = 128; fees 100 x 0.03 x 0.5 x 0.5 = 0.75 and
  // 150 x 0.03 x 0.52 x 0.48 = 1.1232; average 128 / 250 = 0.512; slippage 128 - 250 x 0.50 = 3 (3 / 125 = 240 bps).
  // Sent as YES: served as the market's own label with its index (api/openapi.yaml, Conventions).
  expect(placed).toMatchObject({
    outcome: 'Yes',
    outcome_index: 0,
    status: 'filled',
    filled_size: 250,
    remaining_size: 0,
    avg_fill_price: 0.512,
    filled_notional_usdc: 128,
    fees_usdc: 1.8732,
    best_price_at_submission: 0.5,
    mid_at_submission: 0.49,
    slippage_usdc: 3,
    slippage_bps: 240,
    fee_schedule: { rate: 0.03, exponent: 1, basis: 'market' },
    book: { hash: 'b1', source: 'simulator' },
  });
  expect(placed.fills.map((f: any) => [f.level, f.price, f.size, f.notional_usdc, f.fee_usdc, f.liquidity])).toEqual([
    [1, 0.5, 100, 50, 0.75, 'taker'],
    [2, 0.52, 150, 78, 1.1232, 'taker'],
  ]);

  // Cash 10000 - 128 - 1.8732 = 9870.1268; the position is marked at the mid 0.49: value 122.5, unrealized 122.5 - 128 = -5.5.
  const account = (await h.request('GET', '/paper/account', key)).body.data;
  expect(account).toMatchObject({
    cash_usdc: 9870.1268,
    positions_value_usdc: 122.5,
    equity_usdc: 9992.6268,
    unrealized_pnl_usdc: -5.5,
    realized_pnl_usdc: 0,
    fees_paid_usdc: 1.8732,
    net_pnl_usdc: -7.3732,
    open_positions: 1,
  });
  const [position] = (await h.request('GET', '/paper/positions', key)).body.data;
  expect(position).toMatchObject({
    outcome: 'Yes',
    outcome_index: 0,
    shares: 250,
    avg_entry_price: 0.512,
    cost_basis_usdc: 128,
    mark_price: 0.49,
    mark_basis: 'mid',
  });
});

test("a book's liquidity is taken once per agent: a second order walks what the first left; another agent sees the whole book (issue 59, low)", async () => {
  const agent = await h.register('paper-agent-liquidity');
  const take = async () =>
    (
      await h.request('POST', '/paper/orders', agent, { market_id: MARKET, outcome: 'YES', side: 'buy', type: 'market', size: '150' })
    ).body.data.fills.map((f: any) => [f.price, f.size]);
  // Book b1 asks: 100 @ 0.50, 200 @ 0.52, 500 @ 0.55 (the first test's agent took from it too, which does not count here).
  expect(await take()).toEqual([
    [0.5, 100],
    [0.52, 50],
  ]);
  expect(await take()).toEqual([[0.52, 150]]);
  expect(await take()).toEqual([[0.55, 150]]);
});

test('bad orders are 400s naming the field', async () => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ size: '0' }, /^size: must be greater than 0/],
    [{ size: '1.234' }, /^size: .*at most 2 decimals/],
    [{ type: 'limit', price: '0.505' }, /^price: .*tick size 0.01/],
    [{ type: 'limit', price: '1' }, /^price: must be strictly between 0 and 1/],
    [{ type: 'limit', price: '0' }, /^price: must be strictly between 0 and 1/],
    [{ type: 'limit' }, /^price: required/],
    [{ market_id: conditionId(999) }, /^market_id: unknown market/],
    [{ market_id: conditionId(103) }, /^market_id: .* is resolved/],
    [{ outcome: 'MAYBE' }, /^outcome: not an outcome/],
    // A resting buy holds size x price: 100000 x 0.55 is far beyond the cash.
    [{ type: 'limit', price: '0.55', size: '100000' }, /^size: insufficient paper cash/],
    [{ side: 'sell', size: '251' }, /^size: more than the 250 shares/],
    [{ time_in_force: 'GTC' }, /^time_in_force: a market order is IOC or FOK/],
  ];
  for (const [over, message] of cases) {
    const response = await order({ market_id: MARKET, outcome: 'YES', side: 'buy', type: 'market', size: '10', ...over });
    expect({ over, status: response.status, code: response.body.code }).toEqual({ over, status: 400, code: 'BAD_REQUEST' });
    expect(response.body.error).toMatch(message);
  }
  // Shapes the document refuses are 400s too.
  const negative = await order({ market_id: MARKET, outcome: 'YES', side: 'buy', type: 'market', size: -5 });
  expect(negative.status).toBe(400);
  expect(negative.body.error).toMatch(/size/);
});

test('FOK fills all or nothing; IOC cancels the remainder', async () => {
  // 900 YES would need more than the 800 asked.
  const fok = (await buy('900', { time_in_force: 'FOK' })).body.data;
  expect(fok).toMatchObject({ status: 'cancelled', cancel_reason: 'fok_not_fillable', filled_size: 0, fills: [] });
  const ioc = (await buy('10', { price: '0.49' })).body.data;
  expect(ioc).toMatchObject({ status: 'cancelled', cancel_reason: 'no_liquidity', filled_size: 0 });
});

test('a resting limit buy fills as the maker when a later book crosses it, then when a trade prints through it', async () => {
  const rest = await order({ market_id: MARKET, outcome: 'YES', side: 'buy', type: 'limit', price: '0.45', size: '100' });
  expect(rest.status).toBe(201);
  expect(rest.body.data).toMatchObject({ status: 'open', filled_size: 0, remaining_size: 100 });
  const orderId = rest.body.data.order_id;
  // 100 x 0.45 = 45 held aside.
  expect((await h.request('GET', '/paper/account', key)).body.data).toMatchObject({
    reserved_usdc: 45,
    cash_usdc: 9825.1268,
    open_orders: 1,
  });

  // A newer book asks 60 at 0.44 (and more above our price): 60 fill at our 0.45, no fee.
  await h.given({
    bookSnapshots: [
      bookSnapshot({
        market_id: MARKET,
        asset_id: YES,
        hash: 'b2',
        timestamp_ms: Date.now() + 1_000,
        asks: [
          { price: 0.44, size: 60 },
          { price: 0.46, size: 500 },
        ],
        bids: [{ price: 0.43, size: 100 }],
      }),
    ],
  });
  const partial = (await h.request('GET', `/paper/orders/${orderId}`, key)).body.data;
  expect(partial).toMatchObject({ status: 'partial', filled_size: 60, remaining_size: 40, fees_usdc: 0 });
  expect(partial.fills).toEqual([
    expect.objectContaining({
      price: 0.45,
      size: 60,
      notional_usdc: 27,
      fee_usdc: 0,
      liquidity: 'maker',
      trigger: 'book',
      level: null,
    }),
  ]);

  // A trade at exactly 0.45 does not fill it (queue place unknown); one at 0.44 for 100 fills the last 40.
  await h.given({
    trades: [
      tradeExecuted({
        event_id: 't-at',
        market_id: MARKET,
        asset_id: YES,
        price: 0.45,
        size: 100,
        size_usdc: 45,
        timestamp_ms: Date.now() + 2_000,
      }),
    ],
  });
  expect((await h.request('GET', `/paper/orders/${orderId}`, key)).body.data.status).toBe('partial');
  await h.given({
    trades: [
      tradeExecuted({
        event_id: 't-through',
        market_id: MARKET,
        asset_id: YES,
        price: 0.44,
        size: 100,
        size_usdc: 44,
        timestamp_ms: Date.now() + 3_000,
      }),
    ],
  });
  const filled = (await h.request('GET', `/paper/orders/${orderId}`, key)).body.data;
  expect(filled).toMatchObject({ status: 'filled', filled_size: 100, filled_notional_usdc: 45, avg_fill_price: 0.45 });
  expect(filled.fills.map((f: any) => f.trigger)).toEqual(['book', 'trade']);
  // All 45 held were spent: nothing stays reserved, cash is where the reservation left it.
  const after = (await h.request('GET', '/paper/account', key)).body.data;
  expect(after).toMatchObject({ reserved_usdc: 0, cash_usdc: 9825.1268, open_orders: 0 });
  // 350 shares now: cost 128 + 45 = 173.
  const [position] = (await h.request('GET', '/paper/positions', key)).body.data;
  expect(position).toMatchObject({ shares: 350, cost_basis_usdc: 173 });
});

test('cancel releases a resting order; cancelling twice is 409, an unknown order 404', async () => {
  const cash = 9825.1268;
  const rest = (await order({ market_id: MARKET, outcome: 'YES', side: 'buy', type: 'limit', price: '0.3', size: '10' })).body.data;
  expect((await h.request('GET', '/paper/account', key)).body.data.cash_usdc).toBe(9822.1268);
  const cancelled = await h.request('POST', `/paper/orders/${rest.order_id}/cancel`, key);
  expect(cancelled.body.data).toMatchObject({ status: 'cancelled', cancel_reason: 'cancelled_by_agent' });
  expect((await h.request('GET', '/paper/account', key)).body.data).toMatchObject({ cash_usdc: cash, reserved_usdc: 0 });
  const again = await h.request('POST', `/paper/orders/${rest.order_id}/cancel`, key);
  expect(again.status).toBe(409);
  expect(again.body.code).toBe('CONFLICT');
  expect((await h.request('POST', '/paper/orders/po_0000/cancel', key)).status).toBe(404);
});

test('a sell realizes PnL against the average entry and pays the fee on proceeds', async () => {
  // The latest book bids 0.43 x 100: 100 sold at 0.43 = 43; fee 100 x 0.03 x 0.43 x 0.57 = 0.7353.
  // Cost removed: 173 x 100 / 350 = 49.428571 (half up); realized 43 - 49.428571 = -6.428571.
  const sold = (await order({ market_id: MARKET, outcome: 'YES', side: 'sell', type: 'market', size: '100' })).body.data;
  expect(sold).toMatchObject({ status: 'filled', filled_notional_usdc: 43, fees_usdc: 0.7353 });
  const account = (await h.request('GET', '/paper/account', key)).body.data;
  expect(account.realized_pnl_usdc).toBe(-6.428571);
  // 9825.1268 + 43 - 0.7353
  expect(account.cash_usdc).toBe(9867.3915);
  const [position] = (await h.request('GET', '/paper/positions', key)).body.data;
  // 250 left at cost 173 - 49.428571 = 123.571429.
  expect(position).toMatchObject({ shares: 250, cost_basis_usdc: 123.571429, realized_pnl_usdc: -6.428571 });
});

test('resolution settles positions at the payout; a void returns them at average entry', async () => {
  const voidKey = await h.register('void-agent');
  const bought = await h.request('POST', '/paper/orders', voidKey, {
    market_id: VOID_MARKET,
    outcome: 'YES',
    side: 'buy',
    type: 'market',
    size: '100',
  });
  expect(bought.body.data).toMatchObject({ filled_notional_usdc: 30, fees_usdc: 0 });
  await h.given({
    marketResolutions: [
      marketResolved({
        market_id: MARKET,
        outcome_token_ids: [YES, NO],
        payouts: [1, 0],
        winning_outcome: 'Yes',
        resolved_at_ms: Date.now(),
      }),
      marketResolved({
        market_id: VOID_MARKET,
        outcome_token_ids: ['1021', '1022'],
        payouts: [0, 0],
        winning_outcome: null,
        winning_outcome_index: -1,
      }),
    ],
  });
  // 250 YES pay 1 each: proceeds 250, realized 250 - 123.571429 = 126.428571, total realized -6.428571 + 126.428571 = 120.
  const account = (await h.request('GET', '/paper/account', key)).body.data;
  expect(account).toMatchObject({ realized_pnl_usdc: 120, open_positions: 0, positions_value_usdc: 0 });
  expect(account.cash_usdc).toBe(10117.3915);
  const settlements = (await h.request('GET', '/paper/settlements', key)).body;
  expect(settlements.data).toEqual([
    expect.objectContaining({
      kind: 'resolved',
      shares: 250,
      price: 1,
      proceeds_usdc: 250,
      realized_pnl_usdc: 126.428571,
      winning_outcome: 'Yes',
    }),
  ]);
  const voided = (await h.request('GET', '/paper/settlements', voidKey)).body.data;
  expect(voided).toEqual([expect.objectContaining({ kind: 'voided', shares: 100, price: 0.3, proceeds_usdc: 30, realized_pnl_usdc: 0 })]);
  expect((await h.request('GET', '/paper/account', voidKey)).body.data).toMatchObject({ cash_usdc: 10000, equity_usdc: 10000 });
  // The market is resolved now: new orders are refused.
  expect((await buy('1')).body.error).toMatch(/is resolved/);
  // Redelivering the resolution settles nothing twice.
  await h.given({ marketResolutions: [marketResolved({ market_id: MARKET, outcome_token_ids: [YES, NO], payouts: [1, 0] })] });
  expect((await h.request('GET', '/paper/account', key)).body.data.realized_pnl_usdc).toBe(120);
});

test('history pages with cursors; reset starts a new epoch and keeps the old one readable', async () => {
  const pages: any[] = [];
  let url = '/paper/fills?limit=2';
  for (;;) {
    const { body } = await h.request('GET', url, key);
    pages.push(...body.data);
    if (!body.pagination.has_more) break;
    url = `/paper/fills?limit=2&cursor=${body.pagination.next_cursor}`;
  }
  // 2 submission fills, 2 resting fills, 1 sell fill; newest first, each once.
  expect(pages).toHaveLength(5);
  expect(new Set(pages.map((f) => f.fill_id)).size).toBe(5);
  expect(pages.at(-1)).toMatchObject({ level: 1, price: 0.5 });

  const reset = (await h.request('POST', '/paper/reset', key)).body.data;
  expect(reset).toMatchObject({ epoch: 2, cash_usdc: 10000, realized_pnl_usdc: 0, open_positions: 0 });
  expect((await h.request('GET', '/paper/fills', key)).body.data).toEqual([]);
  expect((await h.request('GET', '/paper/fills?epoch=1', key)).body.data).toHaveLength(5);
});

test('sandbox endpoints are for agent keys: a developer key gets 403', async () => {
  const developer = (await h.api.admin.createKey('dev', '3')).api_key;
  expect((await h.request('GET', '/paper/account', developer)).status).toBe(403);
});
