/** Market resolutions: resolution events -> one market_resolutions row per market (the latest report wins). */
import { conditionId, marketResolved, T0 } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';

const M = conditionId(0x81);
let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('market_resolutions');
  await h.given({
    marketResolutions: [
      marketResolved({ event_id: 'r1', market_id: M, origin: 'clob-ws', ingested_at_ms: T0 }),
      marketResolved({ event_id: 'r2', market_id: M, origin: 'gamma', ingested_at_ms: T0 + 1000 }),
      marketResolved({
        event_id: 'r3',
        market_id: conditionId(0x82),
        winning_outcome: null,
        winning_outcome_index: -1,
        winning_asset_id: null,
        payouts: [0.5, 0.5],
      }),
    ],
  });
}, 60_000);
afterAll(() => h.close());

test('one row per market; a 50-50 payout keeps a null winner', async () => {
  expect(
    await h.rows(
      `SELECT market_id, winning_outcome, winning_outcome_index, winning_asset_id, payouts, toUnixTimestamp64Milli(resolved_at) AS resolved_at_ms, origin
         FROM market_resolutions FINAL ORDER BY market_id`,
    ),
  ).toEqual([
    {
      market_id: M,
      winning_outcome: 'Yes',
      winning_outcome_index: 0,
      winning_asset_id: '111',
      payouts: [1, 0],
      resolved_at_ms: T0,
      origin: 'gamma',
    },
    {
      market_id: conditionId(0x82),
      winning_outcome: null,
      winning_outcome_index: -1,
      winning_asset_id: null,
      payouts: [0.5, 0.5],
      resolved_at_ms: T0,
      origin: 'gamma',
    },
  ]);
});
