/**
 * Data API `/holders` and `/oi` of the busiest active markets (the top N by 24h volume): a source of
 * its own (data.holders-oi), so a failure here or in the wallet poller never skips the other.
 */
import type { EventPublisher } from '../events/publisher.js';
import type { DeadLetter, HolderSnapshot, MarketUpserted, OpenInterest } from '../events/types.js';
import { normalizeHolders, normalizeOpenInterest } from './normalize-data.js';
import { FRESHNESS_TARGETS_MS, type SourceHealth } from './source-health.js';
import type { UpstreamClient } from './upstream-client.js';

const MARKET_HOLDINGS_SOURCE = 'data.holders-oi';
/** Markets per request the Data API accepts for each endpoint. */
const HOLDERS_BATCH = 10;
const OI_BATCH = 50;

export interface MarketHoldingsPollerOptions {
  data: UpstreamClient;
  publisher: EventPublisher;
  health: SourceHealth;
  /** Markets whose holders and open interest are polled (the busiest N). */
  markets: number;
  catalog: () => readonly MarketUpserted[];
  clock?: () => number;
}

export class MarketHoldingsPoller {
  constructor(private readonly options: MarketHoldingsPollerOptions) {
    options.health.register(MARKET_HOLDINGS_SOURCE, FRESHNESS_TARGETS_MS.positions);
  }

  async pollOnce(): Promise<{ published: number; deadLettered: number }> {
    const started = (this.options.clock ?? Date.now)();
    try {
      if (!this.options.catalog().some((m) => m.status === 'active')) {
        this.options.health.idle(MARKET_HOLDINGS_SOURCE);
        return { published: 0, deadLettered: 0 };
      }
      const result = await this.poll(started);
      this.options.health.succeeded(MARKET_HOLDINGS_SOURCE, result.published, result.deadLettered, started);
      return result;
    } catch (error) {
      this.options.health.failed(MARKET_HOLDINGS_SOURCE, error);
      throw error;
    }
  }

  private async poll(snapshotAt: number): Promise<{ published: number; deadLettered: number }> {
    const { data, publisher } = this.options;
    const markets = [...this.options.catalog()]
      .filter((m) => m.status === 'active')
      .sort((a, b) => b.volume_24h_usdc - a.volume_24h_usdc)
      .slice(0, this.options.markets);
    const tokenToMarket = new Map(markets.flatMap((m) => m.outcome_token_ids.map((t) => [t, m.market_id] as const)));
    const deadLetters: DeadLetter[] = [];
    const holders: HolderSnapshot[] = [];
    const interest: OpenInterest[] = [];
    const letter = (endpoint: string, raw: unknown, reason: string, source: string): DeadLetter => ({
      stage: 'ingest',
      source,
      origin: `${data.name}/${endpoint}`,
      reason,
      raw: JSON.stringify(raw),
      at_ms: snapshotAt,
    });
    const ids = (from: number, count: number) =>
      markets
        .slice(from, from + count)
        .map((m) => m.market_id)
        .join(',');
    for (let i = 0; i < markets.length; i += HOLDERS_BATCH) {
      const { body, source } = await data.getJson<unknown>(`/holders?market=${ids(i, HOLDERS_BATCH)}&limit=20`);
      const result = normalizeHolders(body, (t) => tokenToMarket.get(t), source, snapshotAt);
      if (!result.ok) deadLetters.push(letter('holders', body, result.reason, source));
      else {
        holders.push(...result.value.rows);
        for (const r of result.value.rejected) deadLetters.push(letter('holders', r.raw, r.reason, source));
      }
    }
    for (let i = 0; i < markets.length; i += OI_BATCH) {
      const { body, source } = await data.getJson<unknown>(`/oi?market=${ids(i, OI_BATCH)}`);
      if (!Array.isArray(body)) throw new Error(`${data.name}/oi: expected an array, got ${typeof body}`);
      for (const raw of body) {
        const result = normalizeOpenInterest(raw, source, snapshotAt);
        if (result.ok) interest.push(result.value);
        else deadLetters.push(letter('oi', raw, result.reason, source));
      }
    }
    await publisher.deadLetter(deadLetters);
    const published = (await publisher.publish('holders', holders)) + (await publisher.publish('openInterest', interest));
    return { published, deadLettered: deadLetters.length };
  }
}
