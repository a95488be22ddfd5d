/** The market page's live book: snapshots replace, changes set or remove one level, the view is the served one. */
import { applyBookMessage, bookView, type LiveBook } from './live-book.js';

const book = (asset_id: string, bids: Array<[number, number]>, asks: Array<[number, number]>, timestamp = '2026-12-01T00:00:00.000Z') => ({
  type: 'book_snapshot' as const,
  data: {
    id: `${asset_id}-book`,
    market_id: '0xabc',
    asset_id,
    hash: 'h1',
    timestamp,
    origin: 'clob-ws' as const,
    bids: bids.map(([price, size_shares]) => ({ price, size_shares })),
    asks: asks.map(([price, size_shares]) => ({ price, size_shares })),
  },
});
const change = (asset_id: string, side: 'bid' | 'ask', price: number, size_shares: number, timestamp = '2026-12-01T00:00:01.000Z') => ({
  type: 'book_delta' as const,
  data: {
    id: `${asset_id}-${price}`,
    market_id: '0xabc',
    asset_id,
    hash: null,
    timestamp,
    side,
    price,
    size_shares,
    best_bid: null,
    best_ask: null,
  },
});

test('a snapshot replaces the book; changes set and remove levels; other tokens are untouched', () => {
  let books: Map<string, LiveBook> = new Map();
  books = applyBookMessage(
    books,
    book(
      'yes',
      [
        [0.48, 100],
        [0.47, 50],
      ],
      [[0.52, 80]],
    ),
  );
  books = applyBookMessage(books, book('no', [[0.5, 1]], []));
  const before = books;
  books = applyBookMessage(books, change('yes', 'bid', 0.49, 10));
  books = applyBookMessage(books, change('yes', 'bid', 0.48, 0));
  books = applyBookMessage(books, change('yes', 'ask', 0.52, 30));
  // A new map each time (so the page re-renders); the old one is not changed.
  expect(bookView(before.get('yes')!).bids).toEqual([
    { price: 0.48, size_shares: 100 },
    { price: 0.47, size_shares: 50 },
  ]);
  const yes = bookView(books.get('yes')!);
  expect(yes.bids).toEqual([
    { price: 0.49, size_shares: 10 },
    { price: 0.47, size_shares: 50 },
  ]);
  expect(yes.asks).toEqual([{ price: 0.52, size_shares: 30 }]);
  // As GET /orderbook defines them: mid 0.505, spread 0.03, 0.03 / 0.505 x 10000 = 594.06 bps.
  expect(yes).toMatchObject({ best_bid: 0.49, best_ask: 0.52, mid: 0.505, spread: 0.03, spread_bps: 594.06 });
  expect(books.get('yes')!.timestamp).toBe('2026-12-01T00:00:01.000Z');
  expect(bookView(books.get('no')!)).toMatchObject({ best_bid: 0.5, best_ask: null, spread_bps: null });
  // A later snapshot is the whole book again.
  books = applyBookMessage(books, book('yes', [[0.4, 5]], [[0.6, 5]], '2026-12-01T00:00:02.000Z'));
  expect(bookView(books.get('yes')!)).toMatchObject({ bids: [{ price: 0.4, size_shares: 5 }], spread_bps: 4000 });
});

test('a change of a token with no book yet is dropped; the view keeps the best 20 levels a side', () => {
  expect(applyBookMessage(new Map(), change('yes', 'bid', 0.4, 1)).size).toBe(0);
  const deep = applyBookMessage(
    new Map(),
    book(
      'yes',
      Array.from({ length: 30 }, (_, i) => [0.01 * (i + 1), 1] as [number, number]),
      Array.from({ length: 30 }, (_, i) => [0.5 + 0.01 * i, 1] as [number, number]),
    ),
  );
  const view = bookView(deep.get('yes')!);
  expect(view.bids).toHaveLength(20);
  expect(view.bids[0]!.price).toBe(0.3);
  expect(view.asks).toHaveLength(20);
  expect(view.asks[0]!.price).toBe(0.5);
  expect(view.asks.at(-1)!.price).toBeCloseTo(0.69, 10);
});
