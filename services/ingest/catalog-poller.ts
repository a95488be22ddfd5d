/**
 * Polls Gamma's catalog: open events (keyset paging; closed and archived ones come from the catalog
 * sync, catalog-sync.ts), series and tags, paging each to the end. Publishes only entities whose
 * normalized content changed.
 */
import type { Logger } from '../logger.js';
import type { DeadLetter, Source } from '../events/types.js';
import type { Parsed } from './parse.js';
import { normalizeGammaEvent, normalizeGammaSeries, normalizeGammaTag } from './normalize-catalog.js';
import type { EventPublisher, EventStreamName } from '../events/publisher.js';
import type { SourceHealth } from './source-health.js';
import type { UpstreamClient } from './upstream-client.js';
import { keysetPages } from './gamma-pages.js';

const PAGE_SIZE = 500;
const MAX_OFFSET = 100_000;
const CATALOG_SOURCE = 'gamma.catalog';

export interface CatalogPollerOptions {
  gamma: UpstreamClient;
  publisher: EventPublisher;
  health: SourceHealth;
  logger: Logger;
  clock?: () => number;
}

type Normalizer<T> = (raw: unknown, source: Source, nowMs: number) => Parsed<T>;

export class CatalogPoller {
  private readonly lastPublished = new Map<string, string>();

  constructor(private readonly options: CatalogPollerOptions) {
    options.health.register(CATALOG_SOURCE);
  }

  async pollOnce(): Promise<{ published: number; deadLettered: number }> {
    const { health } = this.options;
    const now = (this.options.clock ?? Date.now)();
    try {
      const deadLetters: DeadLetter[] = [];
      let published = 0;
      published += await this.sync(
        'gammaEvents',
        this.openEvents(),
        '/events/keyset',
        normalizeGammaEvent,
        (e) => e.gamma_event_id,
        now,
        deadLetters,
      );
      published += await this.sync(
        'series',
        this.offsetPages('/series?order=id&ascending=true'),
        '/series',
        normalizeGammaSeries,
        (s) => s.series_id,
        now,
        deadLetters,
      );
      published += await this.sync('tags', this.offsetPages('/tags?'), '/tags', normalizeGammaTag, (t) => t.tag_id, now, deadLetters);
      await this.options.publisher.deadLetter(deadLetters);
      health.succeeded(CATALOG_SOURCE, published, deadLetters.length, now);
      return { published, deadLettered: deadLetters.length };
    } catch (error) {
      health.failed(CATALOG_SOURCE, error);
      throw error;
    }
  }

  private async sync<K extends 'gammaEvents' | 'series' | 'tags', T extends { event_id: string }>(
    topic: K & EventStreamName,
    rows: AsyncIterable<{ raw: unknown; source: Source }>,
    endpoint: string,
    normalize: Normalizer<T>,
    idOf: (entity: T) => string,
    now: number,
    deadLetters: DeadLetter[],
  ): Promise<number> {
    const byId = new Map<string, T>();
    for await (const { raw, source } of rows) {
      const result = normalize(raw, source, now);
      if (result.ok) byId.set(idOf(result.value), result.value);
      else
        deadLetters.push({
          stage: 'ingest',
          source,
          origin: `${this.options.gamma.name}${endpoint}`,
          reason: result.reason,
          raw: JSON.stringify(raw),
          at_ms: now,
        });
    }
    const changed = [...byId.entries()].filter(([id, entity]) => this.lastPublished.get(`${topic}:${id}`) !== entity.event_id);
    const published = await this.options.publisher.publish(topic, changed.map(([, entity]) => entity) as never[]);
    for (const [id, entity] of changed) this.lastPublished.set(`${topic}:${id}`, entity.event_id);
    return published;
  }

  private async *openEvents(): AsyncGenerator<{ raw: unknown; source: Source }> {
    for await (const page of keysetPages(this.options.gamma, 'events', 'closed=false')) {
      for (const raw of page.items) yield { raw, source: page.source };
    }
  }

  private async *offsetPages(listing: string): AsyncGenerator<{ raw: unknown; source: Source }> {
    const separator = listing.endsWith('?') ? '' : '&';
    for (let offset = 0; offset <= MAX_OFFSET; offset += PAGE_SIZE) {
      const { body, source } = await this.options.gamma.getJson<unknown>(`${listing}${separator}limit=${PAGE_SIZE}&offset=${offset}`);
      if (!Array.isArray(body))
        throw new Error(`${this.options.gamma.name}${listing.split('?')[0]}: expected an array, got ${typeof body}`);
      for (const raw of body) yield { raw, source };
      if (body.length < PAGE_SIZE) return;
    }
  }
}
