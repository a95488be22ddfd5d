/**
 * The reasons of the reconciliation's differences and the wallet's status, rule by rule (the
 * integration test runs them against the ledger and the chain's stated coverage).
 */
import {
  type Difference,
  type LedgerProgress,
  differenceReason,
  explainDifferences,
  reconcileWallet,
  reconciliationStatus,
} from './upstream-reconciliation.js';
import { positionReconciliationMetrics } from '../../../api/metrics.js';

const FROM = Date.UTC(2026, 9, 1, 11);
const SNAPSHOT = FROM + 2 * 3_600_000;
const partial: LedgerProgress = { toBlock: 80_002_000, toMs: SNAPSHOT + 30_000, coverageFromMs: FROM, coverageComplete: false };
const diff = (up: bigint, here: bigint): Difference => ({
  asset_id: 'a',
  market_id: 'm',
  outcome: 'Yes',
  upstream_micro: up,
  here_micro: here,
  upstream_avg_price: 0.5,
  here_avg_price: 0.5,
  reason: null,
});
const inside = { firstMs: FROM + 60_000 };
const before = { firstMs: FROM - 60_000 };

test('ledger_behind first: a snapshot newer than the ledger’s progress, or a ledger that applied nothing', () => {
  const behind = { ...partial, toMs: SNAPSHOT - 1 };
  expect(differenceReason(diff(10n, 20n), SNAPSHOT, behind, before, true)).toBe('ledger_behind');
  expect(differenceReason(diff(10n, 20n), SNAPSHOT, { ...partial, toMs: null, toBlock: null }, inside, false)).toBe('ledger_behind');
  // At the snapshot's own time the ledger has applied it.
  expect(differenceReason(diff(10n, 20n), SNAPSHOT, { ...partial, toMs: SNAPSHOT }, inside, false)).toBeNull();
});

test('history_not_covered: the token’s record starts before the coverage, or fewer shares here from a wallet active before it', () => {
  expect(differenceReason(diff(10n, 20n), SNAPSHOT, partial, before, false)).toBe('history_not_covered');
  expect(differenceReason(diff(20n, 10n), SNAPSHOT, partial, inside, true)).toBe('history_not_covered');
  expect(differenceReason(diff(20n, 0n), SNAPSHOT, partial, undefined, true)).toBe('history_not_covered');
  // More shares here than at Polymarket, all recorded within the coverage: the wallet's earlier activity does not explain it.
  expect(differenceReason(diff(10n, 20n), SNAPSHOT, partial, inside, true)).toBeNull();
  expect(differenceReason(diff(20n, 10n), SNAPSHOT, partial, inside, false)).toBeNull();
  // A complete coverage leaves no history out.
  expect(differenceReason(diff(20n, 10n), SNAPSHOT, { ...partial, coverageComplete: true }, before, true)).toBeNull();
  // No chain coverage: no history is covered whole.
  expect(differenceReason(diff(10n, 20n), SNAPSHOT, { ...partial, toBlock: null, coverageFromMs: null }, inside, false)).toBe(
    'history_not_covered',
  );
});

test('status: match without differences, explained when each has a reason, drift when one has none; counts over all differences', () => {
  const row = (asset: string, size: number, lastMs: number) => ({
    wallet: 'w',
    asset_id: asset,
    market_id: 'm',
    outcome: 'Yes',
    qty: String(size * 1e6),
    cost: String(size * 5e5),
    last_ms: lastMs,
    realized: '0',
  });
  const up = (asset: string, size: number) => ({
    wallet: 'w',
    asset_id: asset,
    market_id: 'm',
    outcome: 'Yes',
    size,
    avg_price: 0.5,
    cur_price: 0.5,
    current_value_usdc: size / 2,
    cash_pnl_usdc: 0,
    realized_pnl_usdc: 0,
  });
  // 12 tokens differ, each by its index + 1 shares: 10 are kept, all 12 counted.
  const assets = Array.from({ length: 12 }, (_, i) => `t${String(i).padStart(2, '0')}`);
  const checked = reconcileWallet(
    'w',
    SNAPSHOT,
    assets.map((a, i) => up(a, 100 + i + 1)),
    assets.map((a) => row(a, 100, FROM + 60_000)),
    SNAPSHOT,
    null,
  );
  expect(reconciliationStatus(checked)).toBe('drift');
  const history = new Map(assets.map((a, i) => [a, i < 2 ? before : inside]));
  const explained = explainDifferences(checked, partial, history, true);
  expect(explained).toMatchObject({ ledgerBehind: 0, historyNotCovered: 12, unexplained: 0 });
  expect(explained.differences).toHaveLength(10);
  expect(reconciliationStatus(explained)).toBe('explained');
  const drifting = explainDifferences(checked, partial, history, false);
  // Only the two tokens recorded before the coverage are explained; the other ten have no reason.
  expect(drifting).toMatchObject({ ledgerBehind: 0, historyNotCovered: 2, unexplained: 10 });
  expect(reconciliationStatus(drifting)).toBe('drift');
  const same = reconcileWallet('w', SNAPSHOT, [up('t00', 100)], [row('t00', 100, FROM)], SNAPSHOT, null);
  expect(reconciliationStatus(explainDifferences(same, partial, new Map(), true))).toBe('match');
});

test('/metrics: wallets by status, explained apart from drift', () => {
  const [wallets] = positionReconciliationMetrics({ match: 4, explained: 2, drift: 1, sizeDriftShares: 12.5 });
  expect(wallets?.samples).toEqual([
    { labels: { status: 'match' }, value: 4 },
    { labels: { status: 'explained' }, value: 2 },
    { labels: { status: 'drift' }, value: 1 },
  ]);
  expect(positionReconciliationMetrics({ match: 0, explained: 0, drift: 0, sizeDriftShares: 0 })).toEqual([]);
});
