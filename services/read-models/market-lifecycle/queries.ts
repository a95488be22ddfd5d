/** Reads of market_lifecycle: a market's transitions, oldest first, and its lifecycle block for the API. */
import type { MarketLifecycle } from '../../../api/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { isoOrNull } from '../../shared/time.js';

interface TransitionRow {
  revision: number;
  kind: string;
  from_state: string | null;
  to_state: string;
  authority: string;
  resolution_number: number;
  resolved_outcome: string | null;
  winning_outcome_index: number;
  payouts: number[];
  final_yes_price: number | null;
  final_no_price: number | null;
  occurred_at_ms: number | null;
  observed_at_ms: number;
}

/** A market has a handful of transitions; this bound only guards against a runaway upstream. */
const MAX_TRANSITIONS = 100;

/** The lifecycle block of a market, or null when the lifecycle processor has not seen it yet. */
export async function marketLifecycle(store: AnalyticsStore, marketId: string): Promise<MarketLifecycle | null> {
  const rows = await store.query<TransitionRow>(
    `SELECT revision, kind, from_state, to_state, authority, resolution_number, resolved_outcome, winning_outcome_index, payouts,
            final_yes_price, final_no_price, toUnixTimestamp64Milli(occurred_at) AS occurred_at_ms, toUnixTimestamp64Milli(observed_at) AS observed_at_ms
       FROM market_lifecycle FINAL WHERE market_id = {id:String} ORDER BY revision DESC LIMIT {limit:UInt32}`,
    { id: marketId, limit: MAX_TRANSITIONS },
  );
  const latest = rows[0];
  if (!latest) return null;
  const settled = latest.to_state === 'resolved' || latest.to_state === 'voided';
  return {
    state: latest.to_state as MarketLifecycle['state'],
    authority: latest.authority as MarketLifecycle['authority'],
    resolution: settled
      ? {
          outcome: latest.resolved_outcome,
          winning_outcome_index: Number(latest.winning_outcome_index),
          payouts: latest.payouts,
          final_yes_price: latest.final_yes_price,
          final_no_price: latest.final_no_price,
          resolved_at: isoOrNull(latest.occurred_at_ms === null ? latest.observed_at_ms : Number(latest.occurred_at_ms)),
          resolution_number: Number(latest.resolution_number),
        }
      : null,
    transitions: rows
      .slice()
      .reverse()
      .map((r) => ({
        revision: Number(r.revision),
        kind: r.kind as MarketLifecycle['transitions'][number]['kind'],
        from: r.from_state as MarketLifecycle['transitions'][number]['from'],
        to: r.to_state as MarketLifecycle['transitions'][number]['to'],
        authority: r.authority as MarketLifecycle['authority'],
        occurred_at: isoOrNull(r.occurred_at_ms === null ? null : Number(r.occurred_at_ms)),
        observed_at: isoOrNull(Number(r.observed_at_ms))!,
      })),
  };
}
