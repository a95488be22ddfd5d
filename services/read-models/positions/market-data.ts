/**
 * What positions are valued with at the current marks: each market's catalog record and its tokens'
 * quotes (the curve's closed days are valued with the daily closes: ../trader-stats/pnl-curve.ts).
 * Closes come from market_closes (migration 0055), one table fed by the chain's taker fills and the
 * Data API's trades; books from book_tops (0058), each token's newest book top.
 * The wallet reads fetch them, by key from market_marks (marks/market-marks.ts keeps it), in the same
 * statement as the wallet's own rows (queries.ts): the SQL here is one part
 * (services/analytics/read-parts.ts) over the markets a subquery names, and the functions below turn
 * its rows into maps.
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
   * before the read's day (the closes' key for stored curves, ../trader-stats/stored-curve.ts).
   */
  closes_now: Array<[string, number, string]>;
}

/**
 * A market's value in market_marks (migration 0065, marks/market-marks.ts): its catalog record as JSON text
 * (null: not in the catalog), newest close (null: none), all inputs, the inputs of each day (UTC day
 * number) from the day before its refresh on, and per token its newest best bid and ask with the
 * newest snapshot's time (ms).
 */
type MarksTuple = [
  market_id: string,
  catalog: string | null,
  close: number | null,
  inputs_total: number,
  inputs_days: Array<[day: number, inputs: number]>,
  books: Array<[asset_id: string, bid: number | null, ask: number | null, last_ms: number]>,
];

/** The part marketDataPart reads: one tuple per market. */
export interface MarketDataArrays {
  market_data: MarksTuple[];
}

/** Days a book top is kept (book_tops' TTL, migration 0058). */
const BOOK_DAYS = 30;

/**
 * The part of a wallet statement (read-parts.ts) over the markets `ids` (a subquery returning
 * market_id, or an array parameter) that reads what they are valued with, by key from market_marks
 * (migration 0065), one value per market that the marks refresher rebuilds from three tables after
 * each write to them (marks/market-marks.ts). Reading those tables here instead (markets FINAL,
 * market_closes and book_tops) would add three tables to plan and open to every wallet statement
 * (docs/POSITIONS.md "Marks by key"). The values travel as they are stored: building the rows in the
 * statement (lambdas over the arrays, JSON per row) costs more than doing it in marketDataRows.
 */
export function marketDataPart(ids: string): Record<keyof MarketDataArrays, string> {
  return {
    market_data: `SELECT groupArray((market_id, catalog, close, inputs_total, inputs_days, books)) AS value FROM market_marks WHERE market_id IN (${ids})`,
  };
}

/**
 * The part's rows by kind, as of the UTC day starting at `todayMs`:
 * - `catalog`: the catalog records;
 * - `closes_now`: per market with any close its newest close in YES terms (the last trade) and the
 *   count of its inputs dated before that day: all inputs less those of the day and later;
 * - `books`: the newest book top (best bid/ask) of each token of the markets whose newest snapshot is
 *   at most 30 days before that day (book_tops keeps 30 days: its TTL). The markets' other tokens
 *   come along; no position is marked with them (marks/mark-price.ts).
 */
export function marketDataRows(row: MarketDataArrays, todayMs: number): MarketDataRows {
  const rows: MarketDataRows = { catalog: [], books: [], closes_now: [] };
  const today = Math.floor(todayMs / 86_400_000);
  const booksFrom = todayMs - BOOK_DAYS * 86_400_000;
  for (const [marketId, catalog, close, total, days, books] of row.market_data) {
    if (catalog !== null) rows.catalog.push(JSON.parse(catalog));
    if (close !== null) {
      let before = Number(total);
      for (const [day, inputs] of days) if (Number(day) >= today) before -= Number(inputs);
      rows.closes_now.push([marketId, Number(close), String(before)]);
    }
    for (const [assetId, bid, ask, lastMs] of books) if (Number(lastMs) >= booksFrom) rows.books.push([assetId, bid, ask]);
  }
  return rows;
}

/**
 * The `daily_closes` WITH entry over the markets `ids`, for a statement that values the curve
 * (../trader-stats/pnl-curve.ts): per market its daily closes in YES terms sorted by UTC day number (market_closes'
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
