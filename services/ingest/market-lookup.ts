/**
 * On-demand lookup of a market the catalog does not hold yet (an API request for an unknown
 * condition id or slug), bounded so no request can make the service do unbounded work:
 * - at most `perSecond` upstream lookups per second for the whole process (token bucket, never
 *   waited for: without a token the answer is "not looked up now");
 * - one lookup at a time per id (concurrent requests share it);
 * - each lookup ends within `timeoutMs`, however many upstream requests it needs;
 * - answers are cached: found markets briefly (the sink indexes them meanwhile), ids upstream does
 *   not know for `missTtlMs`; the cache holds at most `maxCached` ids.
 * A found market is published like any other, so it is indexed and joins the lifecycle.
 */
import type { EventPublisher } from '../events/publisher.js';
import type { MarketResolved, MarketUpserted, Source } from '../events/types.js';
import type { LookupResult, MarketLookupPort } from '../ports/market-lookup.js';
import { isConditionId } from '../shared/ids.js';
import { keysetPage } from './gamma-pages.js';
import { normalizeGammaMarket, resolutionOf } from './normalize-market.js';
import { UpstreamError, type UpstreamClient } from './upstream-client.js';

export interface MarketLookupOptions {
  gamma: UpstreamClient;
  /** Where found markets go to be indexed (null: answer only). */
  publisher: EventPublisher | null;
  perSecond: number;
  timeoutMs: number;
  missTtlMs: number;
  /** Found markets are answered from memory this long (default 60 s). */
  hitTtlMs?: number;
  maxCached?: number;
  clock?: () => number;
}

const SLUG = /^[a-z0-9][a-z0-9-]{0,299}$/i;

export interface LookupStats {
  upstream_lookups: number;
  cache_hits: number;
  rate_limited: number;
  timed_out: number;
}

export class MarketLookup implements MarketLookupPort {
  private readonly cache = new Map<string, { result: LookupResult; expiresMs: number }>();
  private readonly inFlight = new Map<string, Promise<LookupResult>>();
  private tokens: number;
  private refilledMs: number;
  readonly stats: LookupStats = { upstream_lookups: 0, cache_hits: 0, rate_limited: 0, timed_out: 0 };

  constructor(private readonly options: MarketLookupOptions) {
    this.tokens = options.perSecond;
    this.refilledMs = this.now();
  }

  async lookup(idOrSlug: string): Promise<LookupResult> {
    const key = isConditionId(idOrSlug) ? idOrSlug.toLowerCase() : idOrSlug;
    if (!isConditionId(key) && !SLUG.test(key)) return { missing: 'not-a-market-id' };
    const cached = this.cache.get(key);
    if (cached && cached.expiresMs > this.now()) {
      this.stats.cache_hits += 1;
      return cached.result;
    }
    const running = this.inFlight.get(key);
    if (running) return running;
    if (!this.takeToken()) {
      this.stats.rate_limited += 1;
      return { missing: 'rate-limited' };
    }
    const lookup = this.fetchWithin(key).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, lookup);
    return lookup;
  }

  private async fetchWithin(key: string): Promise<LookupResult> {
    this.stats.upstream_lookups += 1;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<LookupResult>((resolve) => {
      timer = setTimeout(() => resolve({ missing: 'timed-out' }), this.options.timeoutMs);
    });
    const result = await Promise.race([this.fetch(key), deadline]).finally(() => clearTimeout(timer));
    if ('found' in result) this.remember(key, result, this.options.hitTtlMs ?? 60_000);
    else if (result.missing === 'unknown-upstream') this.remember(key, result, this.options.missTtlMs);
    else if (result.missing === 'timed-out') this.stats.timed_out += 1;
    return result;
  }

  private async fetch(key: string): Promise<LookupResult> {
    try {
      const raws: Array<{ raw: unknown; source: Source }> = [];
      if (isConditionId(key)) {
        // Gamma drops closed and archived markets unless asked: the usual case (an old market) first.
        for (const filter of ['closed=true', 'closed=false', 'closed=true&archived=true']) {
          const page = await keysetPage(this.options.gamma, 'markets', `${filter}&condition_ids=${key}`, null);
          for (const raw of page.items) raws.push({ raw, source: page.source });
          if (raws.length > 0) break;
        }
      } else {
        const { body, source } = await this.options.gamma.getJson<unknown>(`/markets/slug/${encodeURIComponent(key)}`);
        raws.push({ raw: body, source });
      }
      const market = raws.map(({ raw, source }) => normalizeGammaMarket(raw, source, this.now())).find((r) => r.ok);
      if (!market?.ok) return { missing: 'unknown-upstream' };
      await this.publish(market.value);
      return { found: market.value };
    } catch (error) {
      if (error instanceof UpstreamError && error.status === 404) return { missing: 'unknown-upstream' };
      return { missing: 'upstream-error' };
    }
  }

  private async publish(market: MarketUpserted): Promise<void> {
    if (!this.options.publisher) return;
    await this.options.publisher.publish('markets', [market]);
    const resolution = resolutionOf(market, 'gamma');
    if (resolution) await this.options.publisher.publish('marketResolutions', [resolution as MarketResolved]);
  }

  private remember(key: string, result: LookupResult, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.cache.delete(key);
    this.cache.set(key, { result, expiresMs: this.now() + ttlMs });
    const max = this.options.maxCached ?? 10_000;
    // Oldest first: a Map iterates in insertion order.
    while (this.cache.size > max) this.cache.delete(this.cache.keys().next().value as string);
  }

  private takeToken(): boolean {
    const now = this.now();
    const perSecond = this.options.perSecond;
    this.tokens = Math.min(perSecond, this.tokens + ((now - this.refilledMs) / 1000) * perSecond);
    this.refilledMs = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  private now(): number {
    return (this.options.clock ?? Date.now)();
  }
}
