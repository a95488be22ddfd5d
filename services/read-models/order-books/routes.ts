/**
 * GET /markets/:id/orderbook (live top-20 book per outcome; with `at`, every level at that instant,
 * rebuilt by book-at.ts) and /orderbook/history (best levels and depth per bucket; with
 * `format=deltas`, the stored snapshots and deltas in replay order, book-events.ts). Definitions: best bid = highest bid, best ask = lowest ask, mid = (bid + ask) / 2,
 * spread_bps = (ask - bid) / mid x 10000; mid and spread are null when a side is empty.
 */
import { queryOf } from '../../http/query.js';
import { Router } from 'express';
import { success } from '../../http/envelope.js';
import { ApiError } from '../../http/errors.js';
import { instantParam, timeParam } from '../../http/time-params.js';
import type { BookLevel, BookTop, OrderBook, OrderBookHistory } from '../../http/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { servedAmount, servedAmountOrNull } from '../../shared/decimal.js';
import { bookSummary } from './book-summary.js';
import { iso } from '../../shared/time.js';
import { type MarketRow, requireMarketWithTokens } from '../markets/queries.js';
import { booksAt } from './book-at.js';
import { bookEventsPage } from './book-events.js';

const DEPTH = 20;

/** A side's levels as served: price and size through servedAmount, empty levels dropped. */
function served(levels: Array<{ price: number; size: number }>): BookLevel[] {
  return levels.map((l) => ({ price: servedAmount(l.price), size_shares: servedAmount(l.size) })).filter((l) => l.size_shares > 0);
}

/** The live book's side: its best `DEPTH` levels, best first. */
function topLevels(prices: number[], sizes: number[], side: 'bid' | 'ask'): BookLevel[] {
  return served(prices.map((price, i) => ({ price, size: sizes[i] ?? 0 })))
    .sort((a, b) => (side === 'bid' ? b.price - a.price : a.price - b.price))
    .slice(0, DEPTH);
}

/** One outcome's head, the same for the live book and a book `at` an instant: its label, token, best levels and summary. */
function outcomeHead(market: MarketRow, index: number, bids: BookLevel[], asks: BookLevel[]) {
  const bestBid = bids[0]?.price ?? null;
  const bestAsk = asks[0]?.price ?? null;
  return {
    outcome: market.outcomes[index] ?? String(index),
    asset_id: market.outcome_token_ids[index]!,
    best_bid: bestBid,
    best_ask: bestAsk,
    ...bookSummary(bestBid, bestAsk),
    bids,
    asks,
  };
}

/** The market's YES book top (its first outcome's when no outcome is labelled YES). */
function yesTop(market: MarketRow, outcomes: BookTop[]): BookTop {
  const { best_bid, best_ask, mid, spread, spread_bps } = outcomes[market.yes_index] ?? outcomes[0]!;
  return { best_bid, best_ask, mid, spread, spread_bps };
}

interface LatestBook {
  asset_id: string;
  hash: string;
  ts_ms: number;
  bid_prices: number[];
  bid_sizes: number[];
  ask_prices: number[];
  ask_sizes: number[];
  source: string;
}

export function orderBookRoutes(store: AnalyticsStore): Router {
  const router = Router();

  router.get('/markets/:id/orderbook', async (request, response) => {
    const atMs = instantParam('at', queryOf(request, 'getOrderbook').at);
    if (atMs !== undefined && atMs > Date.now()) throw ApiError.badRequest('at: must not be in the future');
    const market = await requireMarketWithTokens(store, request);
    if (atMs !== undefined) {
      response.json(success(await orderBookAt(store, market, atMs)));
      return;
    }
    // Each token's latest snapshot, read in the table's order (asset_id, ts, ...) from the newest end:
    // a few granules, not the token's whole history (its 30 days).
    const books = (
      await Promise.all(
        market.outcome_token_ids.map((asset) =>
          store.query<LatestBook>(
            `SELECT asset_id, hash, toUnixTimestamp64Milli(ts) AS ts_ms, bid_prices, bid_sizes, ask_prices, ask_sizes, source
               FROM order_books WHERE asset_id = {asset:String}
              ORDER BY ts DESC, ingested_at DESC LIMIT 1`,
            { asset },
            // An ordered read counts every row it may touch against max_rows_to_read; LIMIT 1 bounds it.
            { limits: { maxRowsToRead: 0 } },
          ),
        ),
      )
    ).flat();
    // A known market whose book is not captured yet is empty, not missing: the 404 is for unknown markets.
    const byAsset = new Map(books.map((b) => [b.asset_id, b]));
    const outcomes = market.outcome_token_ids.map((assetId, index) => {
      const book = byAsset.get(assetId);
      return {
        ...outcomeHead(
          market,
          index,
          book ? topLevels(book.bid_prices, book.bid_sizes, 'bid') : [],
          book ? topLevels(book.ask_prices, book.ask_sizes, 'ask') : [],
        ),
        hash: book?.hash ?? null,
        timestamp: book ? iso(book.ts_ms) : null,
      };
    });
    const body: OrderBook = {
      market_id: market.market_id,
      title: market.title,
      depth: DEPTH,
      yes: yesTop(market, outcomes),
      outcomes,
      source: books[0]?.source ?? null,
    };
    response.json(success(body));
  });

  router.get('/orderbook/history', async (request, response) => {
    const market = await requireMarketWithTokens(store, request);
    const query = queryOf(request, 'getOrderbookHistory');
    const outcome = query.outcome;
    const outcomeIndex = outcome ? market.outcomes.findIndex((o) => o.toLowerCase() === outcome.toLowerCase()) : market.yes_index;
    if (outcomeIndex < 0) throw ApiError.badRequest(`outcome: not an outcome of this market (${market.outcomes.join(', ')})`);
    if (query.format === 'deltas') {
      response.json(success(await bookEventsPage(store, request, market, outcomeIndex)));
      return;
    }
    const seconds = { '1m': 60, '5m': 300, '1h': 3600 }[query.interval];
    const to = timeParam('to', query.to) ?? Date.now();
    const from = timeParam('from', query.from) ?? to - 24 * 3_600_000;
    if (from >= to) throw ApiError.badRequest('from: must be before to');
    if ((to - from) / 1000 / seconds > 2000) {
      throw ApiError.badRequest('interval: too many buckets for this range (max 2000); widen the interval or narrow from/to');
    }
    const rows = await store.query<{
      bucket_ms: number;
      best_bid: number | null;
      best_ask: number | null;
      bid_depth: number;
      ask_depth: number;
      snapshots: number;
    }>(
      `SELECT toUnixTimestamp(toStartOfInterval(ts, toIntervalSecond({seconds:UInt32}))) * 1000 AS bucket_ms,
              argMax(best_bid, ts) AS best_bid, argMax(best_ask, ts) AS best_ask,
              argMax(arraySum(arraySlice(bid_sizes, 1, 20)), ts) AS bid_depth, argMax(arraySum(arraySlice(ask_sizes, 1, 20)), ts) AS ask_depth,
              count() AS snapshots
         FROM order_books
        WHERE asset_id = {asset:String} AND ts >= fromUnixTimestamp64Milli({from:Int64}) AND ts < fromUnixTimestamp64Milli({to:Int64})
        GROUP BY bucket_ms ORDER BY bucket_ms`,
      { seconds, asset: market.outcome_token_ids[outcomeIndex], from, to },
    );
    const body: OrderBookHistory = {
      market_id: market.market_id,
      outcome: market.outcomes[outcomeIndex]!,
      asset_id: market.outcome_token_ids[outcomeIndex]!,
      interval: query.interval,
      from: iso(from),
      to: iso(to),
      points: rows.map((r) => ({
        bucket_start: iso(r.bucket_ms),
        best_bid: servedAmountOrNull(r.best_bid),
        best_ask: servedAmountOrNull(r.best_ask),
        ...bookSummary(r.best_bid, r.best_ask),
        bid_depth_shares: servedAmount(r.bid_depth),
        ask_depth_shares: servedAmount(r.ask_depth),
        snapshots: Number(r.snapshots),
      })),
    };
    response.json(success(body));
  });

  return router;
}

/** Every outcome's full book at `atMs`; a token with no book stored at or before it refuses the whole request. */
async function orderBookAt(store: AnalyticsStore, market: MarketRow, atMs: number): Promise<OrderBook> {
  const books = await booksAt(store, market.outcome_token_ids, atMs);
  const outcomes = market.outcome_token_ids.map((_, index) => {
    const book = books[index]!;
    return {
      ...outcomeHead(market, index, served(book.bids), served(book.asks)),
      hash: book.hash,
      timestamp: iso(book.asOfMs),
      as_of: iso(book.asOfMs),
      snapshot_at: iso(book.snapshotAtMs),
      next_snapshot_at: book.nextSnapshotAtMs === null ? null : iso(book.nextSnapshotAtMs),
      deltas_applied: book.deltasApplied,
      gaps: book.gaps.map((g) => ({ from: iso(g.fromMs), to: g.toMs === null ? null : iso(g.toMs) })),
    };
  });
  return {
    market_id: market.market_id,
    title: market.title,
    at: iso(atMs),
    depth: null,
    yes: yesTop(market, outcomes),
    outcomes,
    source: books[0]?.source ?? null,
  };
}
