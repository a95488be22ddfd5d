/**
 * What a backtest reads from ClickHouse, each in one bounded query: a wallet's fills or markets'
 * taker trades over the range (chain fills inside the chain's coverage, Data API trades outside it,
 * as the trades feed serves them), the markets' terms (outcomes, tokens, fee schedule, resolution),
 * daily YES closes, and the book of each trigger's token at the trigger's time (ASOF over the
 * order-book history). Rows come back in chain order (time, block, log index, id): deterministic.
 */
import { ApiError } from '../../http/errors.js';
import { feeScheduleOf } from '../../fees/taker-fee.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { chainCoverage, ONE_PER_TRADE } from '../../read-models/chain-ledger/queries.js';
import { MICRO, microsOf, parseScaled } from '../../shared/decimal.js';
import { fillKey, type LeaderFill } from '../leader-fill.js';
import { BOOK_MAX_AGE_MS, type BookAt } from './execution.js';
import type { MarketTrade } from './plan.js';
import type { MarketTerms, Trigger } from './simulate.js';

/** More rows than this in one backtest is a 400 asking for a narrower range. */
const MAX_ROWS = 250_000;

interface FillRow {
  trade_id: string;
  wallet: string;
  market_id: string;
  market_title: string;
  asset_id: string;
  outcome: string;
  outcome_index: number;
  side: 'buy' | 'sell';
  price: number;
  shares_text: string;
  usdc_text: string;
  ts_ms: string;
  tx_hash: string;
  origin: 'chain' | 'data_api';
  source: 'polymarket' | 'simulator';
  block_number: string;
  log_index: number;
}

function tooMany(what: string): never {
  throw ApiError.badRequest(`from: more than ${MAX_ROWS} ${what} in the range; narrow it (from, to)`);
}

/** Coverage bounds as a filter on Data API rows: only where the chain has not published. */
async function outsideCoverage(store: AnalyticsStore): Promise<{ sql: string; params: Record<string, number> }> {
  const coverage = await chainCoverage(store);
  if (!coverage) return { sql: '1', params: {} };
  return {
    sql: '(ts < fromUnixTimestamp64Milli({covered_from:Int64}) OR ts > fromUnixTimestamp64Milli({covered_to:Int64}))',
    params: { covered_from: coverage.firstMs, covered_to: coverage.lastMs },
  };
}

/** Every fill of `wallet` in [from, to): both roles on chain, taker fills from the Data API outside the chain's coverage. */
export async function walletFills(store: AnalyticsStore, wallet: string, fromMs: number, toMs: number): Promise<LeaderFill[]> {
  const outside = await outsideCoverage(store);
  const rows = await store.query<FillRow>(
    `SELECT * FROM (
       SELECT event_id AS trade_id, wallet, market_id, market_title, asset_id, outcome, outcome_index, side, price,
              toString(shares_micro) AS shares_text, toString(usdc_micro) AS usdc_text, toUnixTimestamp64Milli(block_time) AS ts_ms,
              tx_hash, 'chain' AS origin, toString(source) AS source, toString(block_number) AS block_number, log_index
         FROM chain_ledger
        WHERE kind = 'fill' AND wallet = {wallet:String}
          AND block_time >= fromUnixTimestamp64Milli({from:Int64}) AND block_time < fromUnixTimestamp64Milli({to:Int64})
       UNION ALL
       SELECT trade_id, wallet, market_id, market_title, asset_id, outcome, outcome_index, toString(side) AS side, price,
              toString(toUInt64(round(size * 1000000))) AS shares_text, toString(toUInt64(round(size_usdc * 1000000))) AS usdc_text,
              toUnixTimestamp64Milli(ts) AS ts_ms, tx_hash, 'data_api' AS origin, toString(source) AS source, '0' AS block_number, 0 AS log_index
         FROM trades FINAL
        WHERE wallet = {wallet:String} AND ts >= fromUnixTimestamp64Milli({from:Int64}) AND ts < fromUnixTimestamp64Milli({to:Int64})
          AND ${outside.sql})
     ORDER BY ts_ms, toUInt64(block_number), log_index, trade_id
     LIMIT {cap:UInt32}`,
    { wallet: wallet.toLowerCase(), from: fromMs, to: toMs, cap: MAX_ROWS + 1, ...outside.params },
  );
  if (rows.length > MAX_ROWS) tooMany('fills of this wallet');
  const seen = new Set<string>();
  const fills: LeaderFill[] = [];
  for (const row of rows) {
    const sharesMicros = BigInt(row.shares_text);
    const key = fillKey(row.tx_hash, row.wallet, row.asset_id, row.side, sharesMicros);
    // The same match from both sources (at the coverage's edges): counted once.
    if (sharesMicros <= 0n || seen.has(key)) continue;
    seen.add(key);
    fills.push({
      key,
      tradeId: row.trade_id,
      wallet: row.wallet,
      marketId: row.market_id,
      marketTitle: row.market_title,
      assetId: row.asset_id,
      outcome: row.outcome,
      outcomeIndex: Number(row.outcome_index),
      side: row.side,
      priceMicros: microsOf(row.price),
      sharesMicros,
      usdcMicros: BigInt(row.usdc_text),
      timestampMs: Number(row.ts_ms),
      origin: row.origin,
      source: row.source,
    });
  }
  return fills;
}

/**
 * Taker trades (one per match) of the markets in [from - lookbackMs, to), plus each market's last
 * trade before that (the price a position entered at `from` is referenced to).
 */
export async function marketTrades(
  store: AnalyticsStore,
  marketIds: string[],
  fromMs: number,
  toMs: number,
  lookbackMs: number,
): Promise<MarketTrade[]> {
  if (marketIds.length === 0) return [];
  const outside = await outsideCoverage(store);
  const params = { ids: marketIds, from: fromMs - lookbackMs, to: toMs, cap: MAX_ROWS + 1, ...outside.params };
  const branches = (range: (column: string) => string) => `
       SELECT event_id AS id, market_id, toUnixTimestamp64Milli(block_time) AS ts_ms, yes_price, block_number, log_index
         FROM chain_ledger WHERE ${ONE_PER_TRADE} AND market_id IN {ids:Array(String)} AND ${range('block_time')}
       UNION ALL
       SELECT trade_id AS id, market_id, toUnixTimestamp64Milli(ts) AS ts_ms, yes_price, toUInt64(0) AS block_number, toInt32(0) AS log_index
         FROM trades FINAL WHERE market_id IN {ids:Array(String)} AND ${range('ts')} AND ${outside.sql}`;
  const inRange = (c: string) => `${c} >= fromUnixTimestamp64Milli({from:Int64}) AND ${c} < fromUnixTimestamp64Milli({to:Int64})`;
  const before = (c: string) => `${c} < fromUnixTimestamp64Milli({from:Int64})`;
  const rows = await store.query<{ id: string; market_id: string; ts_ms: string; yes_price: number }>(
    `SELECT * FROM (
       SELECT id, market_id, ts_ms, yes_price, block_number, log_index FROM (${branches(inRange)})
       UNION ALL
       SELECT argMax(id, (ts_ms, block_number, log_index, id)), market_id, max(ts_ms), argMax(yes_price, (ts_ms, block_number, log_index, id)),
              toUInt64(0), toInt32(0)
         FROM (${branches(before)}) GROUP BY market_id)
     ORDER BY ts_ms, block_number, log_index, id LIMIT {cap:UInt32}`,
    params,
  );
  if (rows.length > MAX_ROWS) tooMany('trades in these markets');
  return rows.map((r) => ({ id: r.id, marketId: r.market_id, atMs: Number(r.ts_ms), yesPriceMicros: microsOf(r.yes_price) }));
}

interface MarketRow {
  market_id: string;
  title: string;
  category: string;
  status: string;
  outcomes: string[];
  outcome_token_ids: string[];
  outcome_prices: number[];
  yes_index: number;
  resolved_ms: string | null;
  closed_ms: string | null;
  fees_enabled: boolean;
  fee_rate: number | null;
  fee_exponent: number | null;
  fee_taker_only: boolean | null;
}

/** Markets with the fallback fee schedule of paper trading for fee-enabled markets without one. */
export async function marketTerms(
  store: AnalyticsStore,
  marketIds: string[],
  feeFallback: { rate: string; exponent: number },
): Promise<Map<string, MarketTerms>> {
  if (marketIds.length === 0) return new Map();
  const rows = await store.query<MarketRow>(
    `SELECT market_id, title, category, status, outcomes, outcome_token_ids, outcome_prices, yes_index,
            toUnixTimestamp64Milli(resolved_at) AS resolved_ms, toUnixTimestamp64Milli(closed_at) AS closed_ms,
            fees_enabled, fee_rate, fee_exponent, fee_taker_only
       FROM markets FINAL WHERE market_id IN {ids:Array(String)}`,
    { ids: [...new Set(marketIds)] },
  );
  const fallback = { rate: Number(feeFallback.rate), exponent: feeFallback.exponent };
  return new Map(
    rows.map((r) => {
      const resolvedAt = r.resolved_ms ?? r.closed_ms;
      const resolution =
        r.status === 'resolved' && resolvedAt !== null
          ? { atMs: Number(resolvedAt), payoutsMicros: r.outcome_prices.map((p) => microsOf(p)) }
          : null;
      return [
        r.market_id,
        {
          marketId: r.market_id,
          title: r.title,
          category: r.category,
          outcomes: r.outcomes,
          tokenIds: r.outcome_token_ids,
          yesIndex: Number(r.yes_index),
          fee: feeScheduleOf(
            { fees_enabled: Boolean(r.fees_enabled), fee_rate: r.fee_rate, fee_exponent: r.fee_exponent, fee_taker_only: r.fee_taker_only },
            fallback,
          ),
          resolution,
        },
      ];
    }),
  );
}

/** Closing YES price per market and UTC day: the chain's candle where it has one, else the Data API's. */
export async function dailyCloses(
  store: AnalyticsStore,
  marketIds: string[],
  fromMs: number,
  toMs: number,
): Promise<Map<string, Map<number, bigint>>> {
  const closes = new Map<string, Map<number, bigint>>();
  if (marketIds.length === 0) return closes;
  const rows = await store.query<{ market_id: string; day_ms: string; close: number }>(
    `SELECT market_id, day_ms, argMax(close, preference) AS close FROM (
       SELECT market_id, toUnixTimestamp(bucket) * 1000 AS day_ms, argMaxMerge(close) AS close, 2 AS preference
         FROM chain_candles_1d WHERE market_id IN {ids:Array(String)} AND bucket >= toDateTime({from:Int64} / 1000) - 86400 AND bucket < toDateTime({to:Int64} / 1000)
        GROUP BY market_id, bucket
       UNION ALL
       SELECT market_id, toUnixTimestamp(bucket) * 1000 AS day_ms, argMaxMerge(close) AS close, 1 AS preference
         FROM candles_1d WHERE market_id IN {ids:Array(String)} AND bucket >= toDateTime({from:Int64} / 1000) - 86400 AND bucket < toDateTime({to:Int64} / 1000)
        GROUP BY market_id, bucket)
     GROUP BY market_id, day_ms ORDER BY market_id, day_ms`,
    { ids: [...new Set(marketIds)], from: fromMs, to: toMs },
  );
  for (const row of rows) {
    const byDay = closes.get(row.market_id) ?? new Map<number, bigint>();
    byDay.set(Number(row.day_ms), microsOf(row.close));
    closes.set(row.market_id, byDay);
  }
  return closes;
}

/** The book of each trigger's token at its time: the latest snapshot at or before it, at most BOOK_MAX_AGE_MS old. */
export async function booksAt(store: AnalyticsStore, triggers: Trigger[], markets: Map<string, MarketTerms>): Promise<Map<number, BookAt>> {
  const wanted = triggers
    .map((t) => ({ seq: t.seq, asset: markets.get(t.marketId)?.tokenIds[t.outcomeIndex], at: t.atMs }))
    .filter((w): w is { seq: number; asset: string; at: number } => w.asset !== undefined);
  const books = new Map<number, BookAt>();
  if (wanted.length === 0) return books;
  const rows = await store.query<{
    seq: number;
    ts_ms: string;
    bid_prices: number[];
    bid_sizes: number[];
    ask_prices: number[];
    ask_sizes: number[];
  }>(
    `SELECT w.seq AS seq, toUnixTimestamp64Milli(b.ts) AS ts_ms, b.bid_prices, b.bid_sizes, b.ask_prices, b.ask_sizes
       FROM (SELECT tupleElement(x, 1) AS seq, tupleElement(x, 2) AS asset_id, fromUnixTimestamp64Milli(tupleElement(x, 3)) AS at
               FROM (SELECT arrayJoin(arrayZip({seqs:Array(UInt32)}, {assets:Array(String)}, {ats:Array(Int64)})) AS x)) AS w
       ASOF JOIN (SELECT asset_id, ts, argMax(bid_prices, ingested_at) AS bid_prices, argMax(bid_sizes, ingested_at) AS bid_sizes,
                         argMax(ask_prices, ingested_at) AS ask_prices, argMax(ask_sizes, ingested_at) AS ask_sizes
                    FROM order_books WHERE asset_id IN {distinct:Array(String)} AND ts <= fromUnixTimestamp64Milli({max_at:Int64})
                      AND ts >= fromUnixTimestamp64Milli({min_at:Int64}) - toIntervalMillisecond({max_age:Int64})
                   GROUP BY asset_id, ts) AS b
         ON w.asset_id = b.asset_id AND w.at >= b.ts
      ORDER BY seq`,
    {
      seqs: wanted.map((w) => w.seq),
      assets: wanted.map((w) => w.asset),
      ats: wanted.map((w) => w.at),
      distinct: [...new Set(wanted.map((w) => w.asset))],
      min_at: Math.min(...wanted.map((w) => w.at)),
      max_at: Math.max(...wanted.map((w) => w.at)),
      max_age: BOOK_MAX_AGE_MS,
    },
  );
  const atOf = new Map(wanted.map((w) => [w.seq, w.at]));
  for (const row of rows) {
    const at = Number(row.ts_ms);
    if (atOf.get(Number(row.seq))! - at > BOOK_MAX_AGE_MS) continue;
    const levels = (prices: number[], sizes: number[], bids: boolean) =>
      prices
        .map((p, i) => ({ priceMicros: microsOf(p), sizeMicros: microsOf(sizes[i] ?? 0) }))
        .filter((l) => l.sizeMicros > 0n && l.priceMicros > 0n && l.priceMicros < MICRO)
        .sort((a, b) => (bids ? Number(b.priceMicros - a.priceMicros) : Number(a.priceMicros - b.priceMicros)));
    books.set(Number(row.seq), {
      atMs: at,
      bids: levels(row.bid_prices, row.bid_sizes, true),
      asks: levels(row.ask_prices, row.ask_sizes, false),
    });
  }
  return books;
}

export const parseUsdc = (value: string | number, name: string): bigint => {
  const parsed = parseScaled(value);
  if (parsed === null || parsed <= 0n) throw ApiError.badRequest(`${name}: a positive USDC amount with at most 6 decimals`);
  return parsed;
};
