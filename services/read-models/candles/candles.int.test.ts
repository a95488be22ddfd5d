/** Candles: trade events -> 5m/1h/1d candle rows (materialized views) -> /markets/:id/ohlcv. */
import { conditionId, marketUpserted, tradeExecuted } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';

const M = conditionId(0x71);
const BUCKET = Date.UTC(2026, 10, 21, 12, 0, 0);

let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('candles');
  const trade = (id: string, atMs: number, yes: number, usdc: number) =>
    tradeExecuted({ event_id: id, market_id: M, timestamp_ms: atMs, yes_price: yes, price: yes, size: usdc / yes, size_usdc: usdc });
  // Open 0.4, high 0.7, low 0.4, close 0.55 in the first bucket, delivered out of order; 0.6 in the next.
  await h.given({
    markets: [marketUpserted({ market_id: M })],
    trades: [
      trade('c', BUCKET + 30_000, 0.55, 11),
      trade('a', BUCKET + 10_000, 0.4, 4),
      trade('b', BUCKET + 20_000, 0.7, 3),
      trade('d', BUCKET + 301_000, 0.6, 3),
    ],
  });
}, 60_000);
afterAll(() => h.close());

test('5-minute rows: open/close by trade time, volume in USDC', async () => {
  expect(
    await h.rows(
      `SELECT toUnixTimestamp(bucket) * 1000 AS bucket_ms, argMinMerge(open) AS open, max(high) AS high, min(low) AS low,
              argMaxMerge(close) AS close, sum(volume_usdc) AS volume_usdc, sum(trade_count) AS trades
         FROM candles_5m WHERE market_id = {m:String} GROUP BY bucket ORDER BY bucket`,
      { m: M },
    ),
  ).toEqual([
    { bucket_ms: BUCKET, open: 0.4, high: 0.7, low: 0.4, close: 0.55, volume_usdc: 18, trades: 3 },
    { bucket_ms: BUCKET + 300_000, open: 0.6, high: 0.6, low: 0.6, close: 0.6, volume_usdc: 3, trades: 1 },
  ]);
});

test('served oldest first, and the hour candle spans both', async () => {
  const five = (await h.get(`/markets/${M}/ohlcv?interval=5m&limit=10`)).body.data;
  expect(five.map((c: any) => [c.bucket_start, c.open, c.high, c.low, c.close, c.volume_usdc, c.trade_count])).toEqual([
    [new Date(BUCKET).toISOString(), 0.4, 0.7, 0.4, 0.55, 18, 3],
    [new Date(BUCKET + 300_000).toISOString(), 0.6, 0.6, 0.6, 0.6, 3, 1],
  ]);
  const hour = (await h.get(`/markets/${M}/ohlcv?interval=1h&limit=10`)).body.data;
  expect(hour).toEqual([
    {
      bucket_start: new Date(BUCKET).toISOString(),
      interval: '1h',
      open: 0.4,
      high: 0.7,
      low: 0.4,
      close: 0.6,
      volume_usdc: 21,
      volume_shares: hour[0].volume_shares,
      trade_count: 4,
      origin: 'data_api',
    },
  ]);
});
