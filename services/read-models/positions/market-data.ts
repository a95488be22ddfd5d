/**
 * What positions are valued with at the current marks: each market's catalog record and its tokens'
 * quotes (the curve's closed days are valued with the daily closes: pnl-curve.ts). Closes come from
 * market_closes (migration 0055), one table fed by the chain's taker fills and the Data API's trades;
 * books from book_tops (0058), each token's newest book top.
 * The wallet reads fetch them in the same statement as the wallet's own rows (queries.ts): the SQL
 * here is one part (services/analytics/read-parts.ts) over the markets a subquery names, and the
 * functions below turn its rows into maps.
 */

import type { MarketRow } from '../markets/queries.js';

/** A market's catalog record as far as valuation needs it; outcome_prices are the payout once settled. */
export type MarketInfo = Pick<
  MarketRow,
  'market_id' | 'title' | 'category' | 'status' | 'outcomes' | 'outcome_token_ids' | 'outcome_prices' | 'yes_index'
> & { closed_ms: number | null };

/** The book's best bid/ask of an outcome token and its last trade. */
export interface OutcomeQuote {
  best_bid: number | null;
  best_ask: number | null;
  last_trade: number | null;
}

export const isSettled = (status: MarketInfo['status'] | undefined) => status === 'resolved' || status === 'voided';

/** A market's rows, as marketDataRows returns them (JSON arrays). */
export interface MarketDataRows {
  catalog: Array<[string, string, string, MarketInfo['status'], string[], string[], Array<string | number>, number, number | null]>;
  books: Array<[string, number | null, number | null]>;
  /**
   * Per market with any close: its newest close in YES terms and the count of its close inputs dated
   * before {today:Int64} (the closes' key for stored curves, stored-curve.ts).
   */
  closes_now: Array<[string, number, string]>;
}

/** The part marketDataPart reads: per row its kind and the row itself as JSON text. */
export interface MarketDataArrays {
  market_data: Array<[keyof MarketDataRows, string]>;
}

/**
 * The part of a wallet statement (read-parts.ts) over the markets `ids` (a subquery returning
 * market_id) that reads what they are valued with now, each table by its primary key, never a scan of
 * fills or book snapshots:
 * - `catalog`: the catalog records;
 * - `closes_now`: per market with any close (market_closes, migration 0055) its newest close in YES
 *   terms (the last trade) and the count of inputs dated before {today:Int64}: the market's total row
 *   less the rows of today and later, both in one reading of the table. Reading one table instead of
 *   grouping the two candle tables' daily closes took the busiest profiling wallet's report from 34 to
 *   27.5 ms (docs/POSITIONS.md);
 * - `books`: the newest book top (best bid/ask) of each token of the markets (book_tops, migration
 *   0058), one row per token however many snapshots order_books holds of it. Grouping the held
 *   tokens' snapshots in order_books instead read all 30 days of them: 100 ms against 5 for a
 *   profiling wallet's 95 tokens at 5,000 snapshots each. The markets' other tokens come along; no
 *   position is marked with them (mark-price.ts).
 * The three are the branches of one UNION ALL under one `market_id IN (ids)`, which the engine pushes
 * into each branch (below FINAL and GROUP BY, so each table is still read by key) with one set for all
 * three. Three parts, each with its own IN subquery, planned three sets: 2.3-3 ms more per statement on
 * chDB (docs/POSITIONS.md). A UNION ALL's branches need one row type, so each row travels as JSON text.
 */
export function marketDataPart(ids: string): Record<keyof MarketDataArrays, string> {
  return {
    market_data: `
      SELECT groupArray((kind, row)) AS value FROM (
        SELECT market_id, 'catalog' AS kind,
               toJSONString((market_id, title, category, status, outcomes, outcome_token_ids, outcome_prices, yes_index, toUnixTimestamp64Milli(closed_at))) AS row
          FROM markets FINAL
        UNION ALL
        SELECT market_id, 'closes_now' AS kind, toJSONString((market_id, c, toString(n))) AS row FROM (
          SELECT market_id, argMaxMerge(close) AS c, sumIf(inputs, day = toDate(0)) - sumIf(inputs, day != toDate(0)) AS n
            FROM market_closes
           WHERE day = toDate(0) OR toInt64(day) >= intDiv({today:Int64}, 86400000)
           GROUP BY market_id)
        UNION ALL
        SELECT market_id, 'books' AS kind, toJSONString((asset_id, t.1, t.2)) AS row FROM (
          SELECT market_id, asset_id, argMaxMerge(top) AS t FROM book_tops GROUP BY market_id, asset_id))
       WHERE market_id IN (${ids})`,
  };
}

/** The part's rows by kind. */
export function marketDataRows(row: MarketDataArrays): MarketDataRows {
  const rows: MarketDataRows = { catalog: [], books: [], closes_now: [] };
  for (const [kind, text] of row.market_data) (rows[kind] as unknown[]).push(JSON.parse(text));
  return rows;
}

/**
 * The `daily_closes` WITH entry over the markets `ids`, for a statement that values the curve
 * (pnl-curve.ts): per market its daily closes in YES terms sorted by UTC day number (market_closes'
 * day rows; on a day with chain fills, the chain's close).
 */
export function dailyClosesScalar(ids: string): string {
  return `
    (SELECT groupArray((market_id, cs)) FROM (
        SELECT market_id, arraySort(groupArray((toInt64(day), finalizeAggregation(close)))) AS cs
          FROM market_closes FINAL WHERE market_id IN (${ids}) AND day != toDate(0)
         GROUP BY market_id)) AS daily_closes`;
}

export interface MarketData {
  markets: Map<string, MarketInfo>;
  quotes: Map<string, OutcomeQuote>;
}

export function marketDataFrom(row: MarketDataRows): MarketData {
  const markets = new Map<string, MarketInfo>();
  for (const [market_id, title, category, status, outcomes, outcome_token_ids, prices, yesIndex, closedMs] of row.catalog) {
    markets.set(market_id, {
      market_id,
      title,
      category,
      status,
      outcomes,
      outcome_token_ids,
      outcome_prices: prices.map(Number),
      yes_index: Number(yesIndex),
      closed_ms: closedMs === null ? null : Number(closedMs),
    });
  }
  // The last trade is the market's newest close (the chain's on a day both have one).
  const last = new Map(row.closes_now.map(([marketId, close]) => [marketId, { close: Number(close) }]));
  const book = new Map(row.books.map(([assetId, bid, ask]) => [assetId, { bid, ask }]));
  const quotes = new Map<string, OutcomeQuote>();
  for (const market of markets.values()) {
    const yes = last.get(market.market_id)?.close;
    const binary = market.outcome_token_ids.length === 2;
    market.outcome_token_ids.forEach((assetId, index) => {
      const top = book.get(assetId);
      const lastTrade = yes === undefined ? null : index === market.yes_index ? yes : binary ? Math.round((1 - yes) * 1e6) / 1e6 : null;
      quotes.set(assetId, {
        best_bid: top?.bid === null || top?.bid === undefined ? null : Number(top.bid),
        best_ask: top?.ask === null || top?.ask === undefined ? null : Number(top.ask),
        last_trade: lastTrade,
      });
    });
  }
  return { markets, quotes };
}
