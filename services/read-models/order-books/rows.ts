/** Book events -> rows of order_books and order_book_deltas (migrations/0016). */
import type { BookDelta, BookSnapshot } from '../../events/types.generated.js';
import { iso } from '../../shared/time.js';

export function bookSnapshotRow(e: BookSnapshot) {
  return {
    book_id: e.event_id,
    market_id: e.market_id,
    asset_id: e.asset_id,
    hash: e.hash,
    ts: iso(e.timestamp_ms),
    bid_prices: e.bids.map((l) => l.price),
    bid_sizes: e.bids.map((l) => l.size),
    ask_prices: e.asks.map((l) => l.price),
    ask_sizes: e.asks.map((l) => l.size),
    best_bid: e.best_bid,
    best_ask: e.best_ask,
    tick_size: e.tick_size,
    min_order_size: e.min_order_size,
    last_trade_price: e.last_trade_price,
    origin: e.origin,
    source: e.source,
    ingested_at: iso(e.ingested_at_ms),
  };
}

export function bookDeltaRow(e: BookDelta) {
  return {
    delta_id: e.event_id,
    market_id: e.market_id,
    asset_id: e.asset_id,
    side: e.side,
    price: e.price,
    size: e.size,
    hash: e.hash,
    best_bid: e.best_bid,
    best_ask: e.best_ask,
    ts: iso(e.timestamp_ms),
    source: e.source,
    ingested_at: iso(e.ingested_at_ms),
  };
}
