/**
 * Polls Gamma for the markets that move: every open market (`closed=false`; Gamma treats an
 * omitted `closed` as false), plus every market known to be unsettled that the open listing no
 * longer shows, looked up again by id until it resolves or is voided (unresolved-markets.ts). That
 * re-check is what sees a market close and resolve weeks after its end date. Publishes only markets
 * whose normalized content changed, and with a settled market its resolution (same key, in order).
 */
import type { Logger } from '../logger.js';
import type { DeadLetter, MarketResolved, MarketUpserted, Source } from '../events/types.js';
import { chunk } from '../shared/collections.js';
import { keysetPages } from './gamma-pages.js';
import { normalizeGammaMarket, resolutionOf } from './normalize-market.js';
import { FRESHNESS_TARGETS_MS } from './source-health.js';
import type { EventPublisher } from '../events/publisher.js';
import type { SourceHealth } from './source-health.js';
import type { UnresolvedMarkets } from './unresolved-markets.js';
import type { UpstreamClient } from './upstream-client.js';

export const MARKETS_SOURCE = 'gamma.markets';
/** Ids per lookup request: the keyset page size, and well inside Gamma's URL length limit. */
const IDS_PER_LOOKUP = 100;

export interface MarketPollerOptions {
  gamma: UpstreamClient;
  publisher: EventPublisher;
  health: SourceHealth;
  logger: Logger;
  unresolved: UnresolvedMarkets;
  /** Unsettled markets looked up by id per poll, round-robin over the rest (default 2,000 = 20 requests). */
  recheckPerPoll?: number;
  clock?: () => number;
}

export interface MarketPollResult {
  published: number;
  deadLettered: number;
  rechecked: number;
  settled: number;
}

export class MarketPoller {
  private readonly lastPublished = new Map<string, string>();
  private latest: MarketUpserted[] = [];

  constructor(private readonly options: MarketPollerOptions) {
    options.health.register(MARKETS_SOURCE, FRESHNESS_TARGETS_MS.metadata);
  }

  /** The open markets seen by the last successful poll. */
  get markets(): readonly MarketUpserted[] {
    return this.latest;
  }

  async pollOnce(): Promise<MarketPollResult> {
    const { health, unresolved } = this.options;
    const now = (this.options.clock ?? Date.now)();
    try {
      const deadLetters: DeadLetter[] = [];
      const open = this.normalizeAll(await this.listOpen(), now, deadLetters);
      for (const market of open) unresolved.observe(market);
      const due = unresolved.dueForRecheck(new Set(open.map((m) => m.gamma_id)), this.options.recheckPerPoll ?? 2_000);
      const rechecked = await this.lookUp(due, now, deadLetters);
      for (const market of rechecked) unresolved.observe(market);
      const { published, settled } = await this.publishChanged([...open, ...rechecked], deadLetters);
      unresolved.save();
      this.latest = open;
      health.succeeded(MARKETS_SOURCE, published, deadLetters.length, now);
      if (deadLetters.length > 0) this.options.logger.warn({ count: deadLetters.length }, 'malformed markets dead-lettered');
      if (settled > 0) this.options.logger.info({ settled, rechecked: rechecked.length }, 'markets settled since the last poll');
      return { published, deadLettered: deadLetters.length, rechecked: due.length, settled };
    } catch (error) {
      health.failed(MARKETS_SOURCE, error);
      throw error;
    }
  }

  /** Publishes the markets whose content changed, then the resolutions of those that settled. */
  private async publishChanged(markets: MarketUpserted[], deadLetters: DeadLetter[]): Promise<{ published: number; settled: number }> {
    const byId = new Map(markets.map((m) => [m.market_id, m]));
    const changed = [...byId.values()].filter((m) => this.lastPublished.get(m.market_id) !== m.event_id);
    await this.options.publisher.deadLetter(deadLetters);
    let published = await this.options.publisher.publish('markets', changed);
    const resolutions = changed.map((m) => resolutionOf(m, 'gamma')).filter((r): r is MarketResolved => r !== null);
    published += await this.options.publisher.publish('marketResolutions', resolutions);
    for (const market of changed) this.lastPublished.set(market.market_id, market.event_id);
    return { published, settled: resolutions.length };
  }

  private async listOpen(): Promise<Array<{ raw: unknown; source: Source }>> {
    const out: Array<{ raw: unknown; source: Source }> = [];
    for await (const page of keysetPages(this.options.gamma, 'markets', 'closed=false')) {
      for (const raw of page.items) out.push({ raw, source: page.source });
    }
    return out;
  }

  /**
   * Markets by Gamma id: closed ones first (the usual answer), then the rest among archived ones.
   * Ids found nowhere count a miss and are asked for again at the next poll.
   */
  private async lookUp(gammaIds: string[], now: number, deadLetters: DeadLetter[]): Promise<MarketUpserted[]> {
    const found: MarketUpserted[] = [];
    for (const batch of chunk(gammaIds, IDS_PER_LOOKUP)) {
      let missing = new Set(batch);
      for (const filter of ['closed=true', 'closed=true&archived=true', 'closed=false']) {
        if (missing.size === 0) break;
        const ids = [...missing].map((id) => `id=${encodeURIComponent(id)}`).join('&');
        const rows: Array<{ raw: unknown; source: Source }> = [];
        for await (const page of keysetPages(this.options.gamma, 'markets', `${filter}&${ids}`)) {
          for (const raw of page.items) rows.push({ raw, source: page.source });
        }
        found.push(...this.normalizeAll(rows, now, deadLetters));
        // A row that came back malformed was found too (and dead-lettered); it is not a miss.
        const returned = new Set(rows.map(({ raw }) => String((raw as { id?: unknown } | null)?.id)));
        missing = new Set([...missing].filter((id) => !returned.has(id)));
      }
      for (const id of missing) this.options.unresolved.missed(id);
    }
    return found;
  }

  private normalizeAll(rows: Array<{ raw: unknown; source: Source }>, now: number, deadLetters: DeadLetter[]): MarketUpserted[] {
    const out: MarketUpserted[] = [];
    for (const { raw, source } of rows) {
      const result = normalizeGammaMarket(raw, source, now);
      if (result.ok) out.push(result.value);
      else
        deadLetters.push({
          stage: 'ingest',
          source,
          origin: `${this.options.gamma.name}/markets`,
          reason: result.reason,
          raw: JSON.stringify(raw),
          at_ms: now,
        });
    }
    return out;
  }
}
