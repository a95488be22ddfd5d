/** Open interest: OI events -> open_interest rows -> /markets/:id/oi with its history. */
import { conditionId, marketUpserted, openInterest, T0 } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';

const M = conditionId(0x33);
const BARE = conditionId(0x44);
const at = (ms: number) => new Date(ms).toISOString();

let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('open_interest');
  await h.given({
    markets: [marketUpserted({ market_id: M }), marketUpserted({ market_id: BARE })],
    openInterest: [
      openInterest({ event_id: 'oi-1', market_id: M, open_interest_usdc: 1000, snapshot_at_ms: T0 - 3_600_000 }),
      openInterest({ event_id: 'oi-2', market_id: M, open_interest_usdc: 1250.5, snapshot_at_ms: T0 }),
    ],
  });
}, 60_000);
afterAll(() => h.close());

test('one row per snapshot, the value under the same name as the event field and the API field', async () => {
  expect(
    await h.rows(
      'SELECT market_id, open_interest_usdc, toUnixTimestamp64Milli(snapshot_at) AS snapshot_at_ms, source FROM open_interest FINAL ORDER BY snapshot_at',
    ),
  ).toEqual([
    { market_id: M, open_interest_usdc: 1000, snapshot_at_ms: T0 - 3_600_000, source: 'simulator' },
    { market_id: M, open_interest_usdc: 1250.5, snapshot_at_ms: T0, source: 'simulator' },
  ]);
});

test('the latest value with its history, oldest first; a known market without data is empty, an unknown one 404', async () => {
  const { status, body } = await h.get(`/markets/${M}/oi`);
  expect(status).toBe(200);
  expect(body.data).toEqual({
    market_id: M,
    open_interest_usdc: 1250.5,
    as_of: at(T0),
    method: 'upstream Data API /oi: collateral locked in the market (complete sets outstanding, USDC)',
    source: 'simulator',
    history: [
      { timestamp: at(T0 - 3_600_000), open_interest_usdc: 1000 },
      { timestamp: at(T0), open_interest_usdc: 1250.5 },
    ],
  });
  const bare = await h.get(`/markets/${BARE}/oi`);
  expect(bare.status).toBe(200);
  expect(bare.body.data).toMatchObject({ market_id: BARE, open_interest_usdc: null, as_of: null, source: null, history: [] });
  expect((await h.get(`/markets/${conditionId(0x99)}/oi`)).status).toBe(404);
});
