import type { TradeExecuted } from '../events/types.generated.js';

/**
 * How late a trade may be ingested and still decide signals. A backfill or history fill loads trades
 * days old; telling a subscriber now that they "executed", were "large" or moved the price is news of
 * the past, and a fresh start would flood every subscriber and stream client with it. An hour still
 * covers a catch-up after a restart or a lagging chain source. The trade's own two times decide, not
 * the clock, so a redelivered batch and a resumed stream decide exactly as the first pass did.
 */
const LIVE_TRADE_MAX_AGE_MS = 3_600_000;

/** Whether `trade` was ingested within LIVE_TRADE_MAX_AGE_MS of when it happened (a trade ahead of the ingest clock is live). */
export function isLiveTrade(trade: Pick<TradeExecuted, 'timestamp_ms' | 'ingested_at_ms'>): boolean {
  return trade.ingested_at_ms - trade.timestamp_ms <= LIVE_TRADE_MAX_AGE_MS;
}
