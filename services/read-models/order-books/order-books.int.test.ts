/** Order books: book and delta events -> order_books / order_book_deltas rows -> the live book and its history. */
import { bookDelta, bookSnapshot, conditionId, marketUpserted } from '../../../test/support/events.js';
import { DAY_MS, startOfUtcDay } from '../../shared/time.js';
import { getJson } from '../../../test/support/http.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';

const M = conditionId(0x33);
const BARE = conditionId(0x44);
const UNBOOKED = conditionId(0x55);
const YES = '7'.repeat(77);
const NO = '8'.repeat(77);
const at = (ms: number) => new Date(ms).toISOString();
const level = (price: number, size: number) => ({ price, size });
// Noon two days ago, relative to the clock: deltas are kept 7 days and books 30 (the tables' TTLs),
// so rows at a fixed date would be dropped on insert once it is that old.
const T0 = startOfUtcDay(Date.now()) - 2 * DAY_MS + 12 * 3_600_000;

let h: ProjectionHarness;
let tier1: string;

beforeAll(async () => {
  h = await projectionHarness('order_books');
  tier1 = (await h.api.admin.createKey('t1', '1')).api_key;
  const deeper = Array.from({ length: 25 }, (_, i) => level(Math.round((0.47 - i * 0.01) * 100) / 100, 10));
  await h.given({
    markets: [
      marketUpserted({ market_id: M, slug: 'book-33', outcome_token_ids: [YES, NO] }),
      marketUpserted({ market_id: BARE, outcome_token_ids: [] }),
      marketUpserted({ market_id: UNBOOKED, outcome_token_ids: ['5'.repeat(77), '6'.repeat(77)] }),
    ],
    bookSnapshots: [
      bookSnapshot({ market_id: M, asset_id: YES, hash: 'old', timestamp_ms: T0 - 600_000, bids: [level(0.4, 1)], asks: [level(0.6, 1)] }),
      bookSnapshot({
        market_id: M,
        asset_id: YES,
        hash: 'h1',
        timestamp_ms: T0,
        bids: [level(0.48, 100), ...deeper],
        asks: [level(0.52, 10), level(0.55, 5)],
      }),
      bookSnapshot({ market_id: M, asset_id: NO, hash: 'h2', timestamp_ms: T0, bids: [], asks: [level(0.5, 20)] }),
    ],
    bookDeltas: [
      bookDelta({
        event_id: 'd1',
        timestamp_ms: T0,
        ingested_at_ms: T0,
        market_id: M,
        asset_id: NO,
        side: 'bid',
        price: 0.45,
        size: 0,
        hash: 'h3',
        best_bid: null,
        best_ask: 0.5,
      }),
    ],
  });
}, 60_000);
afterAll(() => h.close());

test('rows: one per distinct book (levels as parallel arrays, best first) and one per delta', async () => {
  const books = await h.rows(
    `SELECT book_id, asset_id, hash, toUnixTimestamp64Milli(ts) AS ts_ms, bid_prices, bid_sizes, ask_prices, ask_sizes, best_bid, best_ask, origin, source
       FROM order_books FINAL WHERE hash IN ('old', 'h2') ORDER BY ts, asset_id`,
  );
  expect(books).toEqual([
    {
      book_id: `${YES}:old`,
      asset_id: YES,
      hash: 'old',
      ts_ms: T0 - 600_000,
      bid_prices: [0.4],
      bid_sizes: [1],
      ask_prices: [0.6],
      ask_sizes: [1],
      best_bid: 0.4,
      best_ask: 0.6,
      origin: 'clob-rest',
      source: 'simulator',
    },
    {
      book_id: `${NO}:h2`,
      asset_id: NO,
      hash: 'h2',
      ts_ms: T0,
      bid_prices: [],
      bid_sizes: [],
      ask_prices: [0.5],
      ask_sizes: [20],
      best_bid: null,
      best_ask: 0.5,
      origin: 'clob-rest',
      source: 'simulator',
    },
  ]);
  expect(await h.rows('SELECT delta_id, asset_id, side, price, size, hash, best_bid, best_ask FROM order_book_deltas FINAL')).toEqual([
    { delta_id: 'd1', asset_id: NO, side: 'bid', price: 0.45, size: 0, hash: 'h3', best_bid: null, best_ask: 0.5 },
  ]);
});

test('order book: latest snapshot, 20 levels best first, spread in bps; null mid on an empty side', async () => {
  const { status, body } = await getJson(`${h.api.base}/v1/markets/${M}/orderbook`, tier1);
  expect(status).toBe(200);
  expect(body.data.yes).toEqual({ best_bid: 0.48, best_ask: 0.52, mid: 0.5, spread: 0.04, spread_bps: 800 });
  const [yes, no] = body.data.outcomes;
  expect(yes.bids).toHaveLength(20);
  expect(yes.bids.slice(0, 2)).toEqual([
    { price: 0.48, size_shares: 100 },
    { price: 0.47, size_shares: 10 },
  ]);
  expect(yes.asks).toEqual([
    { price: 0.52, size_shares: 10 },
    { price: 0.55, size_shares: 5 },
  ]);
  expect(yes.hash).toBe('h1');
  expect(no).toEqual({
    outcome: 'No',
    asset_id: NO,
    best_bid: null,
    best_ask: 0.5,
    mid: null,
    spread: null,
    spread_bps: null,
    bids: [],
    asks: [{ price: 0.5, size_shares: 20 }],
    hash: 'h2',
    timestamp: at(T0),
  });
});

test('a market without token ids -> 404 saying so; unknown market -> 404', async () => {
  const bare = await getJson(`${h.api.base}/v1/markets/${BARE}/orderbook`, tier1);
  expect(bare.status).toBe(404);
  expect(bare.body.error).toMatch(/no indexed outcome token ids/);
  expect((await getJson(`${h.api.base}/v1/markets/nope/orderbook`, tier1)).status).toBe(404);
});

test('a known market whose book is not captured yet -> 200 with empty levels, null timestamps and source', async () => {
  const { status, body } = await getJson(`${h.api.base}/v1/markets/${UNBOOKED}/orderbook`, tier1);
  expect(status).toBe(200);
  expect(body.data.source).toBeNull();
  expect(body.data.yes).toEqual({ best_bid: null, best_ask: null, mid: null, spread: null, spread_bps: null });
  expect(body.data.outcomes.map((o: any) => [o.asset_id, o.bids, o.asks, o.hash, o.timestamp])).toEqual([
    ['5'.repeat(77), [], [], null, null],
    ['6'.repeat(77), [], [], null, null],
  ]);
});

test('order-book history: the last snapshot per bucket; Tier 2', async () => {
  const query = `/orderbook/history?market=book-33&interval=5m&from=${at(T0 - 3_600_000)}&to=${at(T0 + 60_000)}`;
  const { body } = await h.get(query);
  expect(body.data.points.map((p: any) => [p.bucket_start, p.best_bid, p.best_ask, p.spread_bps])).toEqual([
    [at(T0 - 600_000), 0.4, 0.6, 4000],
    [at(T0), 0.48, 0.52, 800],
  ]);
  expect((await getJson(`${h.api.base}/v1${query}`, tier1)).status).toBe(402);
});
