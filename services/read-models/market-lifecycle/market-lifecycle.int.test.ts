/** Market lifecycle: transitions -> market_lifecycle rows -> the `lifecycle` block and status of GET /markets/{id}. */
import { conditionId, marketTransition, marketUpserted, T0 } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';

const M = conditionId(0x91);
const DAY = 86_400_000;
let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('market_lifecycle');
  await h.given({
    // The catalog still says closed: the websocket's resolution reached the lifecycle first.
    markets: [marketUpserted({ market_id: M, status: 'closed', outcome_prices: [0.97, 0.03] })],
    marketLifecycle: [
      marketTransition({ market_id: M, revision: 1, observed_at_ms: T0 }),
      marketTransition({
        market_id: M,
        revision: 2,
        kind: 'closed',
        from_state: 'active',
        to_state: 'closed',
        occurred_at_ms: T0 + DAY,
        observed_at_ms: T0 + DAY,
      }),
      marketTransition({
        market_id: M,
        revision: 3,
        kind: 'voided',
        from_state: 'closed',
        to_state: 'voided',
        authority: 'clob-ws',
        resolution_number: 1,
        resolved_outcome: '50-50',
        payouts: [0.5, 0.5],
        final_yes_price: 0.5,
        final_no_price: 0.5,
        occurred_at_ms: T0 + 30 * DAY,
        observed_at_ms: T0 + 30 * DAY + 500,
        notify: true,
      }),
      // The same revision re-emitted by a redelivered batch: one row.
      marketTransition({ market_id: M, revision: 1, observed_at_ms: T0 + 1 }),
    ],
  });
}, 60_000);
afterAll(() => h.close());

test('one row per revision', async () => {
  expect(
    await h.rows('SELECT revision, kind, to_state FROM market_lifecycle FINAL WHERE market_id = {m:String} ORDER BY revision', { m: M }),
  ).toEqual([
    { revision: 1, kind: 'listed', to_state: 'active' },
    { revision: 2, kind: 'closed', to_state: 'closed' },
    { revision: 3, kind: 'voided', to_state: 'voided' },
  ]);
});

test('the market detail takes its status from the lifecycle and shows the resolution and every transition', async () => {
  const response = await h.get(`/markets/${M}`);
  expect(response.status).toBe(200);
  expect(response.body.data.status).toBe('voided');
  expect(response.body.data.lifecycle).toEqual({
    state: 'voided',
    authority: 'clob-ws',
    resolution: {
      outcome: '50-50',
      winning_outcome_index: -1,
      payouts: [0.5, 0.5],
      final_yes_price: 0.5,
      final_no_price: 0.5,
      resolved_at: new Date(T0 + 30 * DAY).toISOString(),
      resolution_number: 1,
    },
    transitions: [
      {
        revision: 1,
        kind: 'listed',
        from: null,
        to: 'active',
        authority: 'gamma',
        occurred_at: null,
        observed_at: new Date(T0 + 1).toISOString(),
      },
      {
        revision: 2,
        kind: 'closed',
        from: 'active',
        to: 'closed',
        authority: 'gamma',
        occurred_at: new Date(T0 + DAY).toISOString(),
        observed_at: new Date(T0 + DAY).toISOString(),
      },
      {
        revision: 3,
        kind: 'voided',
        from: 'closed',
        to: 'voided',
        authority: 'clob-ws',
        occurred_at: new Date(T0 + 30 * DAY).toISOString(),
        observed_at: new Date(T0 + 30 * DAY + 500).toISOString(),
      },
    ],
  });
});
