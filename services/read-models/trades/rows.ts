/** TradeExecuted -> a `trades` row (columns in migrations/0002), and the filter that keeps each trade to one row. */
import type { TradeExecuted } from '../../events/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { iso } from '../../shared/time.js';
import type { LogPosition, Positioned } from '../read-model.js';
import { splitStored } from '../stored-events.js';

/** A trade's row; `at` (where it sits in the trades topic) is kept for `unseen`, absent where no log is read. */
export function tradeRow(t: TradeExecuted, at?: LogPosition) {
  return {
    trade_id: t.event_id,
    market_id: t.market_id,
    market_title: t.market_title,
    asset_id: t.asset_id,
    wallet: t.wallet,
    side: t.side,
    outcome: t.outcome,
    outcome_index: t.outcome_index,
    price: t.price,
    yes_price: t.yes_price,
    size: t.size,
    size_usdc: t.size_usdc,
    ts: iso(t.timestamp_ms),
    tx_hash: t.tx_hash,
    source: t.source,
    ingested_at: iso(t.ingested_at_ms),
    log_partition: at?.partition ?? -1,
    log_offset: at?.offset ?? -1,
  };
}

/**
 * The candle views count every row they are handed, so a trade must reach the raw table once.
 * Redelivered batches and overlapping polls both carry trades already stored: dropped by id, and
 * those stored from the same log position are replayed (read-model.ts `unseen`).
 */
export function unseenTrades(
  store: AnalyticsStore,
  events: ReadonlyArray<Positioned<TradeExecuted>>,
): Promise<{ fresh: TradeExecuted[]; replayed: TradeExecuted[] }> {
  return splitStored(store, events, {
    table: 'trades',
    idColumn: 'trade_id',
    id: (t) => t.event_id,
    keyExpression: 'trade_id',
    key: (t) => t.event_id,
    timeColumn: 'ts',
    timeMs: (t) => t.timestamp_ms,
  });
}
