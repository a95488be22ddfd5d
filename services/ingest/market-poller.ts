/**
 * Polls Gamma for markets: every active market, plus markets closed within the lookback window
 * (Gamma treats an omitted `closed` as closed=false, so both are asked for explicitly). Publishes
 * only markets whose normalized content changed since the last poll.
 */
import type { Logger } from '../logger.js';
import type { DeadLetter, MarketUpserted } from '../events/types.js';
import { CheckpointFile } from './checkpoint.js';
import { normalizeGammaMarket, resolutionOf } from './normalize-market.js';
import { FRESHNESS_TARGETS_MS } from './source-health.js';
import type { EventPublisher } from '../events/publisher.js';
import type { SourceHealth } from './source-health.js';
import type { UpstreamClient } from './upstream-client.js';

const PAGE_SIZE = 500;
// Gamma rejects offsets past this; beyond it the keyset endpoint is needed (Ingestion issue).
const MAX_OFFSET = 100_000;
export const MARKETS_SOURCE = 'gamma.markets';

export interface MarketPollerOptions {
  gamma: UpstreamClient;
  publisher: EventPublisher;
  health: SourceHealth;
  logger: Logger;
  closedLookbackDays: number;
  clock?: () => number;
  /** Where the ids of markets already announced as resolved are kept, so a restart does not re-announce them. */
  resolvedCheckpointFile?: string;
}

export class MarketPoller {
  private readonly lastPublished = new Map<string, string>();
  private latest: MarketUpserted[] = [];
  private readonly resolvedCheckpoint: CheckpointFile<string[]> | null;
  private readonly announcedResolved: Set<string>;

  constructor(private readonly options: MarketPollerOptions) {
    options.health.register(MARKETS_SOURCE, FRESHNESS_TARGETS_MS.metadata);
    this.resolvedCheckpoint = options.resolvedCheckpointFile ? new CheckpointFile<string[]>(options.resolvedCheckpointFile, []) : null;
    this.announcedResolved = new Set(this.resolvedCheckpoint?.read() ?? []);
  }

  /** The markets seen by the last successful poll. */
  get markets(): readonly MarketUpserted[] {
    return this.latest;
  }

  async pollOnce(): Promise<{ published: number; deadLettered: number }> {
    const { gamma, publisher, health, closedLookbackDays } = this.options;
    const now = (this.options.clock ?? Date.now)();
    try {
      const closedSince = new Date(now - closedLookbackDays * 86_400_000).toISOString();
      const raws = [
        ...(await this.fetchAll('closed=false')),
        ...(closedLookbackDays > 0 ? await this.fetchAll(`closed=true&end_date_min=${encodeURIComponent(closedSince)}`) : []),
      ];
      const byId = new Map<string, MarketUpserted>();
      const deadLetters: DeadLetter[] = [];
      for (const { raw, source } of raws) {
        const result = normalizeGammaMarket(raw, source, now);
        if (result.ok) byId.set(result.value.market_id, result.value);
        else
          deadLetters.push({
            stage: 'ingest',
            source,
            origin: `${gamma.name}/markets`,
            reason: result.reason,
            raw: JSON.stringify(raw),
            at_ms: now,
          });
      }
      const changed = [...byId.values()].filter((m) => this.lastPublished.get(m.market_id) !== m.event_id);
      await publisher.deadLetter(deadLetters);
      const published = await publisher.publish('markets', changed);
      for (const market of changed) this.lastPublished.set(market.market_id, market.event_id);
      // A market moving to resolved is announced once, after its upsert (same key, so in order).
      const resolutions = [...byId.values()]
        .filter((m) => m.status === 'resolved' && !this.announcedResolved.has(m.market_id))
        .map((m) => resolutionOf(m, 'gamma')!);
      if (resolutions.length > 0) {
        await publisher.publish('marketResolutions', resolutions);
        for (const r of resolutions) this.announcedResolved.add(r.market_id);
        this.resolvedCheckpoint?.write([...this.announcedResolved]);
      }
      this.latest = [...byId.values()];
      health.succeeded(MARKETS_SOURCE, published + resolutions.length, deadLetters.length, now);
      if (deadLetters.length > 0) this.options.logger.warn({ count: deadLetters.length }, 'malformed markets dead-lettered');
      return { published, deadLettered: deadLetters.length };
    } catch (error) {
      health.failed(MARKETS_SOURCE, error);
      throw error;
    }
  }

  private async fetchAll(filter: string): Promise<Array<{ raw: unknown; source: MarketUpserted['source'] }>> {
    const out: Array<{ raw: unknown; source: MarketUpserted['source'] }> = [];
    for (let offset = 0; offset <= MAX_OFFSET; offset += PAGE_SIZE) {
      const { body, source } = await this.options.gamma.getJson<unknown>(
        `/markets?${filter}&limit=${PAGE_SIZE}&offset=${offset}&order=id&ascending=true`,
      );
      if (!Array.isArray(body)) throw new Error(`${this.options.gamma.name}/markets: expected an array, got ${typeof body}`);
      for (const raw of body) out.push({ raw, source });
      if (body.length < PAGE_SIZE) break;
    }
    return out;
  }
}
