/**
 * The latest indexed book of outcome tokens, as paper trading and valuations read it: levels best
 * first (bids highest first, asks lowest first) in exact micro-units, empty levels dropped.
 */
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { microsOf } from '../../shared/decimal.js';

interface LiveLevel {
  priceMicros: bigint;
  sizeMicros: bigint;
}

export interface LiveBook {
  assetId: string;
  marketId: string;
  hash: string;
  timestampMs: number;
  bids: LiveLevel[];
  asks: LiveLevel[];
  tickSize: number | null;
  lastTradePrice: number | null;
  source: string;
}

interface Row {
  asset_id: string;
  market_id: string;
  hash: string;
  ts_ms: number | string;
  bid_prices: number[];
  bid_sizes: number[];
  ask_prices: number[];
  ask_sizes: number[];
  tick_size: number | null;
  last_trade_price: number | null;
  source: string;
}

function levels(prices: number[], sizes: number[], side: 'bid' | 'ask'): LiveLevel[] {
  return prices
    .map((price, i) => ({ priceMicros: microsOf(price), sizeMicros: microsOf(sizes[i] ?? 0) }))
    .filter((level) => level.sizeMicros > 0n)
    .sort((a, b) => (side === 'bid' ? Number(b.priceMicros - a.priceMicros) : Number(a.priceMicros - b.priceMicros)));
}

function liveBookOf(row: Row): LiveBook {
  return {
    assetId: row.asset_id,
    marketId: row.market_id,
    hash: row.hash,
    timestampMs: Number(row.ts_ms),
    bids: levels(row.bid_prices, row.bid_sizes, 'bid'),
    asks: levels(row.ask_prices, row.ask_sizes, 'ask'),
    tickSize: row.tick_size,
    lastTradePrice: row.last_trade_price,
    source: row.source,
  };
}

export async function latestBooks(store: AnalyticsStore, assetIds: readonly string[]): Promise<Map<string, LiveBook>> {
  if (assetIds.length === 0) return new Map();
  const rows = await store.query<Row>(
    `SELECT asset_id, argMax(market_id, (ts, ingested_at)) AS market_id, argMax(hash, (ts, ingested_at)) AS hash,
            toUnixTimestamp64Milli(max(ts)) AS ts_ms,
            argMax(bid_prices, (ts, ingested_at)) AS bid_prices, argMax(bid_sizes, (ts, ingested_at)) AS bid_sizes,
            argMax(ask_prices, (ts, ingested_at)) AS ask_prices, argMax(ask_sizes, (ts, ingested_at)) AS ask_sizes,
            argMax(tick_size, (ts, ingested_at)) AS tick_size, argMax(last_trade_price, (ts, ingested_at)) AS last_trade_price,
            any(source) AS source
       FROM order_books WHERE asset_id IN {assets:Array(String)} GROUP BY asset_id`,
    { assets: [...new Set(assetIds)] },
  );
  return new Map(rows.map((row) => [row.asset_id, liveBookOf(row)]));
}

/**
 * The mark of a position: the mid when both sides are quoted and the spread is at most 0.10,
 * otherwise the last trade price (as Polymarket displays prices); null when neither exists.
 */
export function markMicros(book: LiveBook | undefined): bigint | null {
  if (!book) return null;
  const bid = book.bids[0]?.priceMicros;
  const ask = book.asks[0]?.priceMicros;
  if (bid !== undefined && ask !== undefined && ask - bid <= 100_000n) return (bid + ask) / 2n;
  if (book.lastTradePrice !== null) return microsOf(book.lastTradePrice);
  if (bid !== undefined && ask !== undefined) return (bid + ask) / 2n;
  return null;
}
