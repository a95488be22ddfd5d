/**
 * The daily PnL curve's unrealized part on closed days, valued inside ClickHouse. Sending each token's
 * end-of-day states over and valuing them in JavaScript cost a busy wallet a few MB of JSON per request
 * (tokens x days tuples); valued here, the answer is one number per wallet and day.
 *
 * Definition (the same as today's point, trader-report.ts, and docs/POSITIONS.md): on a closed UTC day
 * d, each token the wallet held at the end of d (its newest end-of-day state on or before d) is worth
 * qty x price - its cost basis, where price is
 * - the payout (catalog outcome price) when the market is resolved or voided and d is on or after
 *   the day it closed;
 * - otherwise the market's newest daily close on or before d (YES price; the other outcome of the market
 *   is 1 - YES), chain candles where they have the day, else Data API candles;
 * - none (the token is left out that day) when there is neither.
 * Prices are micro-USDC rounded half up, values qty x price rounded half up to a micro-unit, as
 * valueAt does. Today's point is valued in JavaScript at the current marks (it equals the report's
 * unrealized PnL).
 */

/**
 * A scalar subquery naming `curve_unrealized`: per wallet in `inWallets` and closed day from
 * {curveFrom:Int64} to the day before {today:Int64} (ms, UTC day starts), (wallet, day ms, unrealized
 * micro-USDC as a string). Days without a valued holding are absent (0). It reads the market data from
 * the statement's `catalog` and `daily_closes` scalars (market-data.ts marketDataScalars over the
 * wallets' markets), which the current marks read too: each table once per statement.
 */
export function curveUnrealizedColumn(inWallets: string): string {
  // UTC day numbers: the curve's first day and today (the curve's closed days are from .. today - 1).
  const from = 'intDiv({curveFrom:Int64}, 86400000)';
  const today = 'intDiv({today:Int64}, 86400000)';
  // Rows valid from their day until the next row's day (or today), cut to the curve: one row per day
  // they cover. `list` is a column of (day number, value) arrays sorted by day.
  const coverage = (list: string) =>
    `arrayJoin(arrayEnumerate(${list})) AS ki, ${list}[ki].2 AS value,
     arrayJoin(range(toInt64(greatest(${list}[ki].1, ${from})), toInt64(if(ki < length(${list}), ${list}[ki + 1].1, ${today})))) AS d`;
  // Micro-USDC price rounded half up (Math.round of a positive number).
  const micro = (price: string) => `toInt64(floor(${price} * 1000000 + 0.5))`;
  // Lookups by array index instead of joins (on chDB the two joins cost 7 and 19 ms even with an empty
  // side; per-row lambdas measured slower still): the catalog's market ids, and per market of
  // daily_closes its close on each day of the curve (newest on or before the day; -1 before its first
  // close), a dense array built once per statement from the closes' coverage: markets x (days +
  // closes) work at 365 days, not markets x days x closes.
  const lookups = `arrayMap(t -> t.1, catalog) AS k_ids,
       (SELECT groupArray((market_id, px)) FROM (
          SELECT market_id, groupArrayInsertAt(-1., toUInt32(greatest(1, ${today} - ${from})))(value, toUInt32(d - ${from})) AS px FROM (
            SELECT market_id, ${coverage('cs')}
              FROM (SELECT t.1 AS market_id, arraySlice(t.2, greatest(1, arrayLastIndex(x -> x.1 <= ${from}, t.2))) AS cs
                      FROM (SELECT arrayJoin(daily_closes) AS t)))
           WHERE d < ${today}
           GROUP BY market_id)) AS closes_by_day,
       arrayMap(t -> t.1, closes_by_day) AS c_ids`;
  return `(WITH ${lookups}
    SELECT groupArray((wallet, d * 86400000, toString(u))) FROM (
      SELECT wallet, d, sum(intDiv(2 * toInt128(qty) * price + 1000000, 2000000) - toInt128(cost)) AS u FROM (
        SELECT wallet, d, qty, cost, indexOf(k_ids, mk) AS ki, indexOf(c_ids, mk) AS ci,
               -- catalog tuples are (market_id, title, category, status, outcomes, token ids, outcome_prices,
               -- yes_index, closed ms), market-data.ts MarketDataArrays: settled, the day it closed, payouts, YES index
               ki > 0 AND catalog[ki].4 IN ('resolved', 'voided') AND catalog[ki].9 IS NOT NULL AS settled,
               intDiv(ifNull(catalog[ki].9, 0), 86400000) AS closed_day, catalog[ki].7 AS payouts,
               if(ki > 0, catalog[ki].8, 0) AS yes_index,
               if(ci > 0, closes_by_day[ci].2[d - ${from} + 1], -1.) AS yes,
               if(settled AND d >= closed_day,
                  if(o < length(payouts), ${micro('payouts[o + 1]')}, -1),
                  if(yes >= 0, if(o = yes_index, ${micro('yes')}, ${micro('(1 - yes)')}), -1)) AS price
          FROM (
            -- each token's end-of-day state on every closed day of the curve it held shares
            SELECT wallet, mk, o, value.1 AS qty, value.2 AS cost, ${coverage('ss')}
              FROM (
                SELECT wallet, asset_id, any(m) AS mk, any(oi) AS o, arraySort(groupArray((toInt64(day), st))) AS ss
                  FROM (SELECT wallet, asset_id, day, any(market_id) AS m, any(outcome_index) AS oi, argMaxMerge(state) AS st
                          FROM position_daily WHERE ${inWallets} AND toInt64(day) < ${today} GROUP BY wallet, day, asset_id)
                 GROUP BY wallet, asset_id)
             WHERE qty > 0))
       WHERE price >= 0
       GROUP BY wallet, d)) AS curve_unrealized`;
}
