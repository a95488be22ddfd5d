/** The simulator's whole taker-trade feed, as the ingestor's own normalizer identifies it: the truth tests compare against. */
import { normalizeDataTrade } from '../../services/ingest/normalize-trade.js';
import { renderTrade } from '../../simulator/render-data.js';
import type { SimulatorState } from '../../simulator/state.js';

export async function upstreamTradeIds(simulatorBase: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let offset = 0; ; offset += 500) {
    const page = (await (await fetch(`${simulatorBase}/data/trades?takerOnly=true&limit=500&offset=${offset}`)).json()) as unknown[];
    for (const row of page) {
      const result = normalizeDataTrade(row, 'simulator', 0);
      if (result.ok) ids.add(result.value.event_id);
    }
    if (page.length < 500) return ids;
  }
}

/**
 * Every taker fill the simulator ever generated, straight from its state (the Data API feed pages
 * only to offset 10,000, so a large burst cannot be read back through it), as the ingestor's own
 * normalizer identifies them.
 */
export function simulatorTradeIds(state: SimulatorState): Set<string> {
  const ids = new Set<string>();
  for (const trade of state.trades) {
    const result = normalizeDataTrade(renderTrade(state, trade, 'taker'), 'simulator', 0);
    if (result.ok) ids.add(result.value.event_id);
  }
  return ids;
}
