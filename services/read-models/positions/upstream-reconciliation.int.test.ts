/**
 * Tracked wallets' Data API positions against the ledger's: one wallet with a token in each case
 * (matching, a size mismatch, only at Polymarket, only here, changed after the snapshot), one that
 * matches, one the service does not track, and one active before the chain coverage. The chain
 * source first states a coverage ending before the snapshot (the ledger behind it), then one past it.
 * Figures by hand in the comments.
 */
import { watermarkKeys, watermarks } from '../../chain/ledger-events.js';
import { binaryMarket, outcomeFill, outcomeToken, positionSnapshot, tradeExecuted, txHash } from '../../../test/support/events.js';
import { waitFor } from '../../../test/support/http.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { ledgerRow } from '../chain-ledger/rows.js';
import { chainLedger } from '../chain-ledger/streams.js';
import { ledgerCoverage } from './coverage.js';
import { reconcilePositions, reconciliationSummary } from './upstream-reconciliation.js';

const HOUR = 3_600_000;
const T = Date.UTC(2026, 9, 1, 12);
const SNAPSHOT = T + HOUR;
/** The chain coverage starts an hour before T, after the contracts' first block: not complete. */
const COVERAGE = { from_block: 79_999_000, from_time_ms: T - HOUR, history_start_block: 4_023_686 };
/** The first watermark stated: 10 minutes before the snapshot. */
const EARLY = { number: 80_000_500, hash: `0x${'5'.repeat(64)}`, timeMs: SNAPSHOT - 600_000 };
/** The next: 30 s after it. */
const LATE = { number: 80_002_000, hash: `0x${'6'.repeat(64)}`, timeMs: SNAPSHOT + 30_000 };
const M = (c: string) => `0x${c.repeat(64)}`;
const W = (c: string) => `0x${c.repeat(40)}`;
const [M1, M2, M3, M4, M5] = [M('1'), M('2'), M('3'), M('4'), M('5')];
const DRIFTING = W('a');
const MATCHING = W('b');
const UNTRACKED = W('c');
const PREDATES = W('d');

let h: ProjectionHarness;
let tx = 0;
let block = 80_000_000;
function buy(wallet: string, market: string, index: number, shares: number, price: number, at: number, inBlock?: number) {
  tx += 1;
  block += 1;
  return outcomeFill({ tx, block: inBlock ?? block, at, wallet, market, index, side: 'buy', shares, price });
}
/** The service's follower's watermark on every partition of the chain's stream, stating COVERAGE. */
function watermark(at: { number: number; hash: string; timeMs: number }) {
  const context = { chainId: 137, source: 'simulator' as const, nowMs: at.timeMs, negRiskAdapter: `0x${'e'.repeat(40)}` };
  return watermarks(at, watermarkKeys(chainLedger.partitions), context, COVERAGE);
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
      buy(MATCHING, M1, 1, 25, 0.6, T),
      buy(UNTRACKED, M1, 0, 5, 0.4, T),
      buy(PREDATES, M2, 1, 20, 0.5, T), // with the Data API's 80 before the coverage: 100 here, Polymarket 150
      ...watermark(EARLY),
      buy(DRIFTING, M4, 0, 10, 0.5, SNAPSHOT - 30_000, 80_001_000), // bought 30 s before the snapshot: not compared
    ],
    // Before the coverage the ledger has the Data API's taker trades only (a maker fill of 50 is missing here).
    trades: [
      tradeExecuted({
        event_id: 'before-coverage',
        market_id: M2,
        asset_id: outcomeToken(M2, 1),
        wallet: PREDATES,
        outcome: 'No',
        outcome_index: 1,
        price: 0.5,
        yes_price: 0.5,
        size: 80,
        size_usdc: 40,
        timestamp_ms: T - 2 * HOUR,
        ingested_at_ms: T - 2 * HOUR,
        tx_hash: txHash(900),
      }),
    ],
    positions: [
      upstream(DRIFTING, M1, 0, 100, 0.4, 0.5),
      upstream(DRIFTING, M2, 0, 40, 0.5, 0.5),
      upstream(DRIFTING, M4, 0, 3, 0.5, 0.5),
      upstream(DRIFTING, M5, 0, 20, 0.3, 0.25), // a position the ledger never saw: only at Polymarket
      upstream(MATCHING, M1, 1, 25.00004, 0.6, 0.5), // the Data API's rounding: within 0.0001 shares
      upstream(PREDATES, M2, 1, 150, 0.5, 0.5),
      upstream(PREDATES, M5, 0, 20, 0.3, 0.25), // only at Polymarket, from a wallet active before the coverage
    ],
  });
}, 120_000);
afterAll(() => h.close());

const iso = (ms: number) => new Date(ms).toISOString();

test('each token counted once: matching, size mismatch, only at Polymarket, only here, changed since the snapshot; a snapshot newer than the ledger: ledger_behind', async () => {
  expect(await reconcilePositions(h.store, SNAPSHOT + 60_000)).toBe(3);
  const drifting = (await h.get(`/traders/${DRIFTING}`)).body.data.reconciliation;
  expect(drifting).toMatchObject({
    // The ledger holds every event up to the stated coverage's end, 10 minutes before the snapshot.
    status: 'explained',
    source: 'polymarket data-api /positions',
    snapshot_at: iso(SNAPSHOT),
    checked_at: iso(SNAPSHOT + 60_000),
    ledger_to_block: EARLY.number,
    ledger_to_time: iso(EARLY.timeMs),
    coverage_from_time: iso(COVERAGE.from_time_ms),
    coverage_complete: false,
    positions: { compared: 2, matching: 1, size_mismatch: 1, only_upstream: 1, only_here: 1, changed_since: 1 },
    reasons: { ledger_behind: 3, history_not_covered: 0, unexplained: 0 },
    // |40 - 50| + |20 - 0| + |0 - 30|
    size_drift_shares: 60,
    // M1 100 x 0.5 + M2 40 x 0.5 + M5 20 x 0.25 (M3 has no Data API price: not valued on either side)
    value_usdc: { upstream: 75, here: 75 },
    // Polymarket: 100 x 0.1 + 40 x 0 + 20 x -0.05 = 9; here: (50 - 40) + (25 - 25) = 10 (M5: no ledger position)
    unrealized_pnl_usdc: { upstream: 9, here: 10 },
    realized_pnl_usdc: { upstream: 0, here: 0 },
  });
  const difference = (market: string, index: number, up: number, here: number, upAvg: number, hereAvg: number, reason: string | null) => ({
    asset_id: outcomeToken(market, index),
    market_id: market,
    outcome: index === 0 ? 'Yes' : 'No',
    upstream_size_shares: up,
    here_size_shares: here,
    upstream_avg_price: upAvg,
    here_avg_price: hereAvg,
    reason,
  });
  expect(drifting.differences).toEqual([
    difference(M3, 1, 0, 30, 0, 0.2, 'ledger_behind'),
    difference(M5, 0, 20, 0, 0.3, 0, 'ledger_behind'),
    difference(M2, 0, 40, 50, 0.5, 0.5, 'ledger_behind'),
  ]);
  const matching = (await h.get(`/traders/${MATCHING}`)).body.data.reconciliation;
  expect(matching).toMatchObject({ status: 'match', size_drift_shares: 0, differences: [] });
  expect(matching.positions).toEqual({ compared: 1, matching: 1, size_mismatch: 0, only_upstream: 0, only_here: 0, changed_since: 0 });
  expect(matching.reasons).toEqual({ ledger_behind: 0, history_not_covered: 0, unexplained: 0 });
  expect((await h.get(`/traders/${UNTRACKED}`)).body.data.reconciliation).toBeNull();
  expect((await h.get(`/traders/${PREDATES}`)).body.data.reconciliation).toMatchObject({
    status: 'explained',
    reasons: { ledger_behind: 2, history_not_covered: 0, unexplained: 0 },
  });
  // 60 + |150 - 100| + |20 - 0|
  expect(await reconciliationSummary(h.store, SNAPSHOT + 60_000)).toEqual({ match: 1, explained: 2, drift: 0, sizeDriftShares: 130 });

  // The ledger past the snapshot: the same differences have no reason left for DRIFTING (its history is
  // all within the coverage), while PREDATES' lie before the coverage.
  await h.given({ chainLedger: watermark(LATE) }, { refresh: false });
  // The stated coverage is read through a short cache.
  await waitFor(async () => (await ledgerCoverage(h.store)).to_block === LATE.number, 5_000, 'the later coverage');
  expect(await reconcilePositions(h.store, SNAPSHOT + 90_000)).toBe(3);
  const drift = (await h.get(`/traders/${DRIFTING}`)).body.data.reconciliation;
  expect(drift).toMatchObject({
    status: 'drift',
    ledger_to_block: LATE.number,
    ledger_to_time: iso(LATE.timeMs),
    reasons: { ledger_behind: 0, history_not_covered: 0, unexplained: 3 },
    size_drift_shares: 60,
  });
  expect(drift.differences.map((d: { reason: string | null }) => d.reason)).toEqual([null, null, null]);
  const predates = (await h.get(`/traders/${PREDATES}`)).body.data.reconciliation;
  expect(predates).toMatchObject({
    status: 'explained',
    positions: { compared: 1, matching: 0, size_mismatch: 1, only_upstream: 1, only_here: 0, changed_since: 0 },
    reasons: { ledger_behind: 0, history_not_covered: 2, unexplained: 0 },
  });
  expect(predates.differences).toEqual([
    // Its first change of the token (the Data API's buy) is older than the coverage.
    difference(M2, 1, 150, 100, 0.5, 0.5, 'history_not_covered'),
    // Never seen here, from a wallet active before the coverage.
    difference(M5, 0, 20, 0, 0.3, 0, 'history_not_covered'),
  ]);
  expect(await reconciliationSummary(h.store, SNAPSHOT + 90_000)).toEqual({ match: 1, explained: 1, drift: 1, sizeDriftShares: 130 });
});

test('the sink ahead of the ledger within the coverage: the lowest watermark the ledger applied is its progress', async () => {
  // The sink and the ledger consume the chain's stream apart: here the sink has stored a later range
  // (its coverage ends 60 s after the snapshot, with a fill inside it) that the ledger has not applied;
  // the ledger's watermarks are at LATE. Its progress is LATE, not the coverage's end: never a
  // partition it has not applied.
  const ahead = { number: 80_003_000, timeMs: SNAPSHOT + 60_000 };
  await h.store.insert(
    'chain_contiguous',
    watermarkKeys(chainLedger.partitions).map((key) => ({
      source: 'simulator',
      ledger_group: key,
      from_block: COVERAGE.from_block,
      from_time: iso(COVERAGE.from_time_ms),
      history_start_block: COVERAGE.history_start_block,
      last_block: ahead.number,
      last_time: iso(ahead.timeMs),
    })),
  );
  await h.store.insert('chain_ledger', [ledgerRow(buy(UNTRACKED, M1, 0, 1, 0.4, SNAPSHOT + 45_000, 80_002_500))]);
  await waitFor(async () => (await ledgerCoverage(h.store)).to_block === ahead.number, 5_000, 'the later coverage of the sink');
  expect(await reconcilePositions(h.store, SNAPSHOT + 100_000)).toBe(3);
  expect((await h.get(`/traders/${DRIFTING}`)).body.data.reconciliation).toMatchObject({
    status: 'drift',
    ledger_to_block: LATE.number,
    ledger_to_time: iso(LATE.timeMs),
  });
});

test('a newer check replaces the older one; snapshots over a day old are not checked again', async () => {
  expect(await reconcilePositions(h.store, SNAPSHOT + 2 * 86_400_000)).toBe(0);
  expect(await reconcilePositions(h.store, SNAPSHOT + 120_000)).toBe(3);
  const served = (await h.get(`/traders/${DRIFTING}`)).body.data.reconciliation;
  expect(served.checked_at).toBe(iso(SNAPSHOT + 120_000));
  expect(await h.rows('SELECT toString(count()) AS n FROM position_reconciliation FINAL')).toEqual([{ n: '3' }]);
});
