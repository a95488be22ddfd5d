/**
 * Market lifecycle: the transitions of every market's state machine (active -> closed -> resolved |
 * voided), as decided by the lifecycle processor (services/lifecycle/). One row per transition; the
 * market detail reads a market's rows for its `lifecycle` block.
 */
import { defineStream } from '../../events/stream.js';
import type { MarketLifecycleTransition } from '../../events/types.generated.js';
import { iso, isoOrNull } from '../../shared/time.js';
import { defineReadModel, migrationsBeside, project } from '../read-model.js';

export const marketLifecycle = defineStream({
  name: 'marketLifecycle',
  topic: 'tapeline.market-lifecycle.v1',
  partitions: 4,
  schema: 'market.lifecycle.v1',
  key: (transition) => transition.market_id,
  time: (transition) => transition.observed_at_ms,
});

function transitionRow(e: MarketLifecycleTransition) {
  return {
    market_id: e.market_id,
    revision: e.revision,
    kind: e.kind,
    from_state: e.from_state,
    to_state: e.to_state,
    authority: e.authority,
    slug: e.slug,
    title: e.title,
    outcomes: e.outcomes,
    yes_index: e.yes_index,
    resolution_number: e.resolution_number,
    resolved_outcome: e.resolved_outcome,
    winning_outcome_index: e.winning_outcome_index,
    payouts: e.payouts,
    final_yes_price: e.final_yes_price,
    final_no_price: e.final_no_price,
    occurred_at: isoOrNull(e.occurred_at_ms),
    observed_at: iso(e.observed_at_ms),
    notify: e.notify,
    source: e.source,
  };
}

export const marketLifecycleReadModel = defineReadModel({
  name: 'market-lifecycle',
  streams: { marketLifecycle },
  projections: [project(marketLifecycle, { table: 'market_lifecycle', row: transitionRow })],
  migrations: migrationsBeside(import.meta.url),
});
