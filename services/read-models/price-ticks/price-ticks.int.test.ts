/** Price ticks: tick events -> price_ticks rows -> /markets/:id/price/ticks, newest first. */
import { conditionId, marketUpserted, priceTick, T0 } from '../../../test/support/events.js';
import { walkPages } from '../../../test/support/http.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';

const M = conditionId(0x33);
const YES = '7'.repeat(77);
const NO = '8'.repeat(77);

let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('price_ticks');
  await h.given({
    markets: [marketUpserted({ market_id: M, outcome_token_ids: [YES, NO] })],
    priceTicks: Array.from({ length: 7 }, (_, i) =>
      priceTick({
        event_id: `tick-${i}`,
        market_id: M,
        asset_id: i % 2 ? NO : YES,
        kind: i < 5 ? 'last_trade' : 'midpoint',
        timestamp_ms: T0 - i * 1000,
      }),
    ),
  });
}, 60_000);
afterAll(() => h.close());

test('one row per tick, keyed by its id', async () => {
  const rows = await h.rows(
    `SELECT tick_id, asset_id, kind, price, best_bid, side, size, toUnixTimestamp64Milli(ts) AS ts_ms, origin, source
       FROM price_ticks FINAL WHERE tick_id = 'tick-5'`,
  );
  expect(rows).toEqual([
    {
      tick_id: 'tick-5',
      asset_id: NO,
      kind: 'midpoint',
      price: 0.5,
      best_bid: null,
      side: null,
      size: null,
      ts_ms: T0 - 5000,
      origin: 'clob-ws',
      source: 'simulator',
    },
  ]);
});

test('pages newest first; filter by kind', async () => {
  const all = await walkPages(`${h.api.base}/v1/markets/${M}/price/ticks?limit=3`, h.key);
  expect(all.items.map((t: any) => t.tick_id)).toEqual(['tick-0', 'tick-1', 'tick-2', 'tick-3', 'tick-4', 'tick-5', 'tick-6']);
  expect(all.items[1]).toEqual({
    tick_id: 'tick-1',
    market_id: M,
    asset_id: NO,
    outcome: 'No',
    kind: 'last_trade',
    price: 0.5,
    best_bid: null,
    best_ask: null,
    side: null,
    size_shares: null,
    timestamp: new Date(T0 - 1000).toISOString(),
    source: 'simulator',
  });
  const mids = await h.get(`/markets/${M}/price/ticks?kind=midpoint`);
  expect(mids.body.data.map((t: any) => t.tick_id)).toEqual(['tick-5', 'tick-6']);
});
