/**
 * The daily PnL curve's unrealized part on closed days. ClickHouse sends what changes: each held token's
 * end-of-day states on the days it changed (from the newest one on or before the curve's first day),
 * and each market's daily close on every day of the curve as one dense array. JavaScript walks the
 * days. Sending the states expanded to every day would cost a busy wallet tokens x days tuples of
 * JSON, and valuing every (token, day) row inside ClickHouse costs more than sending the changes and
 * valuing them here.
 *
 * Definition (the same as today's point, trader-report.ts, and docs/POSITIONS.md): on a closed UTC day
 * d, each token the wallet held at the end of d (its newest end-of-day state on or before d) is worth
 * qty x price - its cost basis, where price is
 * - the payout (catalog outcome price) when the market is resolved or voided and d is on or after
 *   the day it closed;
 * - otherwise the market's newest daily close on or before d (YES price; the other outcome of the market
 *   is 1 - YES), chain candles where they have the day, else Data API candles;
 * - none (the token is left out that day) when there is neither.
 * Values are qty x price rounded half up to a micro-unit, as valueAt does. Today's point is valued at
 * the current marks (it equals the report's unrealized PnL).
 */
import { DAY_MS } from '../../shared/time.js';
import { isSettled, type MarketInfo } from '../positions/market-data.js';
import { valueAt } from '../positions/position-value.js';

/**
 * The held tokens' states as flat columns: per token its wallet, market, outcome index and how many
 * states it has; then every token's states one after the other, sorted by day: UTC day number, qty and
 * cost (micro-units). Flat arrays of numbers, not a tuple per state with decimal strings: a busy
 * wallet has thousands of states, and numbers are cheaper to send and parse. Numbers are exact up
 * to 2^53 micro-units (9 billion), the bound the responses already have
 * (trader-report.ts usdc); curveUnrealized refuses a state beyond it rather than round it.
 */
export type CurveStates = [
  wallets: string[],
  markets: string[],
  outcomeIndexes: number[],
  counts: number[],
  days: number[],
  qty: number[],
  cost: number[],
];

/** What curveColumns selects, as JSON returns it. */
export interface CurveArrays {
  curve_states: CurveStates;
  /** Per market: (market, YES close on each day of the curve from its first, -1 before the first close). */
  curve_closes: Array<[string, number[]]>;
  /** Per (wallet, token) with states before today: its ledger rows dated before today (position_daily.changes). */
  curve_rows_before: Array<[string, string]>;
}

/**
 * A WITH entry and the columns of a statement valuing the curve from {curveFrom:Int64} to the day before
 * {today:Int64} (ms, UTC day starts): `curve_states` and `curve_rows_before` from one read of
 * `position_daily` for the wallets in `inWallets`, and `curve_closes` from the statement's
 * `daily_closes` scalar (../positions/market-data.ts).
 */
export function curveColumns(inWallets: string): { with: string; columns: string } {
  const from = 'intDiv({curveFrom:Int64}, 86400000)';
  const today = 'intDiv({today:Int64}, 86400000)';
  const days = `toUInt32(greatest(1, ${today} - ${from}))`;
  // The states and, from the same read of position_daily (one snapshot), each token's ledger rows
  // dated before today: what a stored curve is stamped with (stored-curve.ts). Tokens never held on a
  // curve day send no states but count their rows.
  const statesAndChanges = `
    (SELECT (groupArrayIf(wallet, held), groupArrayIf(mk, held), groupArrayIf(o, held), groupArrayIf(length(ss), held),
             arrayFlatten(groupArrayIf(ss.1, held)), arrayFlatten(groupArrayIf(ss.2, held)), arrayFlatten(groupArrayIf(ss.3, held)),
             groupArray((wallet, toString(rows_before)))) FROM (
        SELECT wallet, any(m) AS mk, any(oi) AS o, sum(ch) AS rows_before,
               arraySort(groupArray((toInt64(day), st.1, st.2))) AS all_states,
               -- from the newest state on or before the first day: the earlier ones are not needed
               arraySlice(all_states, greatest(1, arrayLastIndex(x -> x.1 <= ${from}, all_states))) AS ss,
               arrayExists(x -> x.2 != 0, ss) AS held
          FROM (SELECT wallet, asset_id, day, any(market_id) AS m, any(outcome_index) AS oi, argMaxMerge(state) AS st, sum(changes) AS ch
                  FROM position_daily WHERE ${inWallets} AND toInt64(day) < ${today} GROUP BY wallet, day, asset_id)
         GROUP BY wallet, asset_id)) AS curve_all`;
  // A close holds from its day until the next close's day (or today): one row per curve day it covers.
  return {
    with: statesAndChanges,
    columns: `
    (curve_all.1, curve_all.2, curve_all.3, curve_all.4, curve_all.5, curve_all.6, curve_all.7) AS curve_states,
    curve_all.8 AS curve_rows_before,
    (SELECT groupArray((market_id, px)) FROM (
        SELECT market_id, groupArrayInsertAt(-1., ${days})(value, toUInt32(d - ${from})) AS px FROM (
          SELECT market_id, arrayJoin(arrayEnumerate(cs)) AS ci, cs[ci].2 AS value,
                 arrayJoin(range(toInt64(greatest(cs[ci].1, ${from})), toInt64(if(ci < length(cs), cs[ci + 1].1, ${today})))) AS d
            FROM (SELECT t.1 AS market_id, arraySlice(t.2, greatest(1, arrayLastIndex(x -> x.1 <= ${from}, t.2))) AS cs
                    FROM (SELECT arrayJoin(daily_closes) AS t)))
         WHERE d < ${today}
         GROUP BY market_id)) AS curve_closes`,
  };
}

/**
 * Unrealized PnL per wallet on each closed day from `fromDayMs` to the day before `todayMs` (day ms to
 * micro-USDC; days without a valued holding are absent, which the curve reads as 0).
 */
export function curveUnrealized(
  arrays: Pick<CurveArrays, 'curve_states' | 'curve_closes'>,
  markets: Map<string, MarketInfo>,
  fromDayMs: number,
  todayMs: number,
): Map<string, Map<number, bigint>> {
  const fromDay = Math.floor(fromDayMs / DAY_MS);
  const today = Math.floor(todayMs / DAY_MS);
  const closes = new Map(arrays.curve_closes);
  const result = new Map<string, Map<number, bigint>>();
  const [wallets, marketIds, outcomeIndexes, counts, days, qtys, costs] = arrays.curve_states;
  for (let i = 0; i < qtys.length; i++)
    if (!Number.isSafeInteger(qtys[i]) || !Number.isSafeInteger(costs[i]))
      throw new Error(`curve state (${qtys[i]}, ${costs[i]}) is beyond exact JSON numbers (2^53 micro-units)`);
  let end = 0;
  for (let t = 0; t < wallets.length; t++) {
    const wallet = wallets[t]!;
    const marketId = marketIds[t]!;
    const outcomeIndex = outcomeIndexes[t]!;
    // This token's states are days[start..end), sorted by day.
    const start = end;
    end += counts[t]!;
    const market = markets.get(marketId);
    const settledDay = market && isSettled(market.status) && market.closed_ms !== null ? Math.floor(market.closed_ms / DAY_MS) : null;
    const payout = market?.outcome_prices[outcomeIndex];
    const yesCloses = closes.get(marketId);
    const isYes = outcomeIndex === (market?.yes_index ?? 0);
    const byDay = result.get(wallet) ?? new Map<number, bigint>();
    result.set(wallet, byDay);
    // k: the newest state on or before `day`.
    let k = start;
    for (let day = Math.max(fromDay, days[start]!); day < today; day++) {
      while (k + 1 < end && days[k + 1]! <= day) k++;
      const qty = qtys[k]!;
      const cost = costs[k]!;
      if (qty === 0) continue;
      let price: number | undefined;
      if (settledDay !== null && day >= settledDay) price = payout;
      else {
        const yes = yesCloses?.[day - fromDay];
        if (yes !== undefined && yes >= 0) price = isYes ? yes : 1 - yes;
      }
      if (price === undefined) continue;
      const dayMs = day * DAY_MS;
      byDay.set(dayMs, (byDay.get(dayMs) ?? 0n) + valueAt(BigInt(qty), price) - BigInt(cost));
    }
  }
  return result;
}
