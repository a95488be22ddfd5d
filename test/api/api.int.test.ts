/**
 * The API over real engines in-process (chDB + PGlite), with every response validated against the
 * OpenAPI document. Markets and trades arrive as events through the real sink (markets, trades and
 * candles read models together).
 */
import fs from 'node:fs';
import type { MarketUpserted, TradeExecuted } from '../../services/events/types.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import type { ApiHarness } from '../support/api-harness.js';
import { marketUpserted } from '../support/events.js';
import { getJson, postJson, walkPages } from '../support/http.js';
import { type ProjectionHarness, projectionHarness } from '../support/projection.js';

const HOUR = 3_600_000;
const BASE_MS = Date.UTC(2026, 10, 20, 10, 0, 0);
const cid = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const wallet = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

function market(n: number, overrides: Partial<MarketUpserted>): MarketUpserted {
  return marketUpserted({
    event_id: `${cid(n)}:v1`,
    source: 'simulator',
    market_id: cid(n),
    gamma_id: String(1000 + n),
    slug: `market-${n}`,
    title: `Market ${n}?`,
    category: 'Politics',
    event_id_upstream: '77',
    event_slug: 'event-77',
    event_title: 'Event 77',
    outcomes: ['Yes', 'No'],
    outcome_token_ids: ['1'.repeat(77) + n, '2'.repeat(77) + n],
    outcome_prices: [0.6, 0.4],
    yes_index: 0,
    status: 'active',
    resolved_outcome: null,
    volume_total_usdc: 1000 * n,
    volume_24h_usdc: 100 * n,
    liquidity_usdc: 50 * n,
    best_bid: 0.59,
    best_ask: 0.61,
    last_trade_price: 0.6,
    neg_risk: false,
    start_ms: BASE_MS - 100 * HOUR,
    end_ms: BASE_MS + 100 * HOUR * n,
    closed_ms: null,
    created_ms: BASE_MS - 100 * HOUR + n,
    updated_at_ms: BASE_MS,
    ingested_at_ms: BASE_MS,
    ...overrides,
  });
}

function trade(n: number, marketN: number, atMs: number, overrides: Partial<TradeExecuted> = {}): TradeExecuted {
  return {
    event_id: `trade-${String(n).padStart(5, '0')}`,
    source: 'simulator',
    market_id: cid(marketN),
    market_title: `Market ${marketN}?`,
    asset_id: '1'.repeat(77) + marketN,
    wallet: wallet(n % 5),
    side: n % 2 ? 'buy' : 'sell',
    outcome: 'Yes',
    outcome_index: 0,
    price: 0.5,
    yes_price: 0.5,
    size: 10,
    size_usdc: 5,
    timestamp_ms: atMs,
    tx_hash: `0x${n.toString(16).padStart(64, '0')}`,
    ingested_at_ms: atMs,
    ...overrides,
  };
}

let projection: ProjectionHarness;
let store: AnalyticsStore;
let harness: ApiHarness;
let base: string;
let key: string;
let tier2Key: string;

beforeAll(async () => {
  projection = await projectionHarness('api');
  harness = projection.api;
  store = projection.store;
  base = harness.base;
  const markets = [
    ...Array.from({ length: 12 }, (_, i) =>
      market(i + 1, i + 1 >= 11 ? { category: 'Sports', title: `Match ${i + 1}: Lions vs Bears?` } : {}),
    ),
    market(13, { status: 'resolved', resolved_outcome: 'No', outcome_prices: [0, 1], closed_ms: BASE_MS - HOUR }),
    market(14, { status: 'closed', closed_ms: BASE_MS - HOUR }),
  ];
  // Market 1: three trades in one 5-minute bucket and one in the next (hand-checked candles below).
  const handChecked = [
    trade(1, 1, BASE_MS + 10_000, { yes_price: 0.4, price: 0.4, size: 10, size_usdc: 4 }),
    trade(2, 1, BASE_MS + 20_000, { yes_price: 0.7, price: 0.3, outcome: 'No', outcome_index: 1, size: 10, size_usdc: 3 }),
    trade(3, 1, BASE_MS + 30_000, { yes_price: 0.55, price: 0.55, size: 20, size_usdc: 11 }),
    trade(4, 1, BASE_MS + 301_000, { yes_price: 0.6, price: 0.6, size: 5, size_usdc: 3 }),
  ];
  const bulk = Array.from({ length: 246 }, (_, i) => trade(100 + i, 2 + (i % 10), BASE_MS - i * 60_000 - (i % 3)));
  // Two trades sharing a timestamp: the keyset must order them by id and return both.
  bulk.push(trade(900, 3, BASE_MS - 5 * 60_000 - 1), trade(901, 3, BASE_MS - 5 * 60_000 - 1));
  await projection.given({ markets, trades: [...handChecked, ...bulk] });
  key = (await harness.accounts.registerAgent('api-test')).api_key;
  tier2Key = (await harness.admin.createKey('api-test-tier2', '2')).api_key;
}, 60_000);

afterAll(async () => {
  await projection.close();
});

describe('keys and registration', () => {
  test('registration returns an aif_ key that authenticates', async () => {
    const { status, body } = await postJson(`${base}/v1/agents/register`, { name: 'bot' });
    expect(status).toBe(201);
    expect(body).toMatchObject({ success: true, data: { name: 'bot', tier: 'sandbox' } });
    expect(body.data.api_key).toMatch(/^aif_/);
    expect((await getJson(`${base}/v1/health`, body.data.api_key)).status).toBe(200);
  });

  test.each([
    ['missing name', {}, undefined, /name/],
    ['empty name', { name: '' }, undefined, /name/],
    ['unknown field', { name: 'x', admin: true }, undefined, /admin/],
    ['a NUL byte in the name', { name: 'bad\u0000name' }, undefined, /name/],
    ['malformed JSON', undefined, '{"name": ', /JSON/],
  ])('%s -> 400 BAD_REQUEST naming the problem', async (_label, body, raw, message) => {
    const response = await postJson(`${base}/v1/agents/register`, body, { raw });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
    expect(response.body.error).toMatch(message);
  });

  test.each([
    ['no key', undefined],
    ['unknown well-formed-looking key', `aif_${'A'.repeat(38)}`],
    ['not a key', 'hello'],
  ])('%s -> 401 UNAUTHORIZED in the envelope', async (_label, apiKey) => {
    const response = await getJson(`${base}/v1/markets`, apiKey);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ success: false, code: 'UNAUTHORIZED', error: expect.any(String) });
  });

  test('unknown routes are 404 NOT_FOUND after authentication', async () => {
    expect((await getJson(`${base}/v1/nope`, key)).body).toMatchObject({ success: false, code: 'NOT_FOUND' });
    expect((await getJson(`${base}/v1/nope`)).status).toBe(401);
  });

  test('the OpenAPI document is served without a key', async () => {
    const response = await fetch(`${base}/api/openapi.yaml`);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/^openapi: 3\.1\.0/);
  });

  test("the streams' AsyncAPI document is served without a key, as generated", async () => {
    const response = await fetch(`${base}/api/asyncapi.yaml`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(await response.text()).toBe(fs.readFileSync(new URL('../../api/asyncapi.yaml', import.meta.url), 'utf8'));
  });

  test('the docs page renders the document with locally served assets', async () => {
    const page = await fetch(`${base}/api/docs`);
    expect(page.headers.get('content-type')).toMatch(/html/);
    const html = await page.text();
    for (const asset of [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)) {
      expect(asset.startsWith('/api/docs/')).toBe(true);
      expect((await fetch(`${base}${asset}`)).status).toBe(200);
    }
    expect(await (await fetch(`${base}/api/docs/ui.js`)).text()).toContain("url: '/api/openapi.yaml'");
  });
});

describe('health', () => {
  test('status ok with indexed counts', async () => {
    const { body } = await getJson(`${base}/v1/health`, key);
    expect(body.data).toMatchObject({ status: 'ok', counts: { markets: 14, trades: 252 } });
  });
});

describe('markets', () => {
  test('active markets sorted by 24h volume, paginated to the end without duplicates', async () => {
    const { items, pages, lastPage } = await walkPages(`${base}/v1/markets?status=active&sort=volume&limit=5`, key);
    expect(items.map((m: any) => m.slug)).toEqual(Array.from({ length: 12 }, (_, i) => `market-${12 - i}`));
    expect(pages).toBe(3);
    expect(lastPage.pagination).toEqual({ limit: 5, has_more: false, next_cursor: null });
  });

  test('status filters and other sorts', async () => {
    const resolved = await getJson(`${base}/v1/markets?status=resolved`, key);
    expect(resolved.body.data.map((m: any) => [m.slug, m.status, m.resolved_outcome, m.yes_price, m.no_price])).toEqual([
      ['market-13', 'resolved', 'No', 0, 1],
    ]);
    const all = await walkPages(`${base}/v1/markets?status=all&sort=end_date&limit=4`, key);
    expect(all.items.map((m: any) => m.slug)).toEqual(Array.from({ length: 14 }, (_, i) => `market-${i + 1}`));
  });

  test('category and text search filters, and the category list', async () => {
    const sports = await walkPages(`${base}/v1/markets?status=all&category=sports&limit=1`, key);
    expect(sports.items.map((m: any) => m.slug)).toEqual(['market-12', 'market-11']);
    const lions = await getJson(`${base}/v1/markets?search=LIONS`, key);
    expect(lions.body.data.map((m: any) => m.slug)).toEqual(['market-12', 'market-11']);
    const byEvent = await getJson(`${base}/v1/markets?status=all&search=event%2077&limit=100`, key);
    expect(byEvent.body.data).toHaveLength(14);
    const categories = (await getJson(`${base}/v1/markets/categories`, key)).body.data;
    expect(categories).toEqual([
      { category: 'Politics', markets_active: 10, markets_total: 12, volume_24h_usdc: 100 * (55 + 13 + 14) },
      { category: 'Sports', markets_active: 2, markets_total: 2, volume_24h_usdc: 100 * 23 },
    ]);
  });

  test('platform volume per UTC day, zero-filled, ending today', async () => {
    const days = Math.min(365, Math.ceil((Date.now() - BASE_MS) / 86_400_000) + 1);
    const { body } = await getJson(`${base}/v1/volume/timeseries?range_days=${days}`, key);
    expect(body.data).toHaveLength(days);
    expect(body.data[days - 1].date).toBe(new Date().toISOString().slice(0, 10));
    const baseDay = body.data.find((p: any) => p.date === new Date(BASE_MS).toISOString().slice(0, 10));
    expect(baseDay.trade_count).toBeGreaterThanOrEqual(252);
    const total = body.data.reduce((sum: number, p: any) => sum + p.trade_count, 0);
    const [count] = await store.query<{ n: number }>(
      'SELECT count() AS n FROM trades WHERE ts >= toStartOfDay(now()) - toIntervalDay({d:UInt32} - 1)',
      { d: days },
    );
    expect(total).toBe(Number(count!.n));
    expect((await getJson(`${base}/v1/volume/timeseries?range_days=0`, key)).status).toBe(400);
  });

  test('a market by condition id or slug, with the indexed snapshot', async () => {
    const bySlug = await getJson(`${base}/v1/markets/market-1`, key);
    const byId = await getJson(`${base}/v1/markets/${cid(1).toUpperCase().replace('0X', '0x')}`, key);
    expect(bySlug.status).toBe(200);
    expect(byId.body.data.id).toBe(cid(1));
    expect(bySlug.body.data).toMatchObject({
      yes_price: 0.6,
      no_price: 0.4,
      spread: 0.02,
      outcome_token_ids: [`${'1'.repeat(77)}1`, `${'2'.repeat(77)}1`],
    });
    expect(bySlug.body.data.snapshot).toMatchObject({
      last_trade_price: 0.6,
      trades_total: 4,
      last_trade_at: new Date(BASE_MS + 301_000).toISOString(),
    });
  });

  test('a market without indexed trades has a null last trade, zero counts', async () => {
    const { body } = await getJson(`${base}/v1/markets/market-13`, key);
    expect(body.data.snapshot).toMatchObject({
      last_trade_price: null,
      last_trade_at: null,
      trades_24h: 0,
      volume_24h_usdc_indexed: 0,
      trades_total: 0,
    });
  });

  test('unknown market -> 404 NOT_FOUND', async () => {
    const response = await getJson(`${base}/v1/markets/no-such-market`, key);
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });

  test('hand-checked 5m candles: O/H/L/C on the YES price, volume in USDC', async () => {
    const { body } = await getJson(`${base}/v1/markets/market-1/ohlcv?interval=5m&limit=10`, key);
    expect(body.data).toEqual([
      {
        bucket_start: new Date(BASE_MS).toISOString(),
        interval: '5m',
        open: 0.4,
        high: 0.7,
        low: 0.4,
        close: 0.55,
        volume_usdc: 18,
        volume_shares: 40,
        trade_count: 3,
        origin: 'data_api',
      },
      {
        bucket_start: new Date(BASE_MS + 300_000).toISOString(),
        interval: '5m',
        open: 0.6,
        high: 0.6,
        low: 0.6,
        close: 0.6,
        volume_usdc: 3,
        volume_shares: 5,
        trade_count: 1,
        origin: 'data_api',
      },
    ]);
    const hourly = await getJson(`${base}/v1/markets/market-1/ohlcv?interval=1h`, key);
    expect(hourly.body.data).toEqual([
      expect.objectContaining({ open: 0.4, high: 0.7, low: 0.4, close: 0.6, volume_usdc: 21, trade_count: 4 }),
    ]);
    const limited = await getJson(`${base}/v1/markets/market-1/ohlcv?interval=5m&limit=1`, key);
    expect(limited.body.data.map((c: any) => c.close)).toEqual([0.6]);
    const ranged = await getJson(`${base}/v1/markets/market-1/ohlcv?interval=5m&to=${new Date(BASE_MS + 300_000).toISOString()}`, key);
    expect(ranged.body.data.map((c: any) => c.close)).toEqual([0.55]);
  });

  test.each([
    ['/v1/markets?limit=0', /limit/],
    ['/v1/markets?limit=abc', /limit/],
    ['/v1/markets?status=open', /status/],
    ['/v1/markets?sort=price', /sort/],
    ['/v1/markets?bogus=1', /bogus/],
    ['/v1/markets?cursor=%%%', /cursor/],
    ['/v1/markets/market-1/ohlcv?interval=2m', /interval/],
    ['/v1/markets/market-1/ohlcv?limit=5000', /limit/],
    ['/v1/markets/market-1/ohlcv?from=yesterday', /from/],
    ['/v1/markets/market-1/ohlcv?from=2026-11-21T00:00:00Z&to=2026-11-20T00:00:00Z', /from/],
  ])('%s -> 400 BAD_REQUEST naming the parameter', async (url, message) => {
    const response = await getJson(`${base}${url}`, key);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
    expect(response.body.error).toMatch(message);
  });

  test.each([
    ['a time beyond Int64 milliseconds', [1e20, 'trade-00001']],
    ['a fractional time', [1.5, 'trade-00001']],
    ['a time before 2000', [0, 'trade-00001']],
    ['a non-string id', [BASE_MS, 7]],
  ])('an edited trades cursor (%s, fingerprint kept) is a 400', async (_what, edited) => {
    const real = (await getJson(`${base}/v1/trades?limit=1`, tier2Key)).body.pagination.next_cursor as string;
    const { q } = JSON.parse(Buffer.from(real, 'base64url').toString('utf8'));
    const cursor = Buffer.from(JSON.stringify({ v: 1, k: edited, q })).toString('base64url');
    const response = await getJson(`${base}/v1/trades?limit=1&cursor=${cursor}`, tier2Key);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/^cursor: not a cursor issued by this API/);
  });

  test('a cursor replayed on a different query is refused', async () => {
    const first = await getJson(`${base}/v1/markets?status=active&limit=2`, key);
    const response = await getJson(`${base}/v1/markets?status=all&limit=2&cursor=${first.body.pagination.next_cursor}`, key);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/cursor/);
  });
});

describe('trades', () => {
  test('a walk returns every trade once, newest first, and new trades do not leak into it', async () => {
    const first = await getJson(`${base}/v1/trades?limit=7`, tier2Key);
    await projection.given({ trades: [trade(5000, 1, BASE_MS + 10 * HOUR)] });
    const rest = await walkPages(`${base}/v1/trades?limit=7&cursor=${first.body.pagination.next_cursor}`, tier2Key);
    const walked = [...first.body.data, ...rest.items];
    expect(walked).toHaveLength(252);
    expect(new Set(walked.map((t: any) => t.trade_id)).size).toBe(252);
    const keys = walked.map((t: any) => [Date.parse(t.timestamp), t.trade_id] as const);
    for (let i = 1; i < keys.length; i++) {
      const [prevTs, prevId] = keys[i - 1]!;
      const [ts, id] = keys[i]!;
      expect(prevTs > ts || (prevTs === ts && prevId > id)).toBe(true);
    }
    expect(walked.map((t: any) => t.trade_id)).toEqual(expect.arrayContaining(['trade-00900', 'trade-00901']));
    const again = await getJson(`${base}/v1/trades?limit=1`, tier2Key);
    expect(again.body.data[0].trade_id).toBe('trade-05000');
  });

  test('filters by wallet (any case) and market', async () => {
    const upper = wallet(3).toUpperCase().replace('0X', '0x');
    const { items } = await walkPages(`${base}/v1/trades?wallet=${upper}&limit=100`, tier2Key);
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((t: any) => t.wallet === wallet(3))).toBe(true);
    const byMarket = await walkPages(`${base}/v1/trades?market=${cid(1)}&limit=100`, tier2Key);
    expect(byMarket.items.map((t: any) => t.trade_id).sort()).toEqual([
      'trade-00001',
      'trade-00002',
      'trade-00003',
      'trade-00004',
      'trade-05000',
    ]);
    // A slug names the same market, in any case of its condition id; an unknown slug is a 404 naming the parameter.
    const bySlug = await walkPages(`${base}/v1/trades?market=market-1&limit=100`, tier2Key);
    expect(bySlug.items.map((t: any) => t.trade_id)).toEqual(byMarket.items.map((t: any) => t.trade_id));
    const upperId = await walkPages(`${base}/v1/trades?market=${cid(1).toUpperCase().replace('0X', '0x')}&limit=100`, tier2Key);
    expect(upperId.items).toHaveLength(5);
    const unknown = await getJson(`${base}/v1/trades?market=no-such-market`, tier2Key);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/^market: /);
  });

  test('filters: side, outcome (any case), size bounds in USDC and a time window', async () => {
    const ids = async (query: string) =>
      (await walkPages(`${base}/v1/trades?${query}&limit=100`, tier2Key)).items.map((t: any) => t.trade_id).sort();
    expect(await ids(`market=${cid(1)}&outcome=no`)).toEqual(['trade-00002']);
    expect(await ids(`market=${cid(1)}&side=buy`)).toEqual(['trade-00001', 'trade-00003']);
    expect(await ids(`market=${cid(1)}&min_size=4`)).toEqual(['trade-00001', 'trade-00003', 'trade-05000']);
    expect(await ids(`market=${cid(1)}&min_size=3&max_size=4.5`)).toEqual(['trade-00001', 'trade-00002', 'trade-00004']);
    const from = new Date(BASE_MS + 20_000).toISOString();
    const to = new Date(BASE_MS + 301_000).toISOString();
    expect(await ids(`market=${cid(1)}&from=${from}&to=${to}`)).toEqual(['trade-00002', 'trade-00003']);
    // Without a market or wallet a side filter needs a time window (at most 31 days).
    const window = `from=${new Date(BASE_MS - 86_400_000).toISOString()}&to=${new Date(BASE_MS + 86_400_000).toISOString()}`;
    const sells = (await walkPages(`${base}/v1/trades?side=sell&${window}&limit=500`, tier2Key)).items;
    expect(sells.length).toBeGreaterThan(100);
    expect(sells.every((t: any) => t.side === 'sell')).toBe(true);
  });

  test('the per-market tape is the feed filtered to that market, by id or slug', async () => {
    const tape = await walkPages(`${base}/v1/markets/market-1/trades?limit=2`, tier2Key);
    const feed = await walkPages(`${base}/v1/trades?market=${cid(1)}&limit=100`, tier2Key);
    expect(tape.items).toEqual(feed.items);
    expect((await getJson(`${base}/v1/markets/nope/trades`, tier2Key)).status).toBe(404);
  });

  test('a trade record carries the documented fields with units', async () => {
    const { body } = await getJson(`${base}/v1/trades?market=${cid(1)}&limit=100`, tier2Key);
    expect(body.data.find((t: any) => t.trade_id === 'trade-00002')).toEqual({
      trade_id: 'trade-00002',
      market_id: cid(1),
      market_title: 'Market 1?',
      wallet: wallet(2),
      role: 'taker',
      side: 'sell',
      outcome: 'No',
      outcome_index: 1,
      price: 0.3,
      size_shares: 10,
      size_usdc: 3,
      size_shares_micro: '10000000',
      size_usdc_micro: '3000000',
      fee_micro: null,
      fee_asset: null,
      timestamp: new Date(BASE_MS + 20_000).toISOString(),
      block_number: null,
      log_index: null,
      tx_hash: `0x${(2).toString(16).padStart(64, '0')}`,
      origin: 'data_api',
      source: 'simulator',
    });
  });

  test.each([
    ['/v1/trades?wallet=0x123', /wallet/],
    ['/v1/trades?wallet=not-a-wallet', /wallet/],
    [`/v1/trades?market=${'x'.repeat(301)}`, /market/],
    ['/v1/trades?limit=501', /limit/],
    ['/v1/trades?min_size=5&max_size=1', /min_size/],
    ['/v1/trades?side=buy', /^from: required with side/],
    ['/v1/trades?min_size=1000000000000', /^from: required with min_size/],
    ['/v1/trades?outcome=zzz&from=2020-01-01T00:00:00Z', /^from: .*at most 31 days/],
    ['/v1/trades?side=hold', /side/],
    ['/v1/trades?min_size=-1', /min_size/],
    ['/v1/trades?from=2026-11-21T00:00:00Z&to=2026-11-20T00:00:00Z', /from/],
    [`/v1/trades?cursor=${Buffer.from('{"v":1,"k":["x",1],"q":"y"}').toString('base64url')}`, /cursor/],
  ])('%s -> 400 BAD_REQUEST naming the parameter', async (url, message) => {
    const response = await getJson(`${base}${url}`, tier2Key);
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('BAD_REQUEST');
    expect(response.body.error).toMatch(message);
  });
});
