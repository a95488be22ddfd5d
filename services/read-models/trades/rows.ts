/** TradeExecuted -> a `trades` row (columns in migrations/0002), and the filter that keeps each trade to one row. */
import type { TradeExecuted } from '../../events/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { iso } from '../../shared/time.js';

export function tradeRow(t: TradeExecuted) {
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
  };
}

/**
 * The candle views count every row they are handed, so a trade must reach the raw table once.
 * Redelivered batches and overlapping polls both carry trades already stored: drop them by id
 * (the time bounds let ClickHouse prune to the parts that can hold them).
 */
export async function unseenTrades(store: AnalyticsStore, events: TradeExecuted[]): Promise<TradeExecuted[]> {
  const unique = [...new Map(events.map((e) => [e.event_id, e])).values()];
  if (unique.length === 0) return unique;
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const e of unique) {
    from = Math.min(from, e.timestamp_ms);
    to = Math.max(to, e.timestamp_ms);
  }
  const known = await store.query<{ trade_id: string }>(
    `SELECT trade_id FROM trades
      WHERE ts BETWEEN fromUnixTimestamp64Milli({from:Int64}) AND fromUnixTimestamp64Milli({to:Int64})
        AND trade_id IN {ids:Array(String)}`,
    { from, to, ids: unique.map((e) => e.event_id) },
  );
  const knownIds = new Set(known.map((row) => row.trade_id));
  return unique.filter((e) => !knownIds.has(e.event_id));
}
