/**
 * `prices`: every price observation of one market's outcome tokens (the price-ticks stream: last
 * trades, midpoints, best bid/ask, price-history samples), as the same `PriceTick` object
 * /markets/{id}/price/ticks serves. The market is required: ticks are many (every book change of every
 * token), a subscription reads only its market's partition, and the outcome labels are the market's.
 * Filter `kind`. Tier 1, as the REST ticks.
 */
import type { PriceTick } from '../events/types.generated.js';
import { ApiError } from '../http/errors.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { findMarket } from '../read-models/markets/queries.js';
import { priceTicks } from '../read-models/price-ticks/index.js';
import { presentPriceTick, priceTickRowOfEvent, type TickMarket } from '../read-models/price-ticks/present.js';
import type { Channel } from './channel.js';
import { badFilter, marketOf, onlyFilters, someOf } from './filters.js';

type Kind = PriceTick['kind'];

export interface PriceFilters {
  market: string;
  tokens: TickMarket;
  /** The tick kinds wanted; undefined: all. */
  kinds?: ReadonlySet<Kind>;
}

const FILTERS = ['market', 'kind'] as const;
const KINDS: readonly Kind[] = ['last_trade', 'midpoint', 'best_bid_ask', 'history'];

async function parseFilters(input: Record<string, unknown>, prefix: string, store: AnalyticsStore): Promise<PriceFilters> {
  onlyFilters(input, prefix, 'prices', FILTERS);
  const market = await marketOf(input.market, prefix, store);
  if (market === undefined) throw badFilter(prefix, 'market', 'required: the prices channel carries one market');
  const kinds = someOf(input.kind, prefix, 'kind', KINDS);
  // Ticks name their outcome by the market's labels, so the market must be in the catalog (as for the
  // REST ticks); marketOf keeps a condition id it does not know as given.
  const row = await findMarket(store, market);
  if (row === undefined) throw ApiError.notFound(`${prefix}market: no market with condition id ${market}`);
  return { market, tokens: { outcomes: row.outcomes, outcome_token_ids: row.outcome_token_ids }, kinds };
}

export const pricesChannel: Channel<PriceFilters> = {
  filters: FILTERS,
  name: 'prices',
  access: 'tier1',
  resyncFrom: '/v1/markets/{id}/price/ticks',
  streams: [priceTicks],
  parseFilters,
  partitionKey: (filters) => filters.market,
  select(_stream, event, filters) {
    const tick = event as PriceTick;
    if (tick.market_id !== filters.market) return null;
    if (filters.kinds !== undefined && !filters.kinds.has(tick.kind)) return null;
    return { type: 'price', data: presentPriceTick(priceTickRowOfEvent(tick), filters.tokens) };
  },
};
