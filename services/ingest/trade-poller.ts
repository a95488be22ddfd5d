/**
 * Polls the Data API trade feed (taker fills, newest first) and publishes every trade not seen
 * before. Trades can be indexed upstream a little after their timestamp, so each poll re-reads an
 * overlap window behind the newest trade it has and skips the ids it already published there.
 * The checkpoint (newest time + ids inside the overlap) makes a restart resume where it stopped;
 * anything published twice across a crash is dropped by the sink, which keys on the trade id.
 */
import type { Logger } from '../logger.js';
import type { DeadLetter, Source, TradeExecuted } from '../events/types.js';
import { CheckpointFile } from './checkpoint.js';
import { normalizeDataTrade } from './normalize-trade.js';
import type { EventPublisher } from '../events/publisher.js';
import { FRESHNESS_TARGETS_MS, type SourceHealth } from './source-health.js';
import type { UpstreamClient } from './upstream-client.js';

const PAGE_SIZE = 500;
// The Data API refuses offsets above 10,000.
const MAX_OFFSET = 10_000;
export const TRADES_SOURCE = 'data.trades';

export interface TradeCheckpoint {
  newest_ms: number;
  recent_ids: Array<[string, number]>;
  backfilled_markets: string[];
}

export interface TradePollerOptions {
  data: UpstreamClient;
  publisher: EventPublisher;
  health: SourceHealth;
  logger: Logger;
  checkpointFile: string;
  /** How far behind the newest trade each poll looks again for late-indexed trades. */
  overlapMs?: number;
  backfillMaxPerMarket: number;
  clock?: () => number;
  /** Told about every batch of trades published (the wallet tracker tallies volumes from it). */
  onPublished?: (trades: readonly TradeExecuted[]) => void;
}

export class TradePoller {
  private readonly checkpoint: CheckpointFile<TradeCheckpoint>;
  private state: TradeCheckpoint;

  constructor(private readonly options: TradePollerOptions) {
    this.checkpoint = new CheckpointFile(options.checkpointFile, { newest_ms: 0, recent_ids: [], backfilled_markets: [] });
    this.state = this.checkpoint.read();
    options.health.register(TRADES_SOURCE, FRESHNESS_TARGETS_MS.trades);
  }

  get backfilledMarkets(): ReadonlySet<string> {
    return new Set(this.state.backfilled_markets);
  }

  /** One pass over the global feed, from the newest trade back to the overlap window (or the offset cap). */
  async pollOnce(): Promise<{ published: number; deadLettered: number }> {
    try {
      const overlapMs = this.options.overlapMs ?? 120_000;
      const horizon = this.state.newest_ms - overlapMs;
      const known = new Set(this.state.recent_ids.map(([id]) => id));
      const { trades, deadLetters } = await this.readFeed('', (trade) => trade.timestamp_ms < horizon);
      const fresh = trades.filter((t) => t.timestamp_ms >= horizon && !known.has(t.event_id));
      const published = await this.publish(fresh, deadLetters);
      this.advanceCheckpoint(fresh, overlapMs);
      this.options.health.succeeded(TRADES_SOURCE, published, deadLetters.length);
      return { published, deadLettered: deadLetters.length };
    } catch (error) {
      this.options.health.failed(TRADES_SOURCE, error);
      throw error;
    }
  }

  /** Reads one market's history (up to the configured depth) once; the sink drops what it already has. */
  async backfillMarket(marketId: string): Promise<number> {
    if (this.state.backfilled_markets.includes(marketId)) return 0;
    const { trades, deadLetters } = await this.readFeed(`&market=${marketId}`, () => false, this.options.backfillMaxPerMarket);
    const published = await this.publish(trades, deadLetters);
    this.state = { ...this.state, backfilled_markets: [...this.state.backfilled_markets, marketId] };
    this.checkpoint.write(this.state);
    this.options.health.succeeded(TRADES_SOURCE, published, deadLetters.length);
    return published;
  }

  private async readFeed(filter: string, isPastHorizon: (trade: TradeExecuted) => boolean, maxRecords = MAX_OFFSET + PAGE_SIZE) {
    const trades: TradeExecuted[] = [];
    const deadLetters: DeadLetter[] = [];
    const now = (this.options.clock ?? Date.now)();
    for (let offset = 0; offset <= MAX_OFFSET && offset < maxRecords; offset += PAGE_SIZE) {
      const limit = Math.min(PAGE_SIZE, maxRecords - offset);
      const { body, source } = await this.options.data.getJson<unknown>(`/trades?takerOnly=true&limit=${limit}&offset=${offset}${filter}`);
      if (!Array.isArray(body)) throw new Error(`${this.options.data.name}/trades: expected an array, got ${typeof body}`);
      let reachedHorizon = false;
      for (const raw of body) {
        const result = normalizeDataTrade(raw, source as Source, now);
        if (!result.ok) {
          deadLetters.push({
            stage: 'ingest',
            source,
            origin: `${this.options.data.name}/trades`,
            reason: result.reason,
            raw: JSON.stringify(raw),
            at_ms: now,
          });
          continue;
        }
        if (isPastHorizon(result.value)) reachedHorizon = true;
        else trades.push(result.value);
      }
      if (reachedHorizon || body.length < limit) break;
    }
    return { trades, deadLetters };
  }

  private async publish(trades: TradeExecuted[], deadLetters: DeadLetter[]): Promise<number> {
    await this.options.publisher.deadLetter(deadLetters);
    if (deadLetters.length > 0) this.options.logger.warn({ count: deadLetters.length }, 'malformed trades dead-lettered');
    // Oldest first, so each market's partition holds its trades in time order.
    const unique = [...new Map(trades.map((t) => [t.event_id, t])).values()].sort((a, b) => a.timestamp_ms - b.timestamp_ms);
    const published = await this.options.publisher.publish('trades', unique);
    this.options.onPublished?.(unique);
    return published;
  }

  private advanceCheckpoint(fresh: TradeExecuted[], overlapMs: number): void {
    if (fresh.length === 0) return;
    const newest = Math.max(this.state.newest_ms, ...fresh.map((t) => t.timestamp_ms));
    const keepFrom = newest - overlapMs;
    const recent = new Map(this.state.recent_ids.filter(([, ts]) => ts >= keepFrom));
    for (const trade of fresh) if (trade.timestamp_ms >= keepFrom) recent.set(trade.event_id, trade.timestamp_ms);
    this.state = { ...this.state, newest_ms: newest, recent_ids: [...recent.entries()] };
    this.checkpoint.write(this.state);
  }
}
