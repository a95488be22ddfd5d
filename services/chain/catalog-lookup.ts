/**
 * Looks up on Gamma the markets of token and condition ids the chain shows before the market poller
 * does (a market listed seconds ago, or a closed one outside the poller's lookback), adds them to the
 * catalog and publishes them, so held fills can go out. Bounded: a few requests per call, and an id
 * Gamma does not know is asked again only after a back-off (1 min doubling to 30 min).
 */
import type { DeadLetter, MarketUpserted } from '../events/types.js';
import type { EventPublisher } from '../events/publisher.js';
import { normalizeGammaMarket } from '../ingest/normalize-market.js';
import type { UpstreamClient } from '../ingest/upstream-client.js';
import { type BackoffPolicy, backoffMs } from '../shared/backoff.js';
import type { ChainCatalog } from './catalog.js';

const IDS_PER_REQUEST = 20;
const MAX_REQUESTS_PER_CALL = 6;
const RETRY: BackoffPolicy = { baseMs: 60_000, maxMs: 30 * 60_000, jitter: 'none' };

export class CatalogLookup {
  private readonly misses = new Map<string, { attempts: number; nextAtMs: number }>();

  constructor(
    private readonly gamma: UpstreamClient,
    private readonly catalog: ChainCatalog,
    private readonly publisher: EventPublisher,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Returns how many markets were learnt. */
  async learn(ids: { tokens: readonly string[]; conditions: readonly string[] }): Promise<number> {
    const now = this.clock();
    const due = (id: string) => (this.misses.get(id)?.nextAtMs ?? 0) <= now;
    const queries = [
      ...chunks(ids.tokens.filter(due), IDS_PER_REQUEST).map((batch) => ({ batch, param: 'clob_token_ids' })),
      ...chunks(ids.conditions.filter(due), IDS_PER_REQUEST).map((batch) => ({ batch, param: 'condition_ids' })),
    ].slice(0, MAX_REQUESTS_PER_CALL);
    const found: MarketUpserted[] = [];
    const deadLetters: DeadLetter[] = [];
    for (const { batch, param } of queries) {
      // Gamma treats an omitted `closed` as closed=false: ask for both.
      for (const closed of ['false', 'true']) {
        const { body, source } = await this.gamma.getJson<unknown>(
          `/markets?${batch.map((id) => `${param}=${id}`).join('&')}&closed=${closed}&limit=${IDS_PER_REQUEST * 2}`,
        );
        if (!Array.isArray(body)) throw new Error(`${this.gamma.name}/markets: expected an array, got ${typeof body}`);
        for (const raw of body) {
          const result = normalizeGammaMarket(raw, source, now);
          if (result.ok) found.push(result.value);
          else
            deadLetters.push({
              stage: 'ingest',
              source,
              origin: `${this.gamma.name}/markets`,
              reason: result.reason,
              raw: JSON.stringify(raw),
              at_ms: now,
            });
        }
      }
    }
    await this.publisher.deadLetter(deadLetters);
    await this.publisher.publish('markets', found);
    this.catalog.add(found);
    for (const { batch } of queries) {
      for (const id of batch) {
        if (this.catalog.token(id) || this.catalog.condition(id)) this.misses.delete(id);
        else {
          const attempts = (this.misses.get(id)?.attempts ?? 0) + 1;
          this.misses.set(id, { attempts, nextAtMs: now + backoffMs(RETRY, attempts) });
        }
      }
    }
    return found.length;
  }
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
