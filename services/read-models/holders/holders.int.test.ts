/** Holders: holder snapshots -> market_holders rows -> /markets/:id/holders from the latest snapshot. */
import { conditionId, holderSnapshot, marketUpserted, T0, walletAddress } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';

const M = conditionId(0x33);
const YES = '7'.repeat(77);
const NO = '8'.repeat(77);
const QUIET = conditionId(0x44);

let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('holders');
  await h.given({
    markets: [
      marketUpserted({ market_id: M, outcome_token_ids: [YES, NO] }),
      marketUpserted({ market_id: QUIET, outcome_token_ids: ['5'.repeat(77)] }),
    ],
    holders: [
      holderSnapshot({ event_id: 'a', market_id: M, asset_id: YES, wallet: walletAddress(1), amount: 50, rank: 2 }),
      holderSnapshot({ event_id: 'b', market_id: M, asset_id: YES, wallet: walletAddress(2), amount: 500, rank: 1 }),
      holderSnapshot({ event_id: 'c', market_id: M, asset_id: NO, wallet: walletAddress(3), outcome_index: 1, amount: 70, rank: 1 }),
      // An older snapshot: not served.
      holderSnapshot({
        event_id: 'd',
        market_id: M,
        asset_id: YES,
        wallet: walletAddress(9),
        amount: 999,
        rank: 1,
        snapshot_at_ms: T0 - 3_600_000,
      }),
    ],
  });
}, 60_000);
afterAll(() => h.close());

test('one row per holder per snapshot', async () => {
  expect(
    await h.rows(
      `SELECT wallet, amount, rank, toUnixTimestamp64Milli(snapshot_at) AS snapshot_at_ms FROM market_holders FINAL WHERE asset_id = '${NO}'`,
    ),
  ).toEqual([{ wallet: walletAddress(3), amount: 70, rank: 1, snapshot_at_ms: T0 }]);
  expect((await h.rows<{ n: number }>('SELECT count() AS n FROM market_holders FINAL'))[0]).toEqual({ n: 4 });
});

test('holders per outcome from the latest snapshot, largest first', async () => {
  const { status, body } = await h.get(`/markets/${M}/holders`);
  expect(status).toBe(200);
  expect(body.data).toEqual({
    market_id: M,
    as_of: new Date(T0).toISOString(),
    source: 'simulator',
    outcomes: [
      {
        outcome: 'Yes',
        asset_id: YES,
        holders: [
          { rank: 1, wallet: walletAddress(2), amount_shares: 500 },
          { rank: 2, wallet: walletAddress(1), amount_shares: 50 },
        ],
      },
      { outcome: 'No', asset_id: NO, holders: [{ rank: 1, wallet: walletAddress(3), amount_shares: 70 }] },
    ],
  });
});

test('a known market with no snapshot yet is empty (as_of and source null); an unknown market is 404', async () => {
  const { status, body } = await h.get(`/markets/${QUIET}/holders`);
  expect(status).toBe(200);
  expect(body.data).toEqual({
    market_id: QUIET,
    as_of: null,
    source: null,
    outcomes: [{ outcome: 'Yes', asset_id: '5'.repeat(77), holders: [] }],
  });
  expect((await h.get(`/markets/${conditionId(0x99)}/holders`)).status).toBe(404);
});
