/** Loads what trader statistics are computed from: fills, market marks and daily closes. */
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import type { ActivityRow } from './activity-fills.js';
import type { Fill } from './position-book.js';
import type { MarketMark, OutcomeQuote } from './trader-stats.js';

export interface MarketInfo extends MarketMark {
  title: string;
  outcomes: string[];
  outcome_token_ids: string[];
  yes_index: number;
  closed_ms: number | null;
}

const FILL_COLUMNS = `market_id, asset_id, outcome, outcome_index, side, size, price, toUnixTimestamp64Milli(ts) AS ts_ms`;

export async function walletFills(store: AnalyticsStore, wallet: string): Promise<Fill[]> {
  const rows = await store.query<Fill>(`SELECT ${FILL_COLUMNS} FROM trades WHERE wallet = {wallet:String} ORDER BY ts, trade_id`, {
    wallet,
  });
  return rows.map(numericFill);
}

/** Fills of every wallet whose hash falls in `bucket` of `buckets`, grouped by wallet in time order. */
export async function bucketFills(store: AnalyticsStore, bucket: number, buckets: number): Promise<Map<string, Fill[]>> {
  const rows = await store.query<Fill & { wallet: string }>(
    `SELECT wallet, ${FILL_COLUMNS} FROM trades WHERE cityHash64(wallet) % {buckets:UInt32} = {bucket:UInt32} ORDER BY wallet, ts, trade_id`,
    { bucket, buckets },
  );
  const byWallet = new Map<string, Fill[]>();
  for (const row of rows) {
    const list = byWallet.get(row.wallet) ?? [];
    list.push(numericFill(row));
    byWallet.set(row.wallet, list);
  }
  return byWallet;
}

export async function marketInfo(store: AnalyticsStore, marketIds: string[]): Promise<Map<string, MarketInfo>> {
  if (marketIds.length === 0) return new Map();
  const rows = await store.query<MarketInfo>(
    `SELECT market_id, title, category, status, outcomes, outcome_token_ids, outcome_prices, yes_index, toUnixTimestamp64Milli(closed_at) AS closed_ms
       FROM markets FINAL WHERE market_id IN {ids:Array(String)}`,
    { ids: marketIds },
  );
  return new Map(
    rows.map((r) => [r.market_id, { ...r, yes_index: Number(r.yes_index), closed_ms: r.closed_ms === null ? null : Number(r.closed_ms) }]),
  );
}

/**
 * What marks each outcome token of these markets now (mark-price.ts): the best bid/ask of its
 * latest indexed book, and its last trade - from the market's last indexed fill in YES terms, so a
 * binary market's NO token is 1 - that (a trade on either token prices both).
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
  const lastYes = await store.query<{ market_id: string; yes_price: number }>(
    `SELECT market_id, argMax(yes_price, (ts, trade_id)) AS yes_price FROM trades WHERE market_id IN {ids:Array(String)} GROUP BY market_id`,
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
      quotes.set(assetId, { best_bid: top?.best_bid ?? null, best_ask: top?.best_ask ?? null, last_trade: lastTrade });
    });
  }
  return quotes;
}

/** Closing YES price per market and UTC day (ms), for days up to `toMs`. */
export async function dailyCloses(store: AnalyticsStore, marketIds: string[], toMs: number): Promise<Map<string, Array<[number, number]>>> {
  if (marketIds.length === 0) return new Map();
  const rows = await store.query<{ market_id: string; day_ms: number; close: number }>(
    `SELECT market_id, toUnixTimestamp(bucket) * 1000 AS day_ms, argMaxMerge(close) AS close
       FROM candles_1d WHERE market_id IN {ids:Array(String)} AND bucket <= toDateTime({to:Int64} / 1000)
      GROUP BY market_id, bucket ORDER BY market_id, bucket`,
    { ids: marketIds, to: toMs },
  );
  const closes = new Map<string, Array<[number, number]>>();
  for (const row of rows) {
    const list = closes.get(row.market_id) ?? [];
    list.push([Number(row.day_ms), row.close]);
    closes.set(row.market_id, list);
  }
  return closes;
}

function numericFill(row: Fill): Fill {
  return {
    market_id: row.market_id,
    asset_id: row.asset_id,
    outcome: row.outcome,
    outcome_index: Number(row.outcome_index),
    side: row.side,
    size: Number(row.size),
    price: Number(row.price),
    ts_ms: Number(row.ts_ms),
  };
}

const CONVERSIONS = "type IN ('SPLIT', 'MERGE', 'REDEEM')";
const ACTIVITY_COLUMNS = 'wallet, market_id, type, size, usdc_size, toUnixTimestamp64Milli(ts) AS ts_ms';

/** Splits, merges and redemptions of one wallet (tracked wallets only have any). */
export async function walletConversions(store: AnalyticsStore, wallet: string): Promise<ActivityRow[]> {
  return store.query<ActivityRow>(
    `SELECT ${ACTIVITY_COLUMNS} FROM wallet_activity FINAL WHERE wallet = {wallet:String} AND ${CONVERSIONS} ORDER BY ts`,
    { wallet },
  );
}

export async function bucketConversions(store: AnalyticsStore, bucket: number, buckets: number): Promise<Map<string, ActivityRow[]>> {
  const rows = await store.query<ActivityRow & { wallet: string }>(
    `SELECT ${ACTIVITY_COLUMNS} FROM wallet_activity FINAL WHERE ${CONVERSIONS} AND cityHash64(wallet) % {buckets:UInt32} = {bucket:UInt32} ORDER BY wallet, ts`,
    { bucket, buckets },
  );
  const byWallet = new Map<string, ActivityRow[]>();
  for (const row of rows) byWallet.set(row.wallet, [...(byWallet.get(row.wallet) ?? []), row]);
  return byWallet;
}
