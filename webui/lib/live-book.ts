/**
 * The market page's order books, rebuilt from the `book` stream channel: a `book_snapshot` replaces a
 * token's book, a `book_delta` sets one level's resting size (0 removes it). What the page shows of
 * a book is what GET /markets/{id}/orderbook serves of it: the best 20 levels a side, and best bid,
 * best ask and spread through the same definition (book-summary.ts).
 */
import type { BookLevel, BookTop, StreamBookDelta, StreamBook } from '../../services/http/types.generated.js';
import { bookSummary } from '../../services/read-models/order-books/book-summary.js';

const DEPTH = 20;

export interface LiveBook {
  /** Price -> resting size in shares. */
  bids: Map<number, number>;
  asks: Map<number, number>;
  /** Upstream's time of the last book or change applied. */
  timestamp: string;
}

/** Applies one message to the books (keyed by token), returning a new map so a component re-renders. */
export function applyBookMessage(
  books: ReadonlyMap<string, LiveBook>,
  message: { type: 'book_snapshot'; data: StreamBook } | { type: 'book_delta'; data: StreamBookDelta },
): Map<string, LiveBook> {
  const next = new Map(books);
  if (message.type === 'book_snapshot') {
    const { data } = message;
    next.set(data.asset_id, {
      bids: new Map(data.bids.map((level) => [level.price, level.size_shares])),
      asks: new Map(data.asks.map((level) => [level.price, level.size_shares])),
      timestamp: data.timestamp,
    });
    return next;
  }
  const { data } = message;
  const book = next.get(data.asset_id);
  // A change before any book of its token cannot be placed: the next snapshot brings the whole book.
  if (!book) return next;
  const side = new Map(data.side === 'bid' ? book.bids : book.asks);
  if (data.size_shares > 0) side.set(data.price, data.size_shares);
  else side.delete(data.price);
  next.set(data.asset_id, { ...book, ...(data.side === 'bid' ? { bids: side } : { asks: side }), timestamp: data.timestamp });
  return next;
}

/** The best DEPTH levels a side (bids highest first, asks lowest first) and the top of the book. */
export function bookView(book: LiveBook): { bids: BookLevel[]; asks: BookLevel[] } & BookTop {
  const levels = (side: Map<number, number>, order: 1 | -1) =>
    [...side]
      .sort(([a], [b]) => (a - b) * order)
      .slice(0, DEPTH)
      .map(([price, size_shares]) => ({ price, size_shares }));
  const bids = levels(book.bids, -1);
  const asks = levels(book.asks, 1);
  const best_bid = bids[0]?.price ?? null;
  const best_ask = asks[0]?.price ?? null;
  return { bids, asks, best_bid, best_ask, ...bookSummary(best_bid, best_ask) };
}
