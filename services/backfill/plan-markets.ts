/**
 * Which markets a backfill covers: the ones named (condition id or slug, open, closed or archived),
 * or every active market. Gamma treats an omitted `closed` (and `archived`) as false, so a named
 * condition id is looked up open first, then closed, then among archived markets.
 */
import { CONDITION_ID } from '../shared/ids.js';
import type { DeadLetter, MarketUpserted } from '../events/types.js';
import { normalizeGammaMarket } from '../ingest/normalize-market.js';
import type { UpstreamClient } from '../ingest/upstream-client.js';

const PAGE_SIZE = 500;
const MAX_OFFSET = 100_000;

export class UnknownMarketError extends Error {}

export interface PlannedMarkets {
  markets: MarketUpserted[];
  deadLetters: DeadLetter[];
}

export async function planMarkets(gamma: UpstreamClient, requested: readonly string[], nowMs: number): Promise<PlannedMarkets> {
  const raws: Array<{ raw: unknown; source: MarketUpserted['source'] }> = [];
  if (requested.length === 0) {
    for (let offset = 0; offset <= MAX_OFFSET; offset += PAGE_SIZE) {
      const { body, source } = await gamma.getJson<unknown[]>(
        `/markets?closed=false&limit=${PAGE_SIZE}&offset=${offset}&order=id&ascending=true`,
      );
      if (!Array.isArray(body)) throw new Error(`${gamma.name}/markets: expected an array`);
      for (const raw of body) raws.push({ raw, source });
      if (body.length < PAGE_SIZE) break;
    }
  } else {
    for (const wanted of requested) raws.push(await lookUp(gamma, wanted));
  }
  const byId = new Map<string, MarketUpserted>();
  const deadLetters: DeadLetter[] = [];
  for (const { raw, source } of raws) {
    const result = normalizeGammaMarket(raw, source, nowMs);
    if (result.ok) byId.set(result.value.market_id, result.value);
    else
      deadLetters.push({
        stage: 'ingest',
        source,
        origin: `${gamma.name}/markets`,
        reason: result.reason,
        raw: JSON.stringify(raw),
        at_ms: nowMs,
      });
  }
  const markets = [...byId.values()].filter((m) => requested.length > 0 || m.status === 'active');
  return { markets, deadLetters };
}

async function lookUp(gamma: UpstreamClient, wanted: string): Promise<{ raw: unknown; source: MarketUpserted['source'] }> {
  if (CONDITION_ID.test(wanted)) {
    for (const filter of ['closed=false', 'closed=true', 'closed=true&archived=true']) {
      const { body, source } = await gamma.getJson<unknown[]>(`/markets?condition_ids=${wanted.toLowerCase()}&${filter}`);
      if (Array.isArray(body) && body.length > 0) return { raw: body[0], source };
    }
    throw new UnknownMarketError(`no market with condition id ${wanted}`);
  }
  try {
    const { body, source } = await gamma.getJson<unknown>(`/markets/slug/${encodeURIComponent(wanted)}`);
    return { raw: body, source };
  } catch (error) {
    if ((error as { status?: number }).status === 404) throw new UnknownMarketError(`no market with slug ${JSON.stringify(wanted)}`);
    throw error;
  }
}
