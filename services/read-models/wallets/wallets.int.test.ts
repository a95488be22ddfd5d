/** Wallets: Data API activity and position events of tracked wallets -> wallet_activity / wallet_positions rows. */
import { positionSnapshot, T0, walletActivity, walletAddress } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';

let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('wallets');
  await h.given({
    walletActivity: [
      walletActivity({ event_id: 'a1', type: 'TRADE' }),
      // A reward carries no market or outcome: the Data API's outcome index 999 is stored as is.
      walletActivity({
        event_id: 'a2',
        type: 'REWARD',
        market_id: '',
        asset_id: '',
        side: '',
        outcome: '',
        outcome_index: 999,
        size: 0,
        usdc_size: 1.5,
        price: 0,
      }),
    ],
    positions: [positionSnapshot({ event_id: 'p1', size: 10, avg_price: 0.4, snapshot_at_ms: T0 })],
  });
}, 60_000);
afterAll(() => h.close());

test('one activity row per upstream activity; one position row per wallet, token and snapshot', async () => {
  expect(
    await h.rows('SELECT activity_id, type, market_id, outcome_index, usdc_size FROM wallet_activity FINAL ORDER BY activity_id'),
  ).toEqual([
    {
      activity_id: 'a1',
      type: 'TRADE',
      market_id: '0x0000000000000000000000000000000000000000000000000000000000000001',
      outcome_index: 0,
      usdc_size: 5,
    },
    { activity_id: 'a2', type: 'REWARD', market_id: '', outcome_index: 999, usdc_size: 1.5 },
  ]);
  expect(
    await h.rows(
      'SELECT wallet, asset_id, size, avg_price, toUnixTimestamp64Milli(snapshot_at) AS snapshot_at_ms FROM wallet_positions FINAL',
    ),
  ).toEqual([{ wallet: walletAddress(1), asset_id: '111', size: 10, avg_price: 0.4, snapshot_at_ms: T0 }]);
});
