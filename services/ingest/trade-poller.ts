/**
 * Polls the Data API trade feed (taker fills, newest first) and publishes every trade not seen
 * before. Trades can be indexed upstream a little after their timestamp, so each poll re-reads an
 * overlap window behind the newest trade it has and skips the ids it already published there.
 * The checkpoint (newest time + ids inside the overlap) makes a restart resume where it stopped.
 * Every publish leaves out the trades the log holds already (`held`), so the market history reads
 * and gap backfills below, which overlap the live poll, and a poll repeated after a crash add no
 * second record of a trade.
 *
 * Gaps: the feed pages only to offset 10,000, so a poll can stop before reaching its checkpoint
 * (more trades since the last poll than that, e.g. after downtime or a burst). The window between
 * the checkpoint and the oldest trade read is then a gap: logged, the source marked degraded, and
 * backfilled per market (`/trades?market=`, newest first back to the gap's start), a bounded number
 * of markets per poll, the remaining list kept in the checkpoint so a restart carries on.
 */
import type { Logger } from '../logger.js';
import type { DeadLetter, MarketUpserted, Source, TradeExecuted } from '../events/types.js';
import { isoOrNull } from '../shared/time.js';
import { CheckpointFile } from './checkpoint.js';
import { normalizeDataTrade } from './normalize-trade.js';
import type { EventPublisher } from '../events/publisher.js';
import { FRESHNESS_TARGETS_MS, type SourceHealth } from './source-health.js';
import type { UpstreamClient } from './upstream-client.js';

const PAGE_SIZE = 500;
// The Data API refuses offsets above 10,000.
const MAX_OFFSET = 10_000;
const TRADES_SOURCE = 'data.trades';

export interface TradeGap {
  /** Trades with from_ms <= timestamp <= to_ms may be missing. */
  from_ms: number;
  to_ms: number;
  /** Markets still to read for this window. */
  markets: string[];
}

export interface TradeCheckpoint {
  newest_ms: number;
  recent_ids: Array<[string, number]>;
  backfilled_markets: string[];
  /** Windows the feed could not be read back through, oldest first (absent in old checkpoints). */
  gaps?: TradeGap[];
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
  /** Markets that may have traded in a gap (the open markets; busiest are read first). */
  markets?: () => readonly MarketUpserted[];
  /** Markets read per poll while a gap is being backfilled (default 50). */
  gapMarketsPerPoll?: number;
  /**
   * The trade ids among these the log holds already (services/eventlog/repeat-index.ts): a market's
   * history and a gap's backfill read trades the live poll published, and the live poll can meet a
   * trade they published; only the others are published.
   */
  held?: (trades: readonly TradeExecuted[]) => Promise<ReadonlySet<string>>;
}

export interface TradePollResult {
  published: number;
  deadLettered: number;
  /** A gap was found by this poll. */
  gap: boolean;
  /** Trades recovered by gap backfill in this poll. */
  backfilled: number;
}

export class TradePoller {
  private readonly checkpoint: CheckpointFile<TradeCheckpoint>;
  private state: TradeCheckpoint;
  private publishing: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: TradePollerOptions) {
    this.checkpoint = new CheckpointFile(options.checkpointFile, { newest_ms: 0, recent_ids: [], backfilled_markets: [] });
    this.state = this.checkpoint.read();
    options.health.register(TRADES_SOURCE, FRESHNESS_TARGETS_MS.trades);
  }

  get backfilledMarkets(): ReadonlySet<string> {
    return new Set(this.state.backfilled_markets);
  }

  get gaps(): readonly TradeGap[] {
    return this.state.gaps ?? [];
  }

  /** One pass over the global feed, from the newest trade back to the overlap window (or the offset cap); then gap backfill. */
  async pollOnce(): Promise<TradePollResult> {
    try {
      const overlapMs = this.options.overlapMs ?? 120_000;
      const horizon = this.state.newest_ms - overlapMs;
      const known = new Set(this.state.recent_ids.map(([id]) => id));
      const { trades, deadLetters, reachedHorizon, oldestMs } = await this.readFeed('', (trade) => trade.timestamp_ms < horizon);
      const fresh = trades.filter((t) => t.timestamp_ms >= horizon && !known.has(t.event_id));
      const published = await this.publish(fresh, deadLetters);
      // The first poll ever has no checkpoint to reach: older history is the backfill's.
      const gap = !reachedHorizon && this.state.newest_ms > 0 && oldestMs !== null;
      if (gap) this.recordGap(horizon, oldestMs, trades);
      this.advanceCheckpoint(fresh, overlapMs);
      const backfilled = await this.backfillGaps();
      this.options.health.succeeded(TRADES_SOURCE, published + backfilled, deadLetters.length);
      return { published, deadLettered: deadLetters.length, gap, backfilled };
    } catch (error) {
      this.options.health.failed(TRADES_SOURCE, error);
      throw error;
    }
  }

  private recordGap(fromMs: number, toMs: number, seen: readonly TradeExecuted[]): void {
    // Markets seen in the capped read first (they were busy), then the open markets that traded in
    // the last 24 hours, busiest first (one without 24h volume has no trades in a recent window).
    const open = [...(this.options.markets?.() ?? [])]
      .filter((m) => m.volume_24h_usdc > 0)
      .sort((a, b) => b.volume_24h_usdc - a.volume_24h_usdc)
      .map((m) => m.market_id);
    const markets = [...new Set([...seen.map((t) => t.market_id), ...open])];
    const gaps = [...(this.state.gaps ?? []), { from_ms: fromMs, to_ms: toMs, markets }];
    this.state = { ...this.state, gaps };
    this.checkpoint.write(this.state);
    const reason = `trade feed could not be read back to the checkpoint: trades between ${isoOrNull(fromMs)} and ${isoOrNull(toMs)} are being backfilled market by market`;
    this.options.logger.warn({ from: isoOrNull(fromMs), to: isoOrNull(toMs), markets: markets.length }, 'trade gap detected');
    this.options.health.degraded(TRADES_SOURCE, reason);
  }

  /** Reads up to gapMarketsPerPoll markets of the oldest gaps; clears the degraded mark when none are left. */
  private async backfillGaps(): Promise<number> {
    let budget = this.options.gapMarketsPerPoll ?? 50;
    let published = 0;
    while (budget > 0 && (this.state.gaps?.length ?? 0) > 0) {
      const [gap, ...rest] = this.state.gaps!;
      const marketId = gap!.markets[0];
      if (marketId === undefined) {
        this.state = { ...this.state, gaps: rest };
        this.checkpoint.write(this.state);
        this.options.logger.info({ from: isoOrNull(gap!.from_ms), to: isoOrNull(gap!.to_ms) }, 'trade gap backfilled');
        continue;
      }
      const { trades, deadLetters, reachedHorizon } = await this.readFeed(`&market=${marketId}`, (t) => t.timestamp_ms < gap!.from_ms);
      if (!reachedHorizon)
        this.options.logger.error(
          { market: marketId, from: isoOrNull(gap!.from_ms) },
          'trade gap in one market is deeper than the Data API pages; the oldest part cannot be recovered from it',
        );
      published += await this.publish(
        trades.filter((t) => t.timestamp_ms <= gap!.to_ms),
        deadLetters,
      );
      this.state = { ...this.state, gaps: [{ ...gap!, markets: gap!.markets.slice(1) }, ...rest] };
      budget -= 1;
    }
    // Once per poll: a crash re-reads at most this poll's markets (their trades are deduplicated).
    if (budget < (this.options.gapMarketsPerPoll ?? 50)) this.checkpoint.write(this.state);
    if ((this.state.gaps?.length ?? 0) === 0 && this.options.health.isDegraded(TRADES_SOURCE)) {
      this.options.health.recovered(TRADES_SOURCE);
    } else if ((this.state.gaps?.length ?? 0) > 0) {
      const left = this.state.gaps!.reduce((sum, g) => sum + g.markets.length, 0);
      this.options.health.degraded(
        TRADES_SOURCE,
        `trade gap since ${isoOrNull(this.state.gaps![0]!.from_ms)} being backfilled market by market (${left} markets left)`,
      );
    }
    return published;
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

  /**
   * Pages `/trades` newest first until a trade past the horizon (reachedHorizon), the end of the feed
   * (also reachedHorizon: nothing older exists), or the offset cap / maxRecords (not reached).
   */
  private async readFeed(filter: string, isPastHorizon: (trade: TradeExecuted) => boolean, maxRecords = MAX_OFFSET + PAGE_SIZE) {
    const trades: TradeExecuted[] = [];
    const deadLetters: DeadLetter[] = [];
    const now = (this.options.clock ?? Date.now)();
    let reachedHorizon = false;
    let oldestMs: number | null = null;
    for (let offset = 0; offset <= MAX_OFFSET && offset < maxRecords; offset += PAGE_SIZE) {
      const limit = Math.min(PAGE_SIZE, maxRecords - offset);
      const { body, source } = await this.options.data.getJson<unknown>(`/trades?takerOnly=true&limit=${limit}&offset=${offset}${filter}`);
      if (!Array.isArray(body)) throw new Error(`${this.options.data.name}/trades: expected an array, got ${typeof body}`);
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
        else {
          trades.push(result.value);
          oldestMs = oldestMs === null ? result.value.timestamp_ms : Math.min(oldestMs, result.value.timestamp_ms);
        }
      }
      if (reachedHorizon) break;
      if (body.length < limit) {
        // The feed ended: everything there is was read.
        reachedHorizon = true;
        break;
      }
    }
    return { trades, deadLetters, reachedHorizon, oldestMs };
  }

  private async publish(trades: TradeExecuted[], deadLetters: DeadLetter[]): Promise<number> {
    await this.options.publisher.deadLetter(deadLetters);
    if (deadLetters.length > 0) this.options.logger.warn({ count: deadLetters.length }, 'malformed trades dead-lettered');
    // Oldest first, so each market's partition holds its trades in time order.
    const unique = [...new Map(trades.map((t) => [t.event_id, t])).values()].sort((a, b) => a.timestamp_ms - b.timestamp_ms);
    // One publish at a time (the live poll and a market's history read run side by side): what the log
    // holds is asked after the one before appended, so both cannot append the same trade.
    const turn = this.publishing.then(() => this.publishUnheld(unique));
    this.publishing = turn.catch(() => undefined);
    return turn;
  }

  private async publishUnheld(unique: TradeExecuted[]): Promise<number> {
    const held = unique.length > 0 ? await this.options.held?.(unique) : undefined;
    const fresh = held ? unique.filter((t) => !held.has(t.event_id)) : unique;
    const published = await this.options.publisher.publish('trades', fresh);
    this.options.onPublished?.(fresh);
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
