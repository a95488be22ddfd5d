/** The chain source's catalog of every market of a simulated world, as its Gamma would list them (tests and benches). */
import { ChainCatalog } from '../../services/chain/catalog.js';
import type { MarketUpserted } from '../../services/events/types.js';
import { normalizeGammaMarket } from '../../services/ingest/normalize-market.js';
import type { SimulatorState } from '../../simulator/state.js';

export function simulatorChainCatalog(state: SimulatorState, nowMs = 0): ChainCatalog {
  const catalog = new ChainCatalog();
  catalog.add(
    state.world.markets.map((m) => {
      const event = state.world.events[m.eventIndex]!;
      const result = normalizeGammaMarket(
        {
          conditionId: m.conditionId,
          question: m.question,
          outcomes: JSON.stringify(m.outcomes),
          clobTokenIds: JSON.stringify(m.tokenIds),
          negRisk: event.negRisk,
          negRiskMarketID: event.negRiskMarketId ?? undefined,
        },
        'simulator',
        nowMs,
      );
      if (!result.ok) throw new Error(result.reason);
      return result.value as MarketUpserted;
    }),
  );
  return catalog;
}
