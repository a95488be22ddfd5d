/**
 * Local order books kept from websocket `book` snapshots and `price_change` deltas.
 *
 * Gap detection: every current-form price change carries the token's best bid/ask and book hash
 * AFTER the change. If, after applying a delta, our best bid/ask differ from upstream's, a message
 * was lost (or arrived for a token we have no snapshot of): the book is marked stale and the caller
 * resyncs it from REST `/book`, whose hash becomes the snapshot id. Upstream's hash cannot be
 * recomputed locally (it covers fields we never see), so it identifies versions; it does not verify.
 */
import type { BookDelta, BookLevel, BookSnapshot, Source } from '../events/types.js';

export type DeltaOutcome = 'applied' | 'no-snapshot' | 'gap';

interface TokenBook {
  marketId: string;
  source: Source;
  bids: Map<number, number>;
  asks: Map<number, number>;
  hash: string;
  timestampMs: number;
  tickSize: number | null;
  minOrderSize: number | null;
  lastTradePrice: number | null;
  stale: boolean;
}

const bestFirst = (levels: Map<number, number>, side: 'bid' | 'ask'): BookLevel[] =>
  [...levels.entries()]
    .map(([price, size]) => ({ price, size }))
    .sort(side === 'bid' ? (a, b) => b.price - a.price : (a, b) => a.price - b.price);

function best(levels: Map<number, number>, side: 'bid' | 'ask'): number | null {
  let value: number | null = null;
  for (const price of levels.keys()) if (value === null || (side === 'bid' ? price > value : price < value)) value = price;
  return value;
}

// Prices are parsed from short decimal strings; compare at a precision far finer than any tick.
const samePrice = (a: number | null, b: number | null) => (a === null || b === null ? a === b : Math.abs(a - b) < 1e-9);

export class LocalBooks {
  private readonly books = new Map<string, TokenBook>();

  applySnapshot(snapshot: BookSnapshot): void {
    this.books.set(snapshot.asset_id, {
      marketId: snapshot.market_id,
      source: snapshot.source,
      bids: new Map(snapshot.bids.map((l) => [l.price, l.size])),
      asks: new Map(snapshot.asks.map((l) => [l.price, l.size])),
      hash: snapshot.hash,
      timestampMs: snapshot.timestamp_ms,
      tickSize: snapshot.tick_size,
      minOrderSize: snapshot.min_order_size,
      lastTradePrice: snapshot.last_trade_price,
      stale: false,
    });
  }

  /**
   * Applies one price_change frame's deltas, then checks each token against the state upstream
   * printed with its LAST change in the frame (earlier changes carry intermediate states).
   */
  applyFrame(deltas: BookDelta[]): Map<string, DeltaOutcome> {
    const outcomes = new Map<string, DeltaOutcome>();
    const lastOf = new Map<string, BookDelta>();
    for (const delta of deltas) {
      const book = this.books.get(delta.asset_id);
      if (!book || book.stale) {
        outcomes.set(delta.asset_id, 'no-snapshot');
        continue;
      }
      const levels = delta.side === 'bid' ? book.bids : book.asks;
      if (delta.size === 0) levels.delete(delta.price);
      else levels.set(delta.price, delta.size);
      if (delta.hash) book.hash = delta.hash;
      book.timestampMs = Math.max(book.timestampMs, delta.timestamp_ms);
      lastOf.set(delta.asset_id, delta);
    }
    for (const [assetId, last] of lastOf) {
      const book = this.books.get(assetId)!;
      if (last.best_bid === null && last.best_ask === null) {
        outcomes.set(assetId, 'applied'); // 2024 flat form: nothing to check against
        continue;
      }
      // Upstream prints best_bid "0" / best_ask "1" for an empty side.
      const ourBid = best(book.bids, 'bid') ?? (last.best_bid === 0 ? 0 : null);
      const ourAsk = best(book.asks, 'ask') ?? (last.best_ask === 1 ? 1 : null);
      const consistent = samePrice(ourBid, last.best_bid) && samePrice(ourAsk, last.best_ask);
      if (!consistent) book.stale = true;
      outcomes.set(assetId, consistent ? 'applied' : 'gap');
    }
    return outcomes;
  }

  setTickSize(assetId: string, tickSize: number): void {
    const book = this.books.get(assetId);
    if (book) book.tickSize = tickSize;
  }

  setLastTradePrice(assetId: string, price: number): void {
    const book = this.books.get(assetId);
    if (book) book.lastTradePrice = price;
  }

  markStale(assetId: string): void {
    const book = this.books.get(assetId);
    if (book) book.stale = true;
  }

  isFresh(assetId: string): boolean {
    const book = this.books.get(assetId);
    return !!book && !book.stale;
  }

  hashOf(assetId: string): string | null {
    return this.books.get(assetId)?.hash ?? null;
  }

  forget(assetId: string): void {
    this.books.delete(assetId);
  }

  /** The current book as a snapshot event (rebuilt from deltas), or null when unknown or stale. */
  snapshot(assetId: string, nowMs: number): BookSnapshot | null {
    const book = this.books.get(assetId);
    if (!book || book.stale) return null;
    const bids = bestFirst(book.bids, 'bid');
    const asks = bestFirst(book.asks, 'ask');
    return {
      event_id: `${assetId}:${book.hash}`,
      source: book.source,
      market_id: book.marketId,
      asset_id: assetId,
      hash: book.hash,
      timestamp_ms: book.timestampMs,
      bids,
      asks,
      best_bid: bids[0]?.price ?? null,
      best_ask: asks[0]?.price ?? null,
      tick_size: book.tickSize,
      min_order_size: book.minOrderSize,
      last_trade_price: book.lastTradePrice,
      origin: 'clob-ws-replay',
      ingested_at_ms: nowMs,
    };
  }
}
