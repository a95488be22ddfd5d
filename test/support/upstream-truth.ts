/** The simulator's whole taker-trade feed, as the ingestor's own normalizer identifies it: the truth tests compare against. */
import { normalizeDataTrade } from '../../services/ingest/normalize-trade.js';

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
