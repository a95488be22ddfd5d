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
 *   is 1 - YES), chain candles where they have the day, else Data API candles, from 30 days before
 *   the curve;
 * - none (the token is left out that day) when there is neither.
 * Prices are micro-USDC rounded half up, values qty x price rounded half up to a micro-unit, as
 * valueAt does. Today's point is valued in JavaScript at the current marks (it equals the report's
 * unrealized PnL).
 */

/**
 * A scalar subquery naming `curve_unrealized`: per wallet in `inWallets` and closed day from
 * {curveFrom:Int64} to the day before {today:Int64} (ms, UTC day starts), (wallet, day ms, unrealized
 * micro-USDC as a string). Days without a valued holding are absent (0). `ids` is a subquery returning
 * the wallets' market ids.
 */
export function curveUnrealizedColumn(inWallets: string, ids: string): string {
  // UTC day numbers: the curve's first day and today (the curve's closed days are from .. today - 1).
  const from = 'intDiv({curveFrom:Int64}, 86400000)';
  const today = 'intDiv({today:Int64}, 86400000)';
  // Rows valid from their day until the next row's day (or today), cut to the curve: one row per day
  // they cover. `list` is a column of (day number, value) arrays sorted by day.
  const coverage = (list: string) =>
    `arrayJoin(arrayEnumerate(${list})) AS ki, ${list}[ki].2 AS value,
     arrayJoin(range(toInt64(greatest(${list}[ki].1, ${from})), toInt64(if(ki < length(${list}), ${list}[ki + 1].1, ${today})))) AS d`;
  // Daily closes in YES terms per (market, day); on a day both have, the chain's candle wins.
  const closes = (table: string, priority: number) =>
    `SELECT market_id, toInt64(toDate(bucket, 'UTC')) AS cd, argMaxMerge(close) AS c, ${priority} AS pr FROM ${table}
      WHERE market_id IN (${ids}) AND bucket BETWEEN toDateTime(intDiv({closesFrom:Int64}, 1000)) AND toDateTime(intDiv({today:Int64}, 1000))
      GROUP BY market_id, bucket`;
  // Micro-USDC price rounded half up (Math.round of a positive number).
  const micro = (price: string) => `toInt64(floor(${price} * 1000000 + 0.5))`;
  return `(SELECT groupArray((wallet, d * 86400000, toString(u))) FROM (
      SELECT wallet, d, sum(intDiv(2 * toInt128(qty) * price + 1000000, 2000000) - toInt128(cost)) AS u FROM (
        SELECT h.wallet AS wallet, h.d AS d, h.qty AS qty, h.cost AS cost,
               if(k.settled AND h.d >= k.closed_day,
                  if(h.o < length(k.payouts), ${micro('k.payouts[h.o + 1]')}, -1),
                  if(y.d = h.d, if(h.o = k.yes_index, ${micro('y.yes')}, ${micro('(1 - y.yes)')}), -1)) AS price
          FROM (
            -- each token's end-of-day state on every closed day of the curve it held shares
            SELECT wallet, mk, o, value.1 AS qty, value.2 AS cost, ${coverage('ss')}
              FROM (
                SELECT wallet, asset_id, any(m) AS mk, any(oi) AS o, arraySort(groupArray((toInt64(day), st))) AS ss
                  FROM (SELECT wallet, asset_id, day, any(market_id) AS m, any(outcome_index) AS oi, argMaxMerge(state) AS st
                          FROM position_daily WHERE ${inWallets} AND toInt64(day) < ${today} GROUP BY wallet, day, asset_id)
                 GROUP BY wallet, asset_id)
             WHERE qty > 0) AS h
          LEFT JOIN (
            SELECT market_id, status IN ('resolved', 'voided') AND closed_at IS NOT NULL AS settled,
                   toInt64(toDate(ifNull(closed_at, toDateTime64(0, 3, 'UTC')), 'UTC')) AS closed_day, outcome_prices AS payouts, yes_index
              FROM markets FINAL WHERE market_id IN (${ids})) AS k ON k.market_id = h.mk
          LEFT JOIN (
            -- each market's newest close on or before every closed day of the curve
            SELECT market_id, value AS yes, ${coverage('cs')}
              FROM (SELECT market_id, arraySort(groupArray((cd, c))) AS cs FROM (
                      SELECT market_id, cd, argMax(c, pr) AS c FROM (${closes('chain_candles_1d', 1)} UNION ALL ${closes('candles_1d', 0)})
                       GROUP BY market_id, cd)
                     GROUP BY market_id)) AS y ON y.market_id = h.mk AND y.d = h.d)
       WHERE price >= 0
       GROUP BY wallet, d)) AS curve_unrealized`;
}
