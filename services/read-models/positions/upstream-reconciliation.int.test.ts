/**
 * Tracked wallets' Data API positions against the ledger's: one wallet with a token in each case
 * (matching, a size mismatch, only at Polymarket, only here, changed after the snapshot), one that
 * matches, one the service does not track. Figures by hand in the comments.
 */
import { binaryMarket, outcomeFill, outcomeToken, positionSnapshot } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { reconcilePositions, reconciliationSummary } from './upstream-reconciliation.js';

const T = Date.UTC(2026, 9, 1, 12);
const SNAPSHOT = T + 3_600_000;
const M = (c: string) => `0x${c.repeat(64)}`;
const W = (c: string) => `0x${c.repeat(40)}`;
const [M1, M2, M3, M4, M5] = [M('1'), M('2'), M('3'), M('4'), M('5')];
const DRIFTING = W('a');
const MATCHING = W('b');
const UNTRACKED = W('c');

let h: ProjectionHarness;
let tx = 0;
let block = 80_000_000;
function buy(wallet: string, market: string, index: number, shares: number, price: number, at: number) {
  tx += 1;
  block += 1;
  return outcomeFill({ tx, block, at, wallet, market, index, side: 'buy', shares, price });
}
function upstream(wallet: string, market: string, index: number, size: number, avgPrice: number, curPrice: number) {
  return positionSnapshot({
    event_id: `${wallet}:${market}:${index}`,
    wallet,
    market_id: market,
    asset_id: outcomeToken(market, index),
    outcome: index === 0 ? 'Yes' : 'No',
    outcome_index: index,
    size,
    avg_price: avgPrice,
    cur_price: curPrice,
    initial_value_usdc: size * avgPrice,
    current_value_usdc: size * curPrice,
    cash_pnl_usdc: size * (curPrice - avgPrice),
    realized_pnl_usdc: 0,
    snapshot_at_ms: SNAPSHOT,
    ingested_at_ms: SNAPSHOT,
  });
}

beforeAll(async () => {
  h = await projectionHarness('position-reconciliation');
  await h.given({
    markets: [M1, M2, M3, M4, M5].map((id) => binaryMarket(id, T)),
    chainLedger: [
      buy(DRIFTING, M1, 0, 100, 0.4, T), // matches Polymarket's 100
      buy(DRIFTING, M2, 0, 50, 0.5, T), // Polymarket says 40: 10 apart
      buy(DRIFTING, M3, 1, 30, 0.2, T), // Polymarket lists nothing: only here
      buy(DRIFTING, M4, 0, 10, 0.5, SNAPSHOT - 30_000), // bought 30 s before the snapshot: not compared
      buy(MATCHING, M1, 1, 25, 0.6, T),
      buy(UNTRACKED, M1, 0, 5, 0.4, T),
    ],
    positions: [
      upstream(DRIFTING, M1, 0, 100, 0.4, 0.5),
      upstream(DRIFTING, M2, 0, 40, 0.5, 0.5),
      upstream(DRIFTING, M4, 0, 3, 0.5, 0.5),
      upstream(DRIFTING, M5, 0, 20, 0.3, 0.25), // a position the ledger never saw: only at Polymarket
      upstream(MATCHING, M1, 1, 25.00004, 0.6, 0.5), // the Data API's rounding: within 0.0001 shares
    ],
  });
}, 120_000);
afterAll(() => h.close());

test('each token counted once: matching, size mismatch, only at Polymarket, only here, changed since the snapshot', async () => {
  expect(await reconcilePositions(h.store, SNAPSHOT + 60_000)).toBe(2);
  const drifting = (await h.get(`/traders/${DRIFTING}`)).body.data.reconciliation;
  expect(drifting).toMatchObject({
    status: 'drift',
    source: 'polymarket data-api /positions',
    snapshot_at: new Date(SNAPSHOT).toISOString(),
    checked_at: new Date(SNAPSHOT + 60_000).toISOString(),
    positions: { compared: 2, matching: 1, size_mismatch: 1, only_upstream: 1, only_here: 1, changed_since: 1 },
    // |40 - 50| + |20 - 0| + |0 - 30|
    size_drift_shares: 60,
    // M1 100 x 0.5 + M2 40 x 0.5 + M5 20 x 0.25 (M3 has no Data API price: not valued on either side)
    value_usdc: { upstream: 75, here: 75 },
    // Polymarket: 100 x 0.1 + 40 x 0 + 20 x -0.05 = 9; here: (50 - 40) + (25 - 25) = 10 (M5: no ledger position)
    unrealized_pnl_usdc: { upstream: 9, here: 10 },
    realized_pnl_usdc: { upstream: 0, here: 0 },
  });
  expect(drifting.differences).toEqual([
    {
      asset_id: outcomeToken(M3, 1),
      market_id: M3,
      outcome: 'No',
      upstream_size_shares: 0,
      here_size_shares: 30,
      upstream_avg_price: 0,
      here_avg_price: 0.2,
    },
    {
      asset_id: outcomeToken(M5, 0),
      market_id: M5,
      outcome: 'Yes',
      upstream_size_shares: 20,
      here_size_shares: 0,
      upstream_avg_price: 0.3,
      here_avg_price: 0,
    },
    {
      asset_id: outcomeToken(M2, 0),
      market_id: M2,
      outcome: 'Yes',
      upstream_size_shares: 40,
      here_size_shares: 50,
      upstream_avg_price: 0.5,
      here_avg_price: 0.5,
    },
  ]);
  const matching = (await h.get(`/traders/${MATCHING}`)).body.data.reconciliation;
  expect(matching).toMatchObject({ status: 'match', size_drift_shares: 0, differences: [] });
  expect(matching.positions).toEqual({ compared: 1, matching: 1, size_mismatch: 0, only_upstream: 0, only_here: 0, changed_since: 0 });
  expect((await h.get(`/traders/${UNTRACKED}`)).body.data.reconciliation).toBeNull();
  expect(await reconciliationSummary(h.store, SNAPSHOT + 60_000)).toEqual({ match: 1, drift: 1, sizeDriftShares: 60 });
});

test('a newer check replaces the older one; snapshots over a day old are not checked again', async () => {
  expect(await reconcilePositions(h.store, SNAPSHOT + 2 * 86_400_000)).toBe(0);
  expect(await reconcilePositions(h.store, SNAPSHOT + 120_000)).toBe(2);
  const served = (await h.get(`/traders/${DRIFTING}`)).body.data.reconciliation;
  expect(served.checked_at).toBe(new Date(SNAPSHOT + 120_000).toISOString());
  expect(await h.rows('SELECT toString(count()) AS n FROM position_reconciliation FINAL')).toEqual([{ n: '2' }]);
});
