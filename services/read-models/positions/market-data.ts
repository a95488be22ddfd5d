/** What positions are valued with: each market's catalog record, its tokens' quotes, and daily closes. */
import type { AnalyticsStore } from '../../ports/analytics-store.js';

export interface MarketInfo {
  market_id: string;
  title: string;
  category: string;
  status: 'active' | 'closed' | 'resolved' | 'voided';
  outcomes: string[];
  outcome_token_ids: string[];
  /** The catalog's price per outcome (the payout once settled). */
  outcome_prices: number[];
  yes_index: number;
  closed_ms: number | null;
}

/** The book's best bid/ask of an outcome token and its last trade. */
export interface OutcomeQuote {
  best_bid: number | null;
  best_ask: number | null;
  last_trade: number | null;
}

export const isSettled = (status: MarketInfo['status'] | undefined) => status === 'resolved' || status === 'voided';

export async function marketInfo(store: AnalyticsStore, marketIds: string[]): Promise<Map<string, MarketInfo>> {
  if (marketIds.length === 0) return new Map();
  const rows = await store.query<MarketInfo>(
    `SELECT market_id, title, category, status, outcomes, outcome_token_ids, outcome_prices, yes_index, toUnixTimestamp64Milli(closed_at) AS closed_ms
       FROM markets FINAL WHERE market_id IN {ids:Array(String)}`,
    { ids: marketIds },
  );
  return new Map(
    rows.map((r) => [
      r.market_id,
      {
        ...r,
        outcome_prices: r.outcome_prices.map(Number),
        yes_index: Number(r.yes_index),
        closed_ms: r.closed_ms === null ? null : Number(r.closed_ms),
      },
    ]),
  );
}

/**
 * Quotes of every outcome token of these markets: the best bid/ask of its latest indexed book, and
 * its last trade - the close of the market's newest daily candle, chain candles first where both
 * exist - in YES terms (a binary market's other token is 1 - that).
 */
export async function outcomeQuotes(store: AnalyticsStore, markets: Map<string, MarketInfo>): Promise<Map<string, OutcomeQuote>> {
  const ids = [...markets.keys()];
  const quotes = new Map<string, OutcomeQuote>();
  if (ids.length === 0) return quotes;
  const books = await store.query<{ asset_id: string; best_bid: number | null; best_ask: number | null }>(
    `SELECT asset_id, argMax(best_bid, (ts, ingested_at)) AS best_bid, argMax(best_ask, (ts, ingested_at)) AS best_ask
       FROM order_books WHERE market_id IN {ids:Array(String)} GROUP BY asset_id`,
    { ids },
  );
  // The last trade is the close of the market's newest daily candle (chain candles order it by block and
  // log index, the Data API's by time): one row per market and day, never a scan of the market's fills.
  const lastYes = await store.query<{ market_id: string; yes_price: number }>(
    `SELECT market_id, argMax(c, (bucket, preference)) AS yes_price FROM (
        SELECT market_id, bucket, argMaxMerge(close) AS c, 1 AS preference FROM chain_candles_1d WHERE market_id IN {ids:Array(String)} GROUP BY market_id, bucket
        UNION ALL
        SELECT market_id, bucket, argMaxMerge(close) AS c, 0 AS preference FROM candles_1d WHERE market_id IN {ids:Array(String)} GROUP BY market_id, bucket)
      GROUP BY market_id`,
    { ids },
  );
  const book = new Map(books.map((b) => [b.asset_id, b]));
  const last = new Map(lastYes.map((r) => [r.market_id, Number(r.yes_price)]));
  for (const market of markets.values()) {
    const yes = last.get(market.market_id);
    const binary = market.outcome_token_ids.length === 2;
    market.outcome_token_ids.forEach((assetId, index) => {
      const top = book.get(assetId);
      const lastTrade = yes === undefined ? null : index === market.yes_index ? yes : binary ? Math.round((1 - yes) * 1e6) / 1e6 : null;
      quotes.set(assetId, {
        best_bid: top?.best_bid === null || top?.best_bid === undefined ? null : Number(top.best_bid),
        best_ask: top?.best_ask === null || top?.best_ask === undefined ? null : Number(top.best_ask),
        last_trade: lastTrade,
      });
    });
  }
  return quotes;
}

/** Closing YES price per market and UTC day (ms), from..to: chain candles where they exist, else Data API candles. */
export async function dailyCloses(
  store: AnalyticsStore,
  marketIds: string[],
  fromMs: number,
  toMs: number,
): Promise<Map<string, Array<[number, number]>>> {
  if (marketIds.length === 0) return new Map();
  const rows = await store.query<{ market_id: string; day_ms: number; close: number }>(
    `SELECT market_id, day_ms, argMax(close, preference) AS close FROM (
        SELECT market_id, toUnixTimestamp(bucket) * 1000 AS day_ms, argMaxMerge(close) AS close, 1 AS preference
          FROM chain_candles_1d WHERE market_id IN {ids:Array(String)} AND bucket BETWEEN toDateTime({from:Int64} / 1000) AND toDateTime({to:Int64} / 1000)
         GROUP BY market_id, bucket
        UNION ALL
        SELECT market_id, toUnixTimestamp(bucket) * 1000 AS day_ms, argMaxMerge(close) AS close, 0 AS preference
          FROM candles_1d WHERE market_id IN {ids:Array(String)} AND bucket BETWEEN toDateTime({from:Int64} / 1000) AND toDateTime({to:Int64} / 1000)
         GROUP BY market_id, bucket)
      GROUP BY market_id, day_ms ORDER BY market_id, day_ms`,
    { ids: marketIds, from: fromMs, to: toMs },
  );
  const closes = new Map<string, Array<[number, number]>>();
  for (const row of rows) {
    const list = closes.get(row.market_id) ?? [];
    list.push([Number(row.day_ms), Number(row.close)]);
    closes.set(row.market_id, list);
  }
  return closes;
}
