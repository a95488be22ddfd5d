/**
 * Market lookup port: what the read models need of the on-demand lookup of a market the catalog does
 * not hold yet. Adapter: services/ingest/market-lookup.ts (Gamma, bounded, publishing what it finds),
 * which depends on the event publisher and so, through it, on the read-model registry; read models
 * import this port instead so the two do not import each other.
 */
import type { MarketUpserted } from '../events/types.js';

export type LookupResult =
  | { found: MarketUpserted }
  | { missing: 'unknown-upstream' | 'not-a-market-id' | 'rate-limited' | 'timed-out' | 'upstream-error' };

export interface MarketLookupPort {
  lookup(idOrSlug: string): Promise<LookupResult>;
}
