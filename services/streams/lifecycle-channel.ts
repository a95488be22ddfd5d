/**
 * `lifecycle`: every transition of the markets' lifecycle (the market-lifecycle stream the lifecycle
 * processor decides: closes, reopenings, resolutions, voids, confirmations, corrections, and the
 * first state seen), keyed by market, so a market's transitions come in revision order. The
 * transition and the settlement it leaves are presented as the market detail's `lifecycle` block
 * serves them (services/read-models/market-lifecycle/queries.ts). Filters market and event (the
 * transition kinds). Tier 1, as the market detail.
 */
import type { StreamLifecycleEvent } from '../http/types.generated.js';
import type { MarketLifecycleTransition } from '../events/types.generated.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { presentResolution, presentTransition, transitionRowOfEvent } from '../read-models/market-lifecycle/queries.js';
import { marketLifecycle } from '../read-models/market-lifecycle/index.js';
import type { Channel } from './channel.js';
import { marketOf, onlyFilters, someOf } from './filters.js';

type Kind = MarketLifecycleTransition['kind'];

export interface LifecycleFilters {
  market?: string;
  /** The transition kinds wanted; undefined: all. */
  events?: ReadonlySet<Kind>;
}

const FILTERS = ['market', 'event'] as const;
const LIFECYCLE_EVENTS: readonly Kind[] = ['listed', 'closed', 'reopened', 'resolved', 'voided', 'confirmed', 'corrected'];

async function parseFilters(input: Record<string, unknown>, prefix: string, store: AnalyticsStore): Promise<LifecycleFilters> {
  onlyFilters(input, prefix, 'lifecycle', FILTERS);
  return { market: await marketOf(input.market, prefix, store), events: someOf(input.event, prefix, 'event', LIFECYCLE_EVENTS) };
}

function presentLifecycleEvent(e: MarketLifecycleTransition): StreamLifecycleEvent {
  const row = transitionRowOfEvent(e);
  return {
    market_id: e.market_id,
    slug: e.slug,
    market_title: e.title,
    transition: presentTransition(row),
    resolution: presentResolution(row),
    notify: e.notify,
    source: e.source,
  };
}

export const lifecycleChannel: Channel<LifecycleFilters> = {
  filters: FILTERS,
  name: 'lifecycle',
  access: 'tier1',
  resyncFrom: '/v1/markets/{id} (its lifecycle block)',
  streams: [marketLifecycle],
  parseFilters,
  partitionKey: (filters) => filters.market,
  select(_stream, event, filters) {
    const transition = event as MarketLifecycleTransition;
    if (filters.market !== undefined && transition.market_id !== filters.market) return null;
    if (filters.events !== undefined && !filters.events.has(transition.kind)) return null;
    return { type: 'lifecycle', data: presentLifecycleEvent(transition) };
  },
};
