/**
 * Reads of market_lifecycle: a market's transitions, oldest first, and its lifecycle block for the API;
 * the presenters also serve the live `lifecycle` stream (services/streams/lifecycle-channel.ts).
 */
import type { MarketLifecycle } from '../../http/types.generated.js';
import type { MarketLifecycleTransition } from '../../events/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { isoOrNull } from '../../shared/time.js';

export interface TransitionRow {
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
  return {
    state: latest.to_state as MarketLifecycle['state'],
    authority: latest.authority as MarketLifecycle['authority'],
    resolution: presentResolution(latest),
    transitions: rows.slice().reverse().map(presentTransition),
  };
}

type Transition = MarketLifecycle['transitions'][number];

/** One transition as the lifecycle block lists it. */
export function presentTransition(r: TransitionRow): Transition {
  return {
    revision: Number(r.revision),
    kind: r.kind as Transition['kind'],
    from: r.from_state as Transition['from'],
    to: r.to_state as Transition['to'],
    authority: r.authority as MarketLifecycle['authority'],
    occurred_at: isoOrNull(r.occurred_at_ms === null ? null : Number(r.occurred_at_ms)),
    observed_at: isoOrNull(Number(r.observed_at_ms))!,
  };
}

/** The settlement a transition leaves the market in (the block's `resolution` when it is the latest), or null. */
export function presentResolution(r: TransitionRow): MarketLifecycle['resolution'] {
  if (r.to_state !== 'resolved' && r.to_state !== 'voided') return null;
  return {
    outcome: r.resolved_outcome,
    winning_outcome_index: Number(r.winning_outcome_index),
    payouts: r.payouts,
    final_yes_price: r.final_yes_price,
    final_no_price: r.final_no_price,
    resolved_at: isoOrNull(r.occurred_at_ms === null ? r.observed_at_ms : Number(r.occurred_at_ms)),
    resolution_number: Number(r.resolution_number),
  };
}

/** A transition event read from the log (the live stream) as the row the block is presented from. */
export function transitionRowOfEvent(e: MarketLifecycleTransition): TransitionRow {
  return {
    revision: e.revision,
    kind: e.kind,
    from_state: e.from_state,
    to_state: e.to_state,
    authority: e.authority,
    resolution_number: e.resolution_number,
    resolved_outcome: e.resolved_outcome,
    winning_outcome_index: e.winning_outcome_index,
    payouts: e.payouts,
    final_yes_price: e.final_yes_price,
    final_no_price: e.final_no_price,
    occurred_at_ms: e.occurred_at_ms,
    observed_at_ms: e.observed_at_ms,
  };
}
