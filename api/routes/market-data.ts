/**
 * Market microstructure and holdings from the ingestion tables: live order book, order-book
 * history, price ticks, top holders and open interest. Computations follow the shared
 * definitions: best bid = highest bid, best ask = lowest ask, mid = (bid + ask) / 2,
 * spread_bps = (ask - bid) / mid x 10000; mid and spread are null when a side is empty.
 */
import { Router, type Request } from 'express';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import { decodeCursor, encodeCursor, queryFingerprint } from '../cursor.js';
import { page, success } from '../envelope.js';
import { ApiError } from '../errors.js';
import { timeParam } from '../time-params.js';
import { findMarket } from './markets.js';

const DEPTH = 20;
const iso = (ms: number) => new Date(Number(ms)).toISOString();
const round = (v: number, d = 6) => Math.round(v * 10 ** d) / 10 ** d;

export function bookSummary(bestBid: number | null, bestAsk: number | null) {
  if (bestBid === null || bestAsk === null) return { mid: null, spread: null, spread_bps: null };
  const mid = (bestBid + bestAsk) / 2;
  return { mid: round(mid), spread: round(bestAsk - bestBid), spread_bps: mid > 0 ? round(((bestAsk - bestBid) / mid) * 10_000, 2) : null };
}

function levels(prices: number[], sizes: number[], side: 'bid' | 'ask') {
  return prices
    .map((price, i) => ({ price, size_shares: sizes[i] ?? 0 }))
    .filter((l) => l.size_shares > 0)
    .sort((a, b) => (side === 'bid' ? b.price - a.price : a.price - b.price))
    .slice(0, DEPTH);
}

async function requireMarketWithTokens(store: AnalyticsStore, request: Request) {
  const market = await findMarket(store, String(request.params.id ?? request.query.market));
  if (!market) throw ApiError.notFound(`market not found: ${request.params.id ?? request.query.market}`);
  if (market.outcome_token_ids.length === 0)
    throw ApiError.notFound(`market ${market.market_id} has no indexed outcome token ids, so it has no order book`);
  return market;
}

export function marketDataRoutes(store: AnalyticsStore): Router {
  const router = Router();

  router.get('/markets/:id/orderbook', async (request, response) => {
    const market = await requireMarketWithTokens(store, request);
    const books = await store.query<{
      asset_id: string;
      hash: string;
      ts_ms: number;
      bid_prices: number[];
      bid_sizes: number[];
      ask_prices: number[];
      ask_sizes: number[];
      source: string;
    }>(
      `SELECT asset_id, argMax(hash, (ts, ingested_at)) AS hash, toUnixTimestamp64Milli(max(ts)) AS ts_ms,
              argMax(bid_prices, (ts, ingested_at)) AS bid_prices, argMax(bid_sizes, (ts, ingested_at)) AS bid_sizes,
              argMax(ask_prices, (ts, ingested_at)) AS ask_prices, argMax(ask_sizes, (ts, ingested_at)) AS ask_sizes,
              any(source) AS source
         FROM order_books WHERE asset_id IN {tokens:Array(String)} GROUP BY asset_id`,
      { tokens: market.outcome_token_ids },
    );
    if (books.length === 0) throw ApiError.notFound(`no order book indexed yet for market ${market.market_id}`);
    const byAsset = new Map(books.map((b) => [b.asset_id, b]));
    const outcomes = market.outcome_token_ids.map((assetId, index) => {
      const book = byAsset.get(assetId);
      const bids = book ? levels(book.bid_prices, book.bid_sizes, 'bid') : [];
      const asks = book ? levels(book.ask_prices, book.ask_sizes, 'ask') : [];
      const bestBid = bids[0]?.price ?? null;
      const bestAsk = asks[0]?.price ?? null;
      return {
        outcome: market.outcomes[index] ?? String(index),
        asset_id: assetId,
        best_bid: bestBid,
        best_ask: bestAsk,
        ...bookSummary(bestBid, bestAsk),
        bids,
        asks,
        hash: book?.hash ?? null,
        timestamp: book ? iso(book.ts_ms) : null,
      };
    });
    const yes = outcomes[market.yes_index] ?? outcomes[0]!;
    response.json(
      success({
        market_id: market.market_id,
        title: market.title,
        depth: DEPTH,
        yes: { best_bid: yes.best_bid, best_ask: yes.best_ask, mid: yes.mid, spread: yes.spread, spread_bps: yes.spread_bps },
        outcomes,
        source: books[0]!.source,
      }),
    );
  });

  router.get('/orderbook/history', async (request, response) => {
    const market = await requireMarketWithTokens(store, request);
    const outcomeIndex = request.query.outcome
      ? market.outcomes.findIndex((o) => o.toLowerCase() === String(request.query.outcome).toLowerCase())
      : market.yes_index;
    if (outcomeIndex < 0) throw ApiError.badRequest(`outcome: not an outcome of this market (${market.outcomes.join(', ')})`);
    const interval = String(request.query.interval ?? '5m') as '1m' | '5m' | '1h';
    const seconds = { '1m': 60, '5m': 300, '1h': 3600 }[interval];
    const to = timeParam('to', request.query.to) ?? Date.now();
    const from = timeParam('from', request.query.from) ?? to - 24 * 3_600_000;
    if (from >= to) throw ApiError.badRequest('from: must be before to');
    if ((to - from) / 1000 / seconds > 2000)
      throw ApiError.badRequest('interval: too many buckets for this range (max 2000); widen the interval or narrow from/to');
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
    response.json(
      success({
        market_id: market.market_id,
        outcome: market.outcomes[outcomeIndex],
        asset_id: market.outcome_token_ids[outcomeIndex],
        interval,
        from: iso(from),
        to: iso(to),
        points: rows.map((r) => ({
          bucket_start: iso(r.bucket_ms),
          best_bid: r.best_bid,
          best_ask: r.best_ask,
          ...bookSummary(r.best_bid, r.best_ask),
          bid_depth_shares: round(r.bid_depth),
          ask_depth_shares: round(r.ask_depth),
          snapshots: Number(r.snapshots),
        })),
      }),
    );
  });

  router.get('/markets/:id/price/ticks', async (request, response) => {
    const market = await requireMarketWithTokens(store, request);
    const limit = Number(request.query.limit ?? 100);
    const kind = request.query.kind ? String(request.query.kind) : undefined;
    const fingerprint = queryFingerprint({ market: market.market_id, kind });
    const after = request.query.cursor ? decodeCursor(String(request.query.cursor), fingerprint, ['number', 'string']) : null;
    const rows = await store.query<{
      tick_id: string;
      asset_id: string;
      kind: string;
      price: number;
      best_bid: number | null;
      best_ask: number | null;
      side: string | null;
      size: number | null;
      ts_ms: number;
      source: string;
    }>(
      `SELECT tick_id, asset_id, kind, price, best_bid, best_ask, side, size, toUnixTimestamp64Milli(ts) AS ts_ms, source
         FROM price_ticks FINAL
        WHERE asset_id IN {tokens:Array(String)}
          ${kind ? 'AND kind = {kind:String}' : ''}
          ${after ? 'AND (ts, tick_id) < (fromUnixTimestamp64Milli({after_ms:Int64}), {after_id:String})' : ''}
        ORDER BY ts DESC, tick_id DESC LIMIT {take:UInt32}`,
      { tokens: market.outcome_token_ids, kind, take: limit + 1, after_ms: after?.[0], after_id: after?.[1] },
    );
    const hasMore = rows.length > limit;
    const pageRows = rows.slice(0, limit);
    const last = pageRows[pageRows.length - 1];
    const outcomeOf = (assetId: string) => market.outcomes[market.outcome_token_ids.indexOf(assetId)] ?? '';
    response.json(
      page(
        pageRows.map((t) => ({
          tick_id: t.tick_id,
          asset_id: t.asset_id,
          outcome: outcomeOf(t.asset_id),
          kind: t.kind,
          price: t.price,
          best_bid: t.best_bid,
          best_ask: t.best_ask,
          side: t.side,
          size_shares: t.size,
          timestamp: iso(t.ts_ms),
          source: t.source,
        })),
        { limit, has_more: hasMore, next_cursor: hasMore && last ? encodeCursor([Number(last.ts_ms), last.tick_id], fingerprint) : null },
      ),
    );
  });

  router.get('/markets/:id/holders', async (request, response) => {
    const market = await findMarket(store, String(request.params.id));
    if (!market) throw ApiError.notFound(`market not found: ${request.params.id}`);
    const rows = await store.query<{ asset_id: string; wallet: string; amount: number; rank: number; snapshot_ms: number; source: string }>(
      `SELECT asset_id, wallet, amount, rank, toUnixTimestamp64Milli(snapshot_at) AS snapshot_ms, source
         FROM market_holders FINAL
        WHERE market_id = {id:String}
          AND snapshot_at = (SELECT max(snapshot_at) FROM market_holders WHERE market_id = {id:String})
        ORDER BY asset_id, amount DESC`,
      { id: market.market_id },
    );
    if (rows.length === 0) throw ApiError.notFound(`no holder snapshot indexed yet for market ${market.market_id}`);
    response.json(
      success({
        market_id: market.market_id,
        as_of: iso(rows[0]!.snapshot_ms),
        source: rows[0]!.source,
        outcomes: market.outcome_token_ids.map((assetId, index) => ({
          outcome: market.outcomes[index] ?? String(index),
          asset_id: assetId,
          holders: rows
            .filter((r) => r.asset_id === assetId)
            .map((r, i) => ({ rank: i + 1, wallet: r.wallet, amount_shares: round(r.amount) })),
        })),
      }),
    );
  });

  router.get('/markets/:id/oi', async (request, response) => {
    const market = await findMarket(store, String(request.params.id));
    if (!market) throw ApiError.notFound(`market not found: ${request.params.id}`);
    const rows = await store.query<{ value_usdc: number; snapshot_ms: number; source: string }>(
      `SELECT value_usdc, toUnixTimestamp64Milli(snapshot_at) AS snapshot_ms, source FROM open_interest FINAL
        WHERE market_id = {id:String} ORDER BY snapshot_at DESC LIMIT 200`,
      { id: market.market_id },
    );
    if (rows.length === 0) throw ApiError.notFound(`no open interest indexed yet for market ${market.market_id}`);
    response.json(
      success({
        market_id: market.market_id,
        open_interest_usdc: round(rows[0]!.value_usdc),
        as_of: iso(rows[0]!.snapshot_ms),
        method: 'upstream Data API /oi: collateral locked in the market (complete sets outstanding, USDC)',
        source: rows[0]!.source,
        history: rows.reverse().map((r) => ({ timestamp: iso(r.snapshot_ms), open_interest_usdc: round(r.value_usdc) })),
      }),
    );
  });

  return router;
}
