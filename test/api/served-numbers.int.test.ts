/**
 * The Conventions of api/openapi.yaml over real responses: the sandbox stack on the embedded engines
 * (file log -> sink -> chDB; the control store; the HTTP API with response validation on), fed data
 * whose floats carry noise the way upstream data does (Gamma's volume_24h_usdc 401922.3434441496; a
 * Data API fill's size x price), then every changed endpoint read. No served number may have more
 * than 6 decimals and no value may be a numeric string, save ids and the exact-integer and
 * exact-decimal fields the document names.
 */
import { fromTrade } from '../../services/copy/leader-fill.js';
import { insertIntents } from '../../services/copy/intents.js';
import { bookSnapshot, conditionId, marketUpserted, tradeExecuted, walletAddress } from '../support/events.js';
import { type SandboxHarness, sandboxHarness } from '../support/sandbox-harness.js';
import { breaches } from '../support/served-numbers.js';

const MARKET = conditionId(301);
const YES = '3011';
const NO = '3012';
const LEADER = walletAddress(0x301);
const now = Date.now();

let h: SandboxHarness;
let agent: string;
let developer: string;

beforeAll(async () => {
  h = await sandboxHarness('served-numbers', { env: { PAPER_STARTING_BALANCE_USDC: '10000' } });
  await h.given({
    markets: [
      marketUpserted({
        market_id: MARKET,
        category: 'Politics',
        outcome_token_ids: [YES, NO],
        outcome_prices: [0.37, 0.63],
        tick_size: 0.01,
        end_ms: now + 24 * 3_600_000,
        volume_24h_usdc: 401922.3434441496,
        volume_total_usdc: 1234567.8912346,
        liquidity_usdc: 5021.123456789,
        fees_enabled: true,
        fee_type: 'politics_fees',
        fee_rate: 0.0175,
        fee_exponent: 1,
        fee_taker_only: true,
      }),
    ],
    trades: [
      // A Data API fill: size_usdc is size x price in floats (0.57 x 3.3 = 1.8809999999999998).
      tradeExecuted({
        event_id: 'noisy-1',
        market_id: MARKET,
        asset_id: YES,
        wallet: LEADER,
        price: 0.57,
        yes_price: 0.57,
        size: 3.3,
        size_usdc: 0.57 * 3.3,
        timestamp_ms: now - 120_000,
        ingested_at_ms: now - 120_000,
      }),
    ],
    bookSnapshots: [
      bookSnapshot({
        market_id: MARKET,
        asset_id: YES,
        hash: 'n1',
        timestamp_ms: now - 60_000,
        asks: [
          { price: 0.37, size: 30 },
          { price: 0.38, size: 500 },
        ],
        bids: [{ price: 0.36, size: 300 }],
      }),
      // A book whose sizes carry float noise and more than 6 decimals.
      bookSnapshot({
        market_id: MARKET,
        asset_id: NO,
        hash: 'n2',
        timestamp_ms: now - 60_000,
        asks: [{ price: 0.64, size: 12.3456789 }],
        bids: [{ price: 0.62, size: 0.1 + 0.2 }],
      }),
    ],
  });
  agent = await h.register('served-numbers-agent');
  developer = (await h.api.admin.createKey('served-numbers-dev', '3')).api_key;
}, 90_000);
afterAll(() => h?.close());

/** Reads a response and returns its body after checking the status. */
async function read(method: string, path: string, key: string, body?: unknown, status = 200): Promise<any> {
  const response = await h.request(method, path, key, body);
  expect({ path, status: response.status, error: response.body.error }).toEqual({ path, status, error: undefined });
  return response.body;
}

test('market, trade and candle numbers are rounded to 6 decimals: upstream float noise is not served', async () => {
  const markets = await read('GET', '/markets?status=all', developer);
  const market = markets.data.find((m: any) => m.id === MARKET);
  expect(market).toMatchObject({ volume_24h_usdc: 401922.343444, volume_total_usdc: 1234567.891235, liquidity_usdc: 5021.123457 });
  const detail = await read('GET', `/markets/${MARKET}`, developer);
  const trades = await read('GET', `/trades?market=${MARKET}&from=${new Date(now - 3_600_000).toISOString()}`, developer);
  expect(trades.data).toEqual([expect.objectContaining({ price: 0.57, size_shares: 3.3, size_usdc: 1.881 })]);
  expect(breaches({ markets, detail, trades })).toEqual([]);
});

test('order book levels, tops and history are rounded to 6 decimals, live and at an instant', async () => {
  const live = await read('GET', `/markets/${MARKET}/orderbook`, developer);
  const at = await read('GET', `/markets/${MARKET}/orderbook?at=${encodeURIComponent(new Date(now - 30_000).toISOString())}`, developer);
  const history = await read('GET', `/orderbook/history?market=${MARKET}&outcome=No&interval=1h`, developer);
  for (const book of [live.data, at.data]) {
    expect(book.outcomes[1]).toMatchObject({
      best_bid: 0.62,
      best_ask: 0.64,
      mid: 0.63,
      spread: 0.02,
      spread_bps: 317.46,
      bids: [{ price: 0.62, size_shares: 0.3 }],
      asks: [{ price: 0.64, size_shares: 12.345679 }],
    });
    // 0.37 - 0.36 is 0.010000000000000009 in binary floating point.
    expect(book.yes).toEqual({ best_bid: 0.36, best_ask: 0.37, mid: 0.365, spread: 0.01, spread_bps: 273.97 });
  }
  expect(history.data.points).toEqual([
    expect.objectContaining({ best_bid: 0.62, best_ask: 0.64, bid_depth_shares: 0.3, ask_depth_shares: 12.345679 }),
  ]);
  expect(breaches({ live, at, history })).toEqual([]);
});

test('paper, fees, copy, backtest, strategies and picks serve amounts as numbers, never numeric strings', async () => {
  const placed = await read(
    'POST',
    '/paper/orders',
    agent,
    { market_id: MARKET, outcome: 'yes', side: 'buy', type: 'market', size: 40 },
    201,
  );
  // 30 @ 0.37 + 10 @ 0.38 = 14.9; served as a number, with the market's own label and its index.
  expect(placed.data).toMatchObject({
    outcome: 'Yes',
    outcome_index: 0,
    filled_size: 40,
    filled_notional_usdc: 14.9,
    avg_fill_price: 0.3725,
  });
  const resting = await read(
    'POST',
    '/paper/orders',
    agent,
    { market_id: MARKET, outcome: 'YES', side: 'buy', type: 'limit', price: '0.33', size: '12.5' },
    201,
  );
  expect(resting.data).toMatchObject({ outcome: 'Yes', limit_price: 0.33, size: 12.5, remaining_size: 12.5 });
  const paper = await Promise.all(
    ['/paper/account', '/paper/positions', '/paper/orders', '/paper/fills', '/paper/settlements', '/briefing'].map((path) =>
      read('GET', path, agent),
    ),
  );

  const fee = await read('POST', '/fees/quote', developer, { notional_usdc: '123.456789', currency: 'credits' }, 201);
  expect(fee.data).toMatchObject({ notional_usdc: 123.456789, amount: expect.any(String), amount_base_units: expect.any(String) });
  const fees = await read('GET', '/fees/ledger', developer);
  const oneFee = await read('GET', `/fees/${fee.data.fee_id}`, developer);

  const subscription = await read(
    'POST',
    '/copy/subscriptions',
    developer,
    {
      leader_wallet: LEADER,
      sizing: { rule: 'capped', ratio: '0.25', cap_usdc: 40.5 },
      limits: { max_price: 0.9, min_order_usdc: '1.25' },
    },
    201,
  );
  expect(subscription.data).toMatchObject({
    id: expect.any(Number),
    sizing: { rule: 'capped', ratio: 0.25, cap_usdc: 40.5 },
    limits: { max_price: 0.9, min_order_usdc: 1.25 },
  });
  const [owner] = await h.control.query<{ account_id: string }>(
    'SELECT account_id::text AS account_id FROM copy_subscriptions WHERE id = $1',
    [subscription.data.id],
  );
  const fill = fromTrade(
    tradeExecuted({ event_id: 'leader-1', market_id: MARKET, asset_id: YES, wallet: LEADER, price: 0.57, size: 3.3, size_usdc: 1.881 }),
  )!;
  await insertIntents(h.control, [
    {
      subscriptionId: String(subscription.data.id),
      accountId: owner!.account_id,
      fill,
      childMicros: 470_250n,
      childSharesMicros: 825_000n,
      status: 'dry_run',
      reason: null,
      createdAtMs: now,
    },
  ]);
  const intents = await read('GET', '/copy/intents', developer);
  expect(intents.data).toEqual([
    expect.objectContaining({ leader_price: 0.57, leader_size_usdc: 1.881, child_size_usdc: 0.47025, child_shares: 0.825 }),
  ]);
  const subscriptions = await read('GET', '/copy/subscriptions', developer);

  const window = `from=${encodeURIComponent(new Date(now - 86_400_000).toISOString())}&to=${encodeURIComponent(new Date(now).toISOString())}`;
  const backtest = await read(
    'GET',
    `/backtest?strategy=copy_wallet&wallet=${LEADER}&sizing=fixed&usdc=10.5&starting_cash_usdc=1000&${window}`,
    developer,
  );
  expect(backtest.data).toMatchObject({ starting_cash_usdc: 1000, strategy: { sizing: { rule: 'fixed', usdc: 10.5 } } });
  const strategy = await read(
    'POST',
    '/strategies',
    developer,
    { name: 'served-numbers', market_ids: [MARKET], change_pct: 5, window_minutes: 15, order_usdc: '25.5' },
    201,
  );
  expect(strategy.data.config.order_usdc).toBe(25.5);
  const strategies = await read('GET', '/strategies', developer);
  const picks = await read('GET', '/copy-picks', developer);

  expect(
    breaches({ placed, resting, paper, fee, fees, oneFee, subscription, intents, subscriptions, backtest, strategy, strategies, picks }),
  ).toEqual([]);
});

test('the walk reports numeric strings and float noise by path', () => {
  expect(breaches({ a: { cash_usdc: '12.5', fee_id: '17', size_usdc_micro: '1881000' }, b: [0.1 + 0.2, 1.881, 1e-7] })).toEqual([
    { path: '$.a.cash_usdc', value: '12.5' },
    { path: '$.b[0]', value: 0.30000000000000004 },
    { path: '$.b[2]', value: 1e-7 },
  ]);
});
