/**
 * The complete Gamma catalog, kept complete.
 *
 * Initial sync (once, on a fresh data folder): every market and event Gamma lists - open, closed and
 * archived - paged through the keyset endpoints. The position (listing + cursor of the last page
 * published) is checkpointed after every page, so a killed process resumes at the page it was on;
 * a page published twice is harmless (deterministic event ids, replacing tables). Progress goes to
 * the logs and to /v1/health (`progress` of source gamma.catalog-sync).
 *
 * Incremental sync (every CATALOG_SYNC_INTERVAL_MS afterwards): markets and events changed since the
 * watermark, newest `updatedAt` first, stopping at the watermark. Every unsettled market seen goes to
 * the unresolved set, which the market poller re-checks by id until it resolves (unresolved-markets.ts).
 */
import type { EventPublisher } from '../events/publisher.js';
import type { DeadLetter, GammaEventUpserted, MarketResolved, MarketUpserted, Source } from '../events/types.js';
import type { Logger } from '../logger.js';
import { CheckpointFile } from './checkpoint.js';
import { type GammaListing, keysetPage } from './gamma-pages.js';
import { normalizeGammaEvent } from './normalize-catalog.js';
import { normalizeGammaMarket, resolutionOf } from './normalize-market.js';
import { parseTimestampMs } from './parse.js';
import { FRESHNESS_TARGETS_MS, type SourceHealth } from './source-health.js';
import type { UnresolvedMarkets } from './unresolved-markets.js';
import type { UpstreamClient } from './upstream-client.js';

export const CATALOG_SYNC_SOURCE = 'gamma.catalog-sync';

/** What the initial sync pages through, in order. Gamma drops closed and archived rows unless asked. */
export const INITIAL_LISTINGS: ReadonlyArray<{ listing: GammaListing; query: string }> = [
  { listing: 'markets', query: 'closed=false' },
  { listing: 'markets', query: 'closed=true' },
  { listing: 'markets', query: 'closed=true&archived=true' },
  { listing: 'markets', query: 'closed=false&archived=true' },
  { listing: 'events', query: 'closed=false' },
  { listing: 'events', query: 'closed=true' },
  { listing: 'events', query: 'closed=true&archived=true' },
];

/** What the incremental sync reads, newest change first (open markets are the market poller's). */
const INCREMENTAL_LISTINGS: ReadonlyArray<{ listing: GammaListing; query: string }> = [
  { listing: 'markets', query: 'closed=true&order=updatedAt&ascending=false' },
  { listing: 'markets', query: 'closed=true&archived=true&order=updatedAt&ascending=false' },
  { listing: 'events', query: 'closed=true&order=updatedAt&ascending=false' },
];

/** Changes stamped this close to the watermark are read again: upstream timestamps of one write can differ slightly. */
const WATERMARK_OVERLAP_MS = 60_000;
const PROGRESS_LOG_EVERY_MS = 10_000;

export interface CatalogSyncState {
  /** Index into INITIAL_LISTINGS of the listing in progress; INITIAL_LISTINGS.length once done. */
  listing: number;
  /** Keyset cursor after the last page published in that listing (null: from its first page). */
  cursor: string | null;
  /** Records published by the initial sync so far. */
  completed: number;
  started_ms: number | null;
  finished_ms: number | null;
  /** Newest upstream updatedAt (ms) read per listing kind; the incremental sync reads back to it. */
  watermark: Record<GammaListing, number>;
}

export interface CatalogSyncOptions {
  gamma: UpstreamClient;
  publisher: EventPublisher;
  health: SourceHealth;
  logger: Logger;
  unresolved: UnresolvedMarkets;
  checkpointFile: string;
  clock?: () => number;
  /** Every page of markets published (the chain source's catalog takes the legacy AMM markets from it). */
  onMarkets?: (markets: readonly MarketUpserted[]) => void;
}

export interface CatalogSyncRun {
  mode: 'initial' | 'incremental';
  published: number;
  deadLettered: number;
  pages: number;
}

export class CatalogSync {
  private readonly checkpoint: CheckpointFile<CatalogSyncState>;
  private state: CatalogSyncState;
  private stopped = false;

  constructor(private readonly options: CatalogSyncOptions) {
    this.checkpoint = new CheckpointFile<CatalogSyncState>(options.checkpointFile, {
      listing: 0,
      cursor: null,
      completed: 0,
      started_ms: null,
      finished_ms: null,
      watermark: { markets: 0, events: 0 },
    });
    this.state = this.checkpoint.read();
    options.health.register(CATALOG_SYNC_SOURCE, FRESHNESS_TARGETS_MS.metadata);
  }

  get initialSyncDone(): boolean {
    return this.state.listing >= INITIAL_LISTINGS.length;
  }

  /** Stops between pages (the checkpoint always names the next page to read). */
  stop(): void {
    this.stopped = true;
  }

  /** The initial sync (or what is left of it), else one incremental pass. */
  async runOnce(): Promise<CatalogSyncRun> {
    const started = this.now();
    try {
      const run = this.initialSyncDone ? await this.incremental() : await this.initial();
      if (!this.stopped) this.options.health.succeeded(CATALOG_SYNC_SOURCE, 0, 0, started);
      return run;
    } catch (error) {
      this.options.health.failed(CATALOG_SYNC_SOURCE, error);
      throw error;
    } finally {
      this.options.unresolved.save();
    }
  }

  private async initial(): Promise<CatalogSyncRun> {
    const { logger, health } = this.options;
    const run: CatalogSyncRun = { mode: 'initial', published: 0, deadLettered: 0, pages: 0 };
    if (this.state.started_ms === null) this.save({ ...this.state, started_ms: this.now() });
    const startedMs = this.state.started_ms!;
    if (this.state.listing > 0 || this.state.cursor !== null)
      logger.info({ listing: this.state.listing, completed: this.state.completed }, 'catalog sync resuming');
    let lastLog = this.now();
    while (!this.initialSyncDone && !this.stopped) {
      const { listing, query } = INITIAL_LISTINGS[this.state.listing]!;
      const phase = `initial: ${listing} ${query}`;
      const page = await keysetPage(this.options.gamma, listing, query, this.state.cursor);
      const result = await this.publishPage(listing, page.items, page.source);
      run.published += result.published;
      run.deadLettered += result.deadLettered;
      run.pages += 1;
      this.save({
        ...this.state,
        listing: page.nextCursor === null ? this.state.listing + 1 : this.state.listing,
        cursor: page.nextCursor,
        completed: this.state.completed + page.items.length,
        watermark: {
          ...this.state.watermark,
          [listing]: Math.max(this.state.watermark[listing], Math.min(result.newestUpdateMs, this.now())),
        },
      });
      health.progress(CATALOG_SYNC_SOURCE, { phase, completed: this.state.completed, startedMs });
      if (this.now() - lastLog >= PROGRESS_LOG_EVERY_MS) {
        lastLog = this.now();
        const seconds = Math.max(1, (lastLog - startedMs) / 1000);
        logger.info(
          { phase, completed: this.state.completed, per_second: Math.round(this.state.completed / seconds) },
          'catalog sync progress',
        );
      }
    }
    if (this.initialSyncDone && this.state.finished_ms === null) {
      this.save({ ...this.state, finished_ms: this.now() });
      health.progress(CATALOG_SYNC_SOURCE, { phase: 'initial sync done', completed: this.state.completed, startedMs, finished: true });
      const seconds = Math.max(0.001, (this.state.finished_ms! - startedMs) / 1000);
      logger.info(
        { records: this.state.completed, seconds: Math.round(seconds), per_second: Math.round(this.state.completed / seconds) },
        'catalog sync complete',
      );
    }
    return run;
  }

  private async incremental(): Promise<CatalogSyncRun> {
    const run: CatalogSyncRun = { mode: 'incremental', published: 0, deadLettered: 0, pages: 0 };
    const startedMs = this.now();
    const watermark = { ...this.state.watermark };
    for (const { listing, query } of INCREMENTAL_LISTINGS) {
      const since = this.state.watermark[listing] - WATERMARK_OVERLAP_MS;
      let cursor: string | null = null;
      do {
        if (this.stopped) return run;
        const page = await keysetPage(this.options.gamma, listing, query, cursor);
        // Newest first: keep rows changed since the watermark, stop at the first older one.
        const fresh = page.items.filter((raw) => updatedAtMs(raw) >= since);
        const result = await this.publishPage(listing, fresh, page.source);
        run.published += result.published;
        run.deadLettered += result.deadLettered;
        run.pages += 1;
        // Never past our own clock: an upstream timestamp in the future would otherwise hide every
        // change up to it.
        watermark[listing] = Math.max(watermark[listing], Math.min(result.newestUpdateMs, startedMs));
        cursor = fresh.length === page.items.length ? page.nextCursor : null;
      } while (cursor !== null);
    }
    this.save({ ...this.state, watermark });
    this.options.health.progress(CATALOG_SYNC_SOURCE, { phase: 'incremental', completed: run.published, startedMs, finished: true });
    return run;
  }

  private async publishPage(
    listing: GammaListing,
    rows: unknown[],
    source: Source,
  ): Promise<{ published: number; deadLettered: number; newestUpdateMs: number }> {
    const now = this.now();
    const deadLetters: DeadLetter[] = [];
    const letter = (raw: unknown, reason: string): DeadLetter => ({
      stage: 'ingest',
      source,
      origin: `${this.options.gamma.name}/${listing}/keyset`,
      reason,
      raw: JSON.stringify(raw),
      at_ms: now,
    });
    let newestUpdateMs = 0;
    let published = 0;
    let newlyClosed = false;
    if (listing === 'markets') {
      const markets: MarketUpserted[] = [];
      for (const raw of rows) {
        const result = normalizeGammaMarket(raw, source, now);
        if (!result.ok) deadLetters.push(letter(raw, result.reason));
        else {
          markets.push(result.value);
          newlyClosed = this.options.unresolved.observe(result.value) || newlyClosed;
          newestUpdateMs = Math.max(newestUpdateMs, updatedAtMs(raw));
        }
      }
      // Saved before the checkpoint moves past this page: a closed market awaiting resolution is
      // listed nowhere else until it changes. (Open ones are re-read by every market poll.)
      if (newlyClosed) this.options.unresolved.save();
      published += await this.options.publisher.publish('markets', markets);
      this.options.onMarkets?.(markets);
      const resolutions = markets.map((m) => resolutionOf(m, 'gamma')).filter((r): r is MarketResolved => r !== null);
      published += await this.options.publisher.publish('marketResolutions', resolutions);
    } else {
      const events: GammaEventUpserted[] = [];
      for (const raw of rows) {
        const result = normalizeGammaEvent(raw, source, now);
        if (!result.ok) deadLetters.push(letter(raw, result.reason));
        else {
          events.push(result.value);
          newestUpdateMs = Math.max(newestUpdateMs, updatedAtMs(raw));
        }
      }
      published += await this.options.publisher.publish('gammaEvents', events);
    }
    await this.options.publisher.deadLetter(deadLetters);
    this.options.health.counted(CATALOG_SYNC_SOURCE, published, deadLetters.length);
    return { published, deadLettered: deadLetters.length, newestUpdateMs };
  }

  private save(state: CatalogSyncState): void {
    this.state = state;
    this.checkpoint.write(state);
  }

  private now(): number {
    return (this.options.clock ?? Date.now)();
  }
}

/** Upstream updatedAt of a raw Gamma row (0 when absent or unparseable). */
function updatedAtMs(raw: unknown): number {
  return parseTimestampMs(raw && typeof raw === 'object' ? (raw as { updatedAt?: unknown }).updatedAt : undefined) ?? 0;
}
