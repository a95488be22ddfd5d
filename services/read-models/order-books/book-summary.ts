/**
 * The definitions of a book's mid, spread and spread in basis points, in one place for every reader
 * of a book: the REST routes (routes.ts) and the web UI's live book (webui/lib/live-book.ts), which
 * rebuilds books from the stream. Pure (no I/O), so the browser bundle takes it as is.
 * mid = (bid + ask) / 2, spread = ask - bid, spread_bps = spread / mid x 10000; all null when a side is empty.
 */
import type { BookTop } from '../../http/types.generated.js';
import { divide, microsOf, servedAmount } from '../../shared/decimal.js';

/**
 * Mid, spread and spread in basis points of a best bid and ask, computed in micro-units and served
 * through the Conventions' one rule (servedAmount); spread_bps is a ratio, kept to 2 decimals.
 */
export function bookSummary(bestBid: number | null, bestAsk: number | null): Pick<BookTop, 'mid' | 'spread' | 'spread_bps'> {
  if (bestBid === null || bestAsk === null) return { mid: null, spread: null, spread_bps: null };
  const bid = microsOf(bestBid);
  const ask = microsOf(bestAsk);
  const mid = divide(bid + ask, 2n);
  const spread = ask - bid;
  return {
    mid: servedAmount(mid),
    spread: servedAmount(spread),
    spread_bps: mid > 0n ? Math.round((Number(spread) * 1_000_000) / Number(mid)) / 100 : null,
  };
}
