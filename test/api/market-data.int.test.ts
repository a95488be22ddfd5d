/** Order book, its history, price ticks, holders and open interest on hand-checked rows. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MarketUpserted } from '../../services/shared/events.js';
import { marketRow } from '../../services/sink/rows.js';
import { startApiHarness, type ApiHarness } from '../support/api-harness.js';
import { getJson, walkPages } from '../support/http.js';

const M = '0x' + '3'.repeat(64);
const BARE = '0x' + '4'.repeat(64);
const YES = '7'.repeat(77);
const NO = '8'.repeat(77);
const T = Date.UTC(2026, 10, 21, 12, 0, 0);
const at = (ms: number) => new Date(ms).toISOString();

const market = (id: string, tokens: string[]): MarketUpserted => ({
  event_id: `${id}:1`,
  source: 'simulator',
  market_id: id,
  gamma_id: '9',
  slug: `book-${id.slice(2, 4)}`,
  title: 'Book market?',
  category: 'Crypto',
  event_id_upstream: '',
  event_slug: '',
  event_title: '',
  outcomes: ['Yes', 'No'],
  outcome_token_ids: tokens,
  outcome_prices: [0.5, 0.5],
  yes_index: 0,
  status: 'active',
  resolved_outcome: null,
  volume_total_usdc: 0,
  volume_24h_usdc: 0,
  liquidity_usdc: 0,
  best_bid: null,
  best_ask: null,
  last_trade_price: null,
  neg_risk: false,
  start_ms: null,
  end_ms: null,
  closed_ms: null,
  created_ms: null,
  updated_at_ms: T,
  ingested_at_ms: T,
});

const book = (asset: string, ms: number, bids: Array<[number, number]>, asks: Array<[number, number]>, hash: string) => ({
  book_id: `${asset}:${hash}`,
  market_id: M,
  asset_id: asset,
  hash,
  ts: at(ms),
  bid_prices: bids.map((l) => l[0]),
  bid_sizes: bids.map((l) => l[1]),
  ask_prices: asks.map((l) => l[0]),
  ask_sizes: asks.map((l) => l[1]),
  best_bid: bids.length ? Math.max(...bids.map((l) => l[0])) : null,
  best_ask: asks.length ? Math.min(...asks.map((l) => l[0])) : null,
  tick_size: 0.01,
  min_order_size: 5,
  last_trade_price: null,
  origin: 'clob-rest',
  source: 'simulator',
  ingested_at: at(ms),
});

let api: ApiHarness;
let tier1: string;
let tier2: string;

beforeAll(async () => {
  api = await startApiHarness({ chdbPath: fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-book-')), database: 'market_data' });
  tier1 = (await api.admin.createKey('t1', '1')).api_key;
  tier2 = (await api.admin.createKey('t2', '2')).api_key;
  await api.store.insert('markets', [marketRow(market(M, [YES, NO])), marketRow(market(BARE, []))]);
  const levels = Array.from({ length: 25 }, (_, i) => [Math.round((0.47 - i * 0.01) * 100) / 100, 10] as [number, number]);
  await api.store.insert('order_books', [
    book(YES, T - 600_000, [[0.4, 1]], [[0.6, 1]], 'old'),
    book(
      YES,
      T,
      [[0.48, 100], ...levels],
      [
        [0.55, 5],
        [0.52, 10],
      ],
      'h1',
    ),
    book(NO, T, [], [[0.5, 20]], 'h2'),
  ]);
  await api.store.insert(
    'price_ticks',
    Array.from({ length: 7 }, (_, i) => ({
      tick_id: `tick-${i}`,
      market_id: M,
      asset_id: i % 2 ? NO : YES,
      kind: i < 5 ? 'last_trade' : 'midpoint',
      price: 0.5,
      best_bid: null,
      best_ask: null,
      side: null,
      size: null,
      ts: at(T - i * 1000),
      origin: 'clob-ws',
      source: 'simulator',
      ingested_at: at(T),
    })),
  );
  await api.store.insert('market_holders', [
    {
      market_id: M,
      asset_id: YES,
      wallet: '0x' + '1'.repeat(40),
      outcome_index: 0,
      amount: 50,
      rank: 2,
      snapshot_at: at(T),
      source: 'simulator',
      ingested_at: at(T),
    },
    {
      market_id: M,
      asset_id: YES,
      wallet: '0x' + '2'.repeat(40),
      outcome_index: 0,
      amount: 500,
      rank: 1,
      snapshot_at: at(T),
      source: 'simulator',
      ingested_at: at(T),
    },
    {
      market_id: M,
      asset_id: NO,
      wallet: '0x' + '3'.repeat(40),
      outcome_index: 1,
      amount: 70,
      rank: 1,
      snapshot_at: at(T),
      source: 'simulator',
      ingested_at: at(T),
    },
    {
      market_id: M,
      asset_id: YES,
      wallet: '0x' + '9'.repeat(40),
      outcome_index: 0,
      amount: 999,
      rank: 1,
      snapshot_at: at(T - 3_600_000),
      source: 'simulator',
      ingested_at: at(T),
    },
  ]);
  await api.store.insert('open_interest', [
    { market_id: M, value_usdc: 1000, snapshot_at: at(T - 3_600_000), source: 'simulator', ingested_at: at(T) },
    { market_id: M, value_usdc: 1250.5, snapshot_at: at(T), source: 'simulator', ingested_at: at(T) },
  ]);
});
afterAll(async () => {
  await api.close();
});

test('order book: latest snapshot, 20 levels best first, spread in bps; null mid on an empty side', async () => {
  const { status, body } = await getJson(`${api.base}/v1/markets/${M}/orderbook`, tier1);
  expect(status).toBe(200);
  expect(body.data.yes).toEqual({ best_bid: 0.48, best_ask: 0.52, mid: 0.5, spread: 0.04, spread_bps: 800 });
  const [yes, no] = body.data.outcomes;
  expect(yes.bids).toHaveLength(20);
  expect(yes.bids[0]).toEqual({ price: 0.48, size_shares: 100 });
  expect(yes.bids[1].price).toBe(0.47);
  expect(yes.asks).toEqual([
    { price: 0.52, size_shares: 10 },
    { price: 0.55, size_shares: 5 },
  ]);
  expect(yes.hash).toBe('h1');
  expect(no).toMatchObject({ outcome: 'No', bids: [], best_bid: null, best_ask: 0.5, mid: null, spread: null, spread_bps: null });
});

test('a market without token ids -> 404 saying so; unknown market -> 404', async () => {
  const bare = await getJson(`${api.base}/v1/markets/${BARE}/orderbook`, tier1);
  expect(bare.status).toBe(404);
  expect(bare.body.error).toMatch(/no indexed outcome token ids/);
  expect((await getJson(`${api.base}/v1/markets/nope/orderbook`, tier1)).status).toBe(404);
});

test('order-book history: last snapshot per bucket', async () => {
  const url = `${api.base}/v1/orderbook/history?market=book-33&interval=5m&from=${at(T - 3_600_000)}&to=${at(T + 60_000)}`;
  const { body } = await getJson(url, tier2);
  expect(body.data.points.map((p: any) => [p.bucket_start, p.best_bid, p.best_ask, p.spread_bps])).toEqual([
    [at(T - 600_000), 0.4, 0.6, 4000],
    [at(T), 0.48, 0.52, 800],
  ]);
  expect((await getJson(url, tier1)).status).toBe(402);
});

test('price ticks page newest first, filter by kind', async () => {
  const all = await walkPages(`${api.base}/v1/markets/${M}/price/ticks?limit=3`, tier1);
  expect(all.items.map((t: any) => t.tick_id)).toEqual(['tick-0', 'tick-1', 'tick-2', 'tick-3', 'tick-4', 'tick-5', 'tick-6']);
  expect(all.items[1]).toMatchObject({ outcome: 'No', kind: 'last_trade' });
  const mids = await getJson(`${api.base}/v1/markets/${M}/price/ticks?kind=midpoint`, tier1);
  expect(mids.body.data.map((t: any) => t.tick_id)).toEqual(['tick-5', 'tick-6']);
});

test('holders per outcome from the latest snapshot, largest first; open interest with history', async () => {
  const holders = (await getJson(`${api.base}/v1/markets/${M}/holders`, tier2)).body.data;
  expect(holders.outcomes.map((o: any) => [o.outcome, o.holders.map((h: any) => [h.rank, h.amount_shares])])).toEqual([
    [
      'Yes',
      [
        [1, 500],
        [2, 50],
      ],
    ],
    ['No', [[1, 70]]],
  ]);
  const oi = (await getJson(`${api.base}/v1/markets/${M}/oi`, tier2)).body.data;
  expect(oi).toMatchObject({ open_interest_usdc: 1250.5, as_of: at(T) });
  expect(oi.history.map((h: any) => h.open_interest_usdc)).toEqual([1000, 1250.5]);
  expect((await getJson(`${api.base}/v1/markets/${BARE}/oi`, tier2)).status).toBe(404);
});
