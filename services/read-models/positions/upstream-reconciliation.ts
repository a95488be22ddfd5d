/**
 * Reconciliation with Polymarket itself: every tracked wallet's open positions as the Data API lists
 * them (its latest `/positions` snapshot, wallet_positions) against the position ledger's, per
 * (wallet, token). A token whose ledger position changed shortly before or after the snapshot is not
 * compared (`changed_since`): the two were read at different moments. Sizes decide the status; the
 * values and PnL are reported beside them (Polymarket's PnL definitions differ from the ledger's:
 * docs/POSITIONS.md "Reconciliation with Polymarket"). Each size difference gets the reason that
 * explains it, when one does (the ledger had not applied the snapshot's time yet, or the position's
 * history lies before the chain coverage), judged against the ledger's progress and coverage stored
 * with the check. Stored per wallet (migrations 0070, 0075), served by /v1/traders/{wallet} and /metrics.
 */
import type { Logger } from '../../logger.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { servedAmount } from '../../shared/decimal.js';
import { runPeriodically } from '../../shared/periodic.js';
import { DAY_MS, iso } from '../../shared/time.js';
import type { RunningJob } from '../read-model.js';
import type { Coverage } from '../../http/types.generated.js';
import { ledgerCoverage, walletsPredating } from './coverage.js';
import { LEDGER_WATERMARKS, positionsGrouped, WATERMARKS_WHOLE } from './queries.js';

/** The Data API rounds sizes (4 decimals in the recorded samples): a difference within this many micro-shares is a match. */
const SIZE_TOLERANCE_MICRO = 100n;
/** A ledger change this close to the snapshot (or after it) may be on one side only: the Data API indexes a few seconds late. */
const CHANGED_MARGIN_MS = 120_000;
/** Snapshots older than this are not checked again. */
const RECHECK_WINDOW_MS = DAY_MS;
/** Wallets checked per run, bounding a run's work whatever the tracked list holds. */
const MAX_WALLETS = 1_000;
/** Differences kept per wallet, largest first. */
const MAX_DIFFERENCES = 10;

interface UpstreamRow {
  wallet: string;
  asset_id: string;
  market_id: string;
  outcome: string;
  size: number;
  avg_price: number;
  cur_price: number;
  current_value_usdc: number;
  cash_pnl_usdc: number;
  realized_pnl_usdc: number;
}

interface LedgerRow {
  wallet: string;
  asset_id: string;
  market_id: string;
  outcome: string;
  qty: string;
  cost: string;
  last_ms: number;
  realized: string;
}

/**
 * Why a token's sizes differ, when the check can tell (docs/POSITIONS.md):
 * - ledger_behind: the snapshot is newer than what the ledger had applied (`ledger_to_time`);
 * - history_not_covered: the position's history lies before the chain coverage, where the ledger
 *   holds only the Data API's taker trades and tracked wallets' activity.
 * null: no known cause, a drift.
 */
export type DifferenceReason = 'ledger_behind' | 'history_not_covered';

export interface Difference {
  asset_id: string;
  market_id: string;
  outcome: string;
  upstream_micro: bigint;
  here_micro: bigint;
  upstream_avg_price: number;
  here_avg_price: number;
  reason: DifferenceReason | null;
}

/** How far the ledger had applied the chain at the check, and what the chain coverage was. */
export interface LedgerProgress {
  /** The ledger holds every change up to this block (null: no chain source, or the ledger applied none of its events). */
  toBlock: number | null;
  /** ... and this time (null: the ledger applied nothing). */
  toMs: number | null;
  /** The chain coverage's start (null: no chain source states a coverage, so no history is covered whole). */
  coverageFromMs: number | null;
  coverageComplete: boolean;
}

/** A token's ledger history as far as the reasons need it. */
export interface TokenHistory {
  /** Time of the ledger's first change of the (wallet, token). */
  firstMs: number;
}

export type ReconciliationStatus = 'match' | 'explained' | 'drift';

export interface WalletReconciliation {
  wallet: string;
  snapshotMs: number;
  checkedMs: number;
  ledgerAsOfMs: number | null;
  compared: number;
  matching: number;
  sizeMismatch: number;
  onlyUpstream: number;
  onlyHere: number;
  changedSince: number;
  sizeDriftMicro: bigint;
  valueUpstream: bigint;
  valueHere: bigint;
  unrealizedUpstream: bigint;
  unrealizedHere: bigint;
  realizedUpstream: bigint;
  realizedHere: bigint;
  /** Every differing token counted by its reason (differences keeps only the largest). */
  ledgerBehind: number;
  historyNotCovered: number;
  unexplained: number;
  differences: Difference[];
}

const micro = (value: number) => BigInt(Math.round(value * 1e6));
const abs = (v: bigint) => (v < 0n ? -v : v);
const avgPrice = (cost: bigint, qty: bigint) => (qty === 0n ? 0 : Math.round((Number(cost) / Number(qty)) * 1e6) / 1e6);

/**
 * Compares one wallet's snapshot with its ledger positions. Pure: the rows in, the counts out.
 * A token counts once: compared (matching or not), only on one side, or changed since the snapshot.
 */
export function reconcileWallet(
  wallet: string,
  snapshotMs: number,
  upstream: readonly UpstreamRow[],
  ledger: readonly LedgerRow[],
  checkedMs: number,
  ledgerAsOfMs: number | null,
): WalletReconciliation {
  const here = new Map(ledger.map((row) => [row.asset_id, row]));
  const up = new Map(upstream.map((row) => [row.asset_id, row]));
  const out: WalletReconciliation = {
    wallet,
    snapshotMs,
    checkedMs,
    ledgerAsOfMs,
    compared: 0,
    matching: 0,
    sizeMismatch: 0,
    onlyUpstream: 0,
    onlyHere: 0,
    changedSince: 0,
    sizeDriftMicro: 0n,
    valueUpstream: 0n,
    valueHere: 0n,
    unrealizedUpstream: 0n,
    unrealizedHere: 0n,
    realizedUpstream: 0n,
    realizedHere: 0n,
    ledgerBehind: 0,
    historyNotCovered: 0,
    unexplained: 0,
    differences: [],
  };
  const tokens = new Set([...up.keys(), ...[...here.values()].filter((row) => BigInt(row.qty) > 0n).map((row) => row.asset_id)]);
  for (const token of [...tokens].sort()) {
    const u = up.get(token);
    const h = here.get(token);
    if (h && h.last_ms > snapshotMs - CHANGED_MARGIN_MS) {
      out.changedSince += 1;
      continue;
    }
    const upstreamMicro = u ? micro(u.size) : 0n;
    const qty = h ? BigInt(h.qty) : 0n;
    const cost = h ? BigInt(h.cost) : 0n;
    const drift = abs(upstreamMicro - qty);
    if (upstreamMicro > 0n && qty === 0n) out.onlyUpstream += 1;
    else if (qty > 0n && upstreamMicro === 0n) out.onlyHere += 1;
    else {
      out.compared += 1;
      if (drift <= SIZE_TOLERANCE_MICRO) out.matching += 1;
      else out.sizeMismatch += 1;
    }
    if (drift > SIZE_TOLERANCE_MICRO) {
      out.sizeDriftMicro += drift;
      out.differences.push({
        asset_id: token,
        market_id: u?.market_id || h?.market_id || '',
        outcome: u?.outcome || h?.outcome || '',
        upstream_micro: upstreamMicro,
        here_micro: qty,
        upstream_avg_price: u?.avg_price ?? 0,
        here_avg_price: avgPrice(cost, qty),
        reason: null,
      });
    }
    // Both sides valued at the Data API's price, so the value gap is the size gap alone.
    const mark = u?.cur_price ?? null;
    if (u) {
      out.valueUpstream += micro(u.current_value_usdc);
      out.unrealizedUpstream += micro(u.cash_pnl_usdc);
      out.realizedUpstream += micro(u.realized_pnl_usdc);
    }
    if (h && mark !== null) {
      const value = micro((Number(qty) / 1e6) * mark);
      out.valueHere += value;
      out.unrealizedHere += value - cost;
    }
    if (h && u) out.realizedHere += BigInt(h.realized);
  }
  out.differences.sort((a, b) => {
    const d = abs(b.upstream_micro - b.here_micro) - abs(a.upstream_micro - a.here_micro);
    return d > 0n ? 1 : d < 0n ? -1 : a.asset_id < b.asset_id ? -1 : 1;
  });
  out.unexplained = out.differences.length;
  return out;
}

/**
 * The reason of one difference, first that applies:
 * - ledger_behind when the snapshot is newer than the ledger's progress: the Data API may show changes
 *   the ledger has not applied yet (a ledger that applied nothing is behind any snapshot);
 * - history_not_covered when the coverage is not complete and the position's history may lie before
 *   it: the ledger's record of the token starts before the coverage (there it holds only the Data
 *   API's taker trades, no maker fills), or the ledger holds fewer shares than Polymarket and the
 *   wallet was active before the coverage (`wallet_predates`: buys of then are missing here). Without
 *   a chain coverage no history is covered whole.
 * Transfers are no reason: the ledger moves shares between wallets as the ERC-1155 balances do, which
 * Polymarket's sizes follow.
 */
export function differenceReason(
  difference: Difference,
  snapshotMs: number,
  progress: LedgerProgress,
  history: TokenHistory | undefined,
  walletPredates: boolean,
): DifferenceReason | null {
  if (progress.toMs === null || snapshotMs > progress.toMs) return 'ledger_behind';
  if (progress.coverageComplete) return null;
  if (progress.coverageFromMs === null) return 'history_not_covered';
  if (history && history.firstMs < progress.coverageFromMs) return 'history_not_covered';
  if (walletPredates && difference.here_micro < difference.upstream_micro) return 'history_not_covered';
  return null;
}

/** Gives every difference its reason, counts them by reason and keeps the largest MAX_DIFFERENCES. */
export function explainDifferences(
  r: WalletReconciliation,
  progress: LedgerProgress,
  history: ReadonlyMap<string, TokenHistory>,
  walletPredates: boolean,
): WalletReconciliation {
  const differences = r.differences.map((d) => ({
    ...d,
    reason: differenceReason(d, r.snapshotMs, progress, history.get(d.asset_id), walletPredates),
  }));
  const count = (reason: DifferenceReason | null) => differences.filter((d) => d.reason === reason).length;
  return {
    ...r,
    ledgerBehind: count('ledger_behind'),
    historyNotCovered: count('history_not_covered'),
    unexplained: count(null),
    differences: differences.slice(0, MAX_DIFFERENCES),
  };
}

/** match: no token differs; explained: every difference has a reason; drift: some difference has none. */
export function reconciliationStatus(r: Pick<WalletReconciliation, 'differences' | 'unexplained'>): ReconciliationStatus {
  if (r.differences.length === 0) return 'match';
  return r.unexplained > 0 ? 'drift' : 'explained';
}

/**
 * The ledger's progress at the check. With a chain coverage: its end (to_block, to_time) when the
 * ledger has applied every settlement event the chain tables hold up to it (none is newer than the
 * ledger's progress), otherwise its progress. The ledger's progress is the lowest watermark over the
 * chain ledger's partitions once each has one (queries.ts, PROGRESS_TUPLE): its partitions advance
 * apart, and their newest change would read a partition still waiting as caught up. Before that, and
 * without a chain coverage, the newest change the ledger applied (Data API records).
 */
async function ledgerProgress(store: AnalyticsStore, coverage: Coverage): Promise<LedgerProgress> {
  const chain = coverage.to_time !== null && coverage.to_block !== null;
  const [applied] = await store.query<{ time: number | null; block: string | null }>(
    `SELECT if(${WATERMARKS_WHOLE}, marks.ms, newest.time) AS time, if(${WATERMARKS_WHOLE}, marks.block, newest.block) AS block
       FROM (SELECT if(count() = 0, NULL, toUnixTimestamp64Milli(max(last_time))) AS time, if(count() = 0, NULL, toString(max(last_block))) AS block
               FROM ledger_progress WHERE {chain:Bool} = false OR origin = 'chain') AS newest
      CROSS JOIN ${LEDGER_WATERMARKS} AS marks`,
    { chain },
  );
  const appliedMs = applied?.time == null ? null : Number(applied.time);
  const appliedBlock = applied?.block == null ? null : Number(applied.block);
  const from = { coverageFromMs: coverage.from_time === null ? null : Date.parse(coverage.from_time), coverageComplete: coverage.complete };
  if (!chain || coverage.to_time === null || coverage.to_block === null) return { toBlock: null, toMs: appliedMs, ...from };
  if (appliedMs === null || appliedBlock === null) return { toBlock: null, toMs: null, ...from };
  const [pending] = await store.query<{ n: string }>(
    `SELECT toString(count()) AS n FROM (
       SELECT 1 FROM chain_ledger
        WHERE block_time >= fromUnixTimestamp64Milli({after:Int64}) AND block_time <= fromUnixTimestamp64Milli({to:Int64})
          AND block_number > {block:UInt64} AND kind != 'block_retracted' LIMIT 1)`,
    { after: appliedMs, to: Date.parse(coverage.to_time), block: appliedBlock },
  );
  return Number(pending?.n ?? 0) === 0
    ? { toBlock: coverage.to_block, toMs: Date.parse(coverage.to_time), ...from }
    : { toBlock: appliedBlock, toMs: appliedMs, ...from };
}

/** The first change of each (wallet, token) that differs and whose reason depends on it. */
async function tokenHistories(store: AnalyticsStore, keys: readonly (readonly [string, string])[]) {
  const by = new Map<string, Map<string, TokenHistory>>();
  if (keys.length === 0) return by;
  const rows = await store.query<{ wallet: string; asset_id: string; first_ms: number }>(
    `SELECT wallet, asset_id, toUnixTimestamp64Milli(min(first_time)) AS first_ms FROM position_state
      WHERE (wallet, asset_id) IN (SELECT arrayJoin(arrayZip({wallets:Array(String)}, {assets:Array(String)})))
      GROUP BY wallet, asset_id`,
    { wallets: keys.map(([w]) => w), assets: keys.map(([, a]) => a) },
  );
  for (const row of rows) {
    const wallet = by.get(row.wallet) ?? new Map<string, TokenHistory>();
    wallet.set(row.asset_id, { firstMs: Number(row.first_ms) });
    by.set(row.wallet, wallet);
  }
  return by;
}

/** Checks every wallet whose latest snapshot is under a day old (at most MAX_WALLETS, newest snapshots first); returns how many. */
export async function reconcilePositions(store: AnalyticsStore, nowMs: number = Date.now()): Promise<number> {
  const latest = await store.query<{ wallet: string; at: number }>(
    `SELECT wallet, toUnixTimestamp64Milli(max(snapshot_at)) AS at FROM wallet_positions
      GROUP BY wallet HAVING max(snapshot_at) >= fromUnixTimestamp64Milli({since:Int64})
      ORDER BY at DESC, wallet LIMIT {limit:UInt32}`,
    { since: nowMs - RECHECK_WINDOW_MS, limit: MAX_WALLETS },
  );
  if (latest.length === 0) return 0;
  const wallets = latest.map((row) => row.wallet);
  const at = latest.map((row) => Number(row.at));
  // Read before the positions, so the rows read hold everything up to it.
  const coverage = await ledgerCoverage(store);
  const reach = await ledgerProgress(store, coverage);
  const [upstream, ledger, progress] = await Promise.all([
    store.query<UpstreamRow & { snapshot_ms: number }>(
      `SELECT wallet, asset_id, market_id, outcome, size, avg_price, cur_price, current_value_usdc, cash_pnl_usdc, realized_pnl_usdc
         FROM wallet_positions FINAL
        WHERE (wallet, toUnixTimestamp64Milli(snapshot_at)) IN (SELECT arrayJoin(arrayZip({wallets:Array(String)}, {at:Array(Int64)})))`,
      { wallets, at },
    ),
    store.query<LedgerRow>(
      `SELECT wallet, asset_id, m AS market_id, o AS outcome, toString(s.1) AS qty, toString(s.2) AS cost, l AS last_ms, toString(r) AS realized
         FROM (${positionsGrouped('wallet IN {wallets:Array(String)}')})`,
      { wallets },
    ),
    store.query<{ last_ms: number | null }>(
      `SELECT if(count() = 0, NULL, toUnixTimestamp64Milli(max(last_time))) AS last_ms FROM ledger_progress`,
    ),
  ]);
  const group = <T extends { wallet: string }>(rows: readonly T[]) => {
    const by = new Map<string, T[]>();
    for (const row of rows) by.set(row.wallet, [...(by.get(row.wallet) ?? []), row]);
    return by;
  };
  const upByWallet = group(upstream);
  const hereByWallet = group(ledger);
  const asOf = progress[0]?.last_ms === null || progress[0]?.last_ms === undefined ? null : Number(progress[0].last_ms);
  const checks = wallets.map((wallet, i) =>
    reconcileWallet(wallet, at[i]!, upByWallet.get(wallet) ?? [], hereByWallet.get(wallet) ?? [], nowMs, asOf),
  );
  // The coverage reasons need more reads only for wallets whose differences the ledger's lag does not explain.
  const undecided = checks.filter(
    (r) => !reach.coverageComplete && reach.toMs !== null && r.snapshotMs <= reach.toMs && r.differences.length > 0,
  );
  const histories = await tokenHistories(
    store,
    undecided.flatMap((r) => r.differences.map((d) => [r.wallet, d.asset_id] as const)),
  );
  const predates =
    reach.coverageFromMs === null
      ? new Set<string>()
      : await walletsPredating(
          store,
          undecided.map((r) => r.wallet),
          coverage,
        );
  const rows = checks.map((r) => toRow(explainDifferences(r, reach, histories.get(r.wallet) ?? new Map(), predates.has(r.wallet)), reach));
  await store.insert('position_reconciliation', rows);
  return rows.length;
}

function toRow(r: WalletReconciliation, progress: LedgerProgress) {
  return {
    wallet: r.wallet,
    snapshot_at: iso(r.snapshotMs),
    checked_at: iso(r.checkedMs),
    ledger_as_of: r.ledgerAsOfMs === null ? null : iso(r.ledgerAsOfMs),
    ledger_to_block: progress.toBlock,
    ledger_to_time: progress.toMs === null ? null : iso(progress.toMs),
    coverage_from_time: progress.coverageFromMs === null ? null : iso(progress.coverageFromMs),
    coverage_complete: progress.coverageComplete,
    ledger_behind: r.ledgerBehind,
    history_not_covered: r.historyNotCovered,
    unexplained: r.unexplained,
    status: reconciliationStatus(r),
    compared: r.compared,
    matching: r.matching,
    size_mismatch: r.sizeMismatch,
    only_upstream: r.onlyUpstream,
    only_here: r.onlyHere,
    changed_since: r.changedSince,
    size_drift_micro: r.sizeDriftMicro.toString(),
    value_upstream_micro: r.valueUpstream.toString(),
    value_here_micro: r.valueHere.toString(),
    unrealized_upstream_micro: r.unrealizedUpstream.toString(),
    unrealized_here_micro: r.unrealizedHere.toString(),
    realized_upstream_micro: r.realizedUpstream.toString(),
    realized_here_micro: r.realizedHere.toString(),
    differences: r.differences.map(({ reason: _, ...d }) => ({
      ...d,
      upstream_micro: d.upstream_micro.toString(),
      here_micro: d.here_micro.toString(),
    })),
    difference_reasons: r.differences.map((d) => d.reason ?? ''),
  };
}

/** A stored micro-unit integer (its text) as served: through the one rounding rule of the Conventions. */
const usd = (micro: string | bigint) => servedAmount(BigInt(micro));

const msIso = (ms: string | number | null | undefined) => (ms == null ? null : iso(Number(ms)));

/** The wallet's newest check as served in /v1/traders/{wallet} `reconciliation`; null for a wallet the service does not track. */
export async function walletReconciliation(store: AnalyticsStore, wallet: string) {
  const [row] = await store.query<
    Record<string, string | number | null> & {
      differences: [string, string, string, string, string, number, number][];
      reasons: string[];
    }
  >(
    `SELECT toUnixTimestamp64Milli(snapshot_at) AS snapshot_ms, toUnixTimestamp64Milli(checked_at) AS checked_ms,
            toUnixTimestamp64Milli(ledger_as_of) AS ledger_ms, toString(ledger_to_block) AS ledger_to_block,
            toUnixTimestamp64Milli(ledger_to_time) AS ledger_to_ms, toUnixTimestamp64Milli(coverage_from_time) AS coverage_from_ms,
            coverage_complete, status, ledger_behind, history_not_covered, unexplained,
            compared, matching, size_mismatch, only_upstream, only_here, changed_since,
            toString(size_drift_micro) AS size_drift, toString(value_upstream_micro) AS vu, toString(value_here_micro) AS vh,
            toString(unrealized_upstream_micro) AS uu, toString(unrealized_here_micro) AS uh, toString(realized_upstream_micro) AS ru,
            toString(realized_here_micro) AS rh,
            arrayMap(d -> (d.1, d.2, d.3, toString(d.4), toString(d.5), d.6, d.7), differences) AS differences,
            arrayMap(r -> toString(r), difference_reasons) AS reasons
       FROM position_reconciliation FINAL WHERE wallet = {wallet:String}`,
    { wallet },
  );
  if (!row) return null;
  return {
    status: String(row.status) as ReconciliationStatus,
    source: 'polymarket data-api /positions',
    snapshot_at: iso(Number(row.snapshot_ms)),
    checked_at: iso(Number(row.checked_ms)),
    ledger_as_of: msIso(row.ledger_ms),
    ledger_to_block: row.ledger_to_block == null ? null : Number(row.ledger_to_block),
    ledger_to_time: msIso(row.ledger_to_ms),
    coverage_from_time: msIso(row.coverage_from_ms),
    coverage_complete: Boolean(row.coverage_complete),
    positions: {
      compared: Number(row.compared),
      matching: Number(row.matching),
      size_mismatch: Number(row.size_mismatch),
      only_upstream: Number(row.only_upstream),
      only_here: Number(row.only_here),
      changed_since: Number(row.changed_since),
    },
    reasons: {
      ledger_behind: Number(row.ledger_behind),
      history_not_covered: Number(row.history_not_covered),
      unexplained: Number(row.unexplained),
    },
    size_drift_shares: usd(String(row.size_drift)),
    value_usdc: { upstream: usd(String(row.vu)), here: usd(String(row.vh)) },
    unrealized_pnl_usdc: { upstream: usd(String(row.uu)), here: usd(String(row.uh)) },
    realized_pnl_usdc: { upstream: usd(String(row.ru)), here: usd(String(row.rh)) },
    differences: row.differences.map(([asset_id, market_id, outcome, up, here, upAvg, hereAvg], i) => ({
      asset_id,
      market_id,
      outcome,
      upstream_size_shares: usd(up),
      here_size_shares: usd(here),
      upstream_avg_price: servedAmount(upAvg),
      here_avg_price: servedAmount(hereAvg),
      reason: (row.reasons[i] || null) as DifferenceReason | null,
    })),
  };
}

/** Wallets by status in their newest check of the last day, and the summed size drift: the /metrics families' input. */
export async function reconciliationSummary(store: AnalyticsStore, nowMs: number = Date.now()) {
  const [row] = await store.query<{ explained: string; drifting: string; matching: string; drift: string }>(
    `SELECT toString(countIf(status = 'match')) AS matching, toString(countIf(status = 'explained')) AS explained,
            toString(countIf(status = 'drift')) AS drifting, toString(sum(size_drift_micro)) AS drift
       FROM position_reconciliation FINAL WHERE checked_at >= fromUnixTimestamp64Milli({since:Int64})`,
    { since: nowMs - RECHECK_WINDOW_MS },
  );
  return {
    match: Number(row?.matching ?? 0),
    explained: Number(row?.explained ?? 0),
    drift: Number(row?.drifting ?? 0),
    sizeDriftShares: usd(row?.drift ?? '0'),
  };
}

export function startPositionReconciliation(store: AnalyticsStore, intervalMs: number, logger: Logger): RunningJob {
  return runPeriodically(
    async () => {
      await reconcilePositions(store);
    },
    intervalMs,
    (error) => logger.warn({ err: error }, 'position reconciliation failed; retried at the next run'),
  );
}
