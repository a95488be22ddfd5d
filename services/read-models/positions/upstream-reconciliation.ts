/**
 * Reconciliation with Polymarket itself: every tracked wallet's open positions as the Data API lists
 * them (its latest `/positions` snapshot, wallet_positions) against the position ledger's, per
 * (wallet, token). A token whose ledger position changed shortly before or after the snapshot is not
 * compared (`changed_since`): the two were read at different moments. Sizes decide the status; the
 * values and PnL are reported beside them (Polymarket's PnL definitions differ from the ledger's:
 * docs/POSITIONS.md "Reconciliation with Polymarket"). Stored per wallet (migration 0070), served by
 * /v1/traders/{wallet} and /metrics.
 */
import type { Logger } from '../../logger.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { runPeriodically } from '../../shared/periodic.js';
import { DAY_MS, iso } from '../../shared/time.js';
import type { RunningJob } from '../read-model.js';
import { positionsGrouped } from './queries.js';

/** The Data API rounds sizes (4 decimals in the recorded samples): a difference within this many micro-shares is a match. */
export const SIZE_TOLERANCE_MICRO = 100n;
/** A ledger change this close to the snapshot (or after it) may be on one side only: the Data API indexes a few seconds late. */
export const CHANGED_MARGIN_MS = 120_000;
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

export interface Difference {
  asset_id: string;
  market_id: string;
  outcome: string;
  upstream_micro: bigint;
  here_micro: bigint;
  upstream_avg_price: number;
  here_avg_price: number;
}

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
  out.differences = out.differences.slice(0, MAX_DIFFERENCES);
  return out;
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
  const rows = wallets.map((wallet, i) =>
    toRow(reconcileWallet(wallet, at[i]!, upByWallet.get(wallet) ?? [], hereByWallet.get(wallet) ?? [], nowMs, asOf)),
  );
  await store.insert('position_reconciliation', rows);
  return rows.length;
}

function toRow(r: WalletReconciliation) {
  return {
    wallet: r.wallet,
    snapshot_at: iso(r.snapshotMs),
    checked_at: iso(r.checkedMs),
    ledger_as_of: r.ledgerAsOfMs === null ? null : iso(r.ledgerAsOfMs),
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
    differences: r.differences.map((d) => ({ ...d, upstream_micro: d.upstream_micro.toString(), here_micro: d.here_micro.toString() })),
  };
}

const usd = (micro: string | bigint) => Number(micro) / 1e6;

/** The wallet's newest check as served in /v1/traders/{wallet} `reconciliation`; null for a wallet the service does not track. */
export async function walletReconciliation(store: AnalyticsStore, wallet: string) {
  const [row] = await store.query<
    Record<string, string | number | null> & { differences: [string, string, string, string, string, number, number][] }
  >(
    `SELECT toUnixTimestamp64Milli(snapshot_at) AS snapshot_ms, toUnixTimestamp64Milli(checked_at) AS checked_ms,
            toUnixTimestamp64Milli(ledger_as_of) AS ledger_ms, compared, matching, size_mismatch, only_upstream, only_here, changed_since,
            toString(size_drift_micro) AS size_drift, toString(value_upstream_micro) AS vu, toString(value_here_micro) AS vh,
            toString(unrealized_upstream_micro) AS uu, toString(unrealized_here_micro) AS uh, toString(realized_upstream_micro) AS ru,
            toString(realized_here_micro) AS rh,
            arrayMap(d -> (d.1, d.2, d.3, toString(d.4), toString(d.5), d.6, d.7), differences) AS differences
       FROM position_reconciliation FINAL WHERE wallet = {wallet:String}`,
    { wallet },
  );
  if (!row) return null;
  const drift = Number(row.size_mismatch) + Number(row.only_upstream) + Number(row.only_here);
  return {
    status: drift === 0 ? ('match' as const) : ('drift' as const),
    source: 'polymarket data-api /positions',
    snapshot_at: iso(Number(row.snapshot_ms)),
    checked_at: iso(Number(row.checked_ms)),
    ledger_as_of: row.ledger_ms === null ? null : iso(Number(row.ledger_ms)),
    positions: {
      compared: Number(row.compared),
      matching: Number(row.matching),
      size_mismatch: Number(row.size_mismatch),
      only_upstream: Number(row.only_upstream),
      only_here: Number(row.only_here),
      changed_since: Number(row.changed_since),
    },
    size_drift_shares: usd(String(row.size_drift)),
    value_usdc: { upstream: usd(String(row.vu)), here: usd(String(row.vh)) },
    unrealized_pnl_usdc: { upstream: usd(String(row.uu)), here: usd(String(row.uh)) },
    realized_pnl_usdc: { upstream: usd(String(row.ru)), here: usd(String(row.rh)) },
    differences: row.differences.map(([asset_id, market_id, outcome, up, here, upAvg, hereAvg]) => ({
      asset_id,
      market_id,
      outcome,
      upstream_size_shares: usd(up),
      here_size_shares: usd(here),
      upstream_avg_price: upAvg,
      here_avg_price: hereAvg,
    })),
  };
}

/** Wallets by status in their newest check of the last day, and the summed size drift: the /metrics families' input. */
export async function reconciliationSummary(store: AnalyticsStore, nowMs: number = Date.now()) {
  const [row] = await store.query<{ wallets: string; drifting: string; drift: string }>(
    `SELECT toString(count()) AS wallets, toString(countIf(size_mismatch + only_upstream + only_here > 0)) AS drifting,
            toString(sum(size_drift_micro)) AS drift
       FROM position_reconciliation FINAL WHERE checked_at >= fromUnixTimestamp64Milli({since:Int64})`,
    { since: nowMs - RECHECK_WINDOW_MS },
  );
  const wallets = Number(row?.wallets ?? 0);
  const drifting = Number(row?.drifting ?? 0);
  return { match: wallets - drifting, drift: drifting, sizeDriftShares: usd(row?.drift ?? '0') };
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
