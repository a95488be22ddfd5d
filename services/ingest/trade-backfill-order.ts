/**
 * Which market the trade poller backfills next: the busiest active one not backfilled yet among the
 * busiest `limit` as they stand. Chosen again before each, so a market the catalog learns of during a
 * run (a fresh start lists the newest markets last) or one that has become busy goes next, not after
 * every market known when the run began; and a market that enters the busiest later (a recurring
 * hourly market as its window nears) is backfilled then, so no market users see among the busiest
 * shows only the trades since the start.
 */
import type { MarketUpserted } from '../events/types.generated.js';

export function nextBackfillMarket(
  markets: readonly MarketUpserted[],
  done: ReadonlySet<string>,
  limit: number,
): MarketUpserted | undefined {
  return markets
    .filter((m) => m.status === 'active')
    .sort((a, b) => b.volume_24h_usdc - a.volume_24h_usdc)
    .slice(0, limit)
    .find((m) => !done.has(m.market_id));
}
