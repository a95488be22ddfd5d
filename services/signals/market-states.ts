/**
 * The market state table (signal_market_states): the lifecycle status the signals processor last
 * saw per market. A market seen active (or closed, awaiting resolution) and then resolved is the
 * active -> resolved transition (docs/WEBHOOKS.md); a market first seen already resolved emits nothing (the
 * transition happened before we were watching).
 */
import type { SqlExecutor } from '../ports/control-store.js';
import type { MarketUpserted } from '../events/types.js';

interface StateRow {
  market_id: string;
  status: string;
}

/** Applies a batch of market events in log order; returns the events that resolved a market. */
export async function applyMarketEvents(db: SqlExecutor, markets: MarketUpserted[], nowMs: number): Promise<MarketUpserted[]> {
  if (markets.length === 0) return [];
  const ids = [...new Set(markets.map((m) => m.market_id))];
  const rows = await db.query<StateRow>('SELECT market_id, status FROM signal_market_states WHERE market_id = ANY($1::text[])', [ids]);
  const statusById = new Map(rows.map((r) => [r.market_id, r.status]));
  const latest = new Map<string, MarketUpserted>();
  const resolved: MarketUpserted[] = [];
  for (const market of markets) {
    const previous = statusById.get(market.market_id);
    if (previous !== undefined && previous !== 'resolved' && market.status === 'resolved') resolved.push(market);
    statusById.set(market.market_id, market.status);
    latest.set(market.market_id, market);
  }
  const finals = [...latest.values()];
  await db.query(
    `INSERT INTO signal_market_states (market_id, status, resolved_outcome, updated_at_ms, resolved_seen_at)
     SELECT market_id, status, resolved_outcome, updated_at_ms, CASE WHEN status = 'resolved' THEN $5::timestamptz END
       FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS t(market_id, status, resolved_outcome, updated_at_ms)
     ON CONFLICT (market_id) DO UPDATE SET
       status = EXCLUDED.status, resolved_outcome = EXCLUDED.resolved_outcome, updated_at_ms = EXCLUDED.updated_at_ms,
       resolved_seen_at = CASE WHEN signal_market_states.status <> 'resolved' AND EXCLUDED.status = 'resolved'
                               THEN EXCLUDED.resolved_seen_at ELSE signal_market_states.resolved_seen_at END`,
    [
      finals.map((m) => m.market_id),
      finals.map((m) => m.status),
      finals.map((m) => m.resolved_outcome),
      finals.map((m) => m.updated_at_ms),
      new Date(nowMs),
    ],
  );
  return resolved;
}
