/**
 * The PnL curve's closed days as the valuation pass stored them (`trader_curve`, migration 0053), and
 * when a report may serve them instead of valuing the days itself (pnl-curve.ts).
 *
 * A closed day's unrealized PnL is a function of the wallet's ledger rows dated up to that day, the daily
 * closes of the markets it held and their settlement (pnl-curve.ts). A stored curve is used only when,
 * read in the report's own statement, all of these are what they were when it was valued:
 * - the curve's today (a new day adds a closed day) and a first day on or before the one asked for;
 * - the number of the wallet's ledger rows dated before today (trader_days.changes: rows are only ever
 *   added, cancellations and replays included, so any change dated on a closed day raises it; today's
 *   fills do not, so a wallet trading now keeps its stored days);
 * - for each market it held on a curve day, its marks key: the count of its close inputs (chain taker
 *   fills and Data API trades, market_closes) dated before today, and its settlement (marksKey). Inputs
 *   are only ever added, so any that moves a past close raises the count; a reorg's retraction, which
 *   takes inputs back, rebuilds the market's closes and deletes the stored curves that hold it
 *   (chain-ledger/retraction.ts). Markets not held on any curve day cannot have become held on one
 *   without a ledger row dated before today.
 * A curve is stamped with what it was valued with: the ledger rows counted in the same read of
 * position_daily as its states (position_daily.changes; a view's rows reach each table in its own step,
 * so trader_days read in another subquery could already count a row position_daily does not show yet),
 * and the close inputs and catalog of the report's statement, read before the curve's closes, so an
 * input added in between can only make the stored curve look stale, never fresh. A market's count and
 * its daily closes are rows of one table written by the same view insert (migration 0055), so no
 * reading sees a close without the input that moved it.
 */
import { DAY_MS } from '../../shared/time.js';
import { isSettled, type MarketInfo } from '../positions/market-data.js';

/** A stored curve as the wallet statement selects it (JSON arrays). */
export type StoredCurveTuple = [
  wallet: string,
  fromDayMs: number,
  toDayMs: number,
  unrealized: string[],
  rowsBefore: string,
  markets: string[],
  marks: string[],
];

/**
 * The part of the wallet statement (read-parts.ts) with the wallets' stored curves (the newest per
 * wallet), as StoredCurveTuples.
 */
export function storedCurvesPart(inWallets: string): string {
  return `
    SELECT groupArray((wallet, f, t, u, r, m, k)) AS value FROM (
        SELECT wallet, toUnixTimestamp(toDateTime(from_day, 'UTC')) * 1000 AS f, toUnixTimestamp(toDateTime(to_day, 'UTC')) * 1000 AS t,
               arrayMap(x -> toString(x), unrealized) AS u, toString(rows_before) AS r, markets AS m, marks AS k
          FROM trader_curve FINAL WHERE ${inWallets})`;
}

/**
 * The key of what a market's closed days are valued with (pnl-curve.ts curveUnrealized): the count of
 * its close inputs dated before today ('-' without any: a market whose first trade is today keeps the
 * key it had), which outcome is YES and, once settled, the day it closed and the payouts. Other catalog
 * changes (title, an open market's status) do not change the key.
 */
export function marksKey(closeInputs: string | undefined, market: MarketInfo | undefined): string {
  const closes = closeInputs === undefined || closeInputs === '0' ? '-' : closeInputs;
  if (!market) return `${closes}|unknown`;
  const settled =
    isSettled(market.status) && market.closed_ms !== null
      ? `settled ${Math.floor(market.closed_ms / DAY_MS)} ${market.outcome_prices.join(',')}`
      : 'open';
  return `${closes}|${market.yes_index}|${settled}`;
}

/** What a report knows when it decides whether a wallet's stored curve still holds. */
export interface CurveWitness {
  fromDayMs: number;
  todayMs: number;
  /** The wallet's ledger rows dated before today. */
  rowsBefore: bigint;
  marks: (marketId: string) => string;
}

/**
 * The stored unrealized PnL by day (day ms, from `witness.fromDayMs`; days valued 0 are left out, as
 * curveUnrealized leaves them), or null when the stored curve does not hold for this report.
 */
export function storedUnrealized(stored: StoredCurveTuple | undefined, witness: CurveWitness): Map<number, bigint> | null {
  if (!stored) return null;
  const [, fromMs, toMs, unrealized, rowsBefore, markets, marks] = stored;
  if (Number(toMs) !== witness.todayMs || Number(fromMs) > witness.fromDayMs) return null;
  if (unrealized.length !== Math.round((witness.todayMs - Number(fromMs)) / DAY_MS)) return null;
  if (BigInt(rowsBefore) !== witness.rowsBefore) return null;
  if (markets.some((marketId, i) => witness.marks(marketId) !== marks[i])) return null;
  const result = new Map<number, bigint>();
  unrealized.forEach((value, i) => {
    const day = Number(fromMs) + i * DAY_MS;
    if (day >= witness.fromDayMs && value !== '0') result.set(day, BigInt(value));
  });
  return result;
}

/** A trader_curve row for a curve valued from `fromDayMs` to the day before `todayMs`. */
export function storedCurveRow(wallet: string, byDay: Map<number, bigint>, markets: string[], witness: CurveWitness, valuedAt: string) {
  const unrealized: string[] = [];
  for (let day = witness.fromDayMs; day < witness.todayMs; day += DAY_MS) unrealized.push((byDay.get(day) ?? 0n).toString());
  const held = [...new Set(markets)].sort();
  return {
    wallet,
    from_day: new Date(witness.fromDayMs).toISOString().slice(0, 10),
    to_day: new Date(witness.todayMs).toISOString().slice(0, 10),
    unrealized,
    rows_before: witness.rowsBefore.toString(),
    markets: held,
    marks: held.map((marketId) => witness.marks(marketId)),
    valued_at: valuedAt,
  };
}
