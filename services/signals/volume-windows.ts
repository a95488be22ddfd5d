/**
 * market.volume_spike detection (docs/WEBHOOKS.md): per market, taker volume (USDC, by trade time) in
 * minute buckets. A trade that brings the last `windowMs` of volume to at least `ratio` x the hourly
 * average of the `baselineMs` before that window, and to at least `minUsdc`, is a spike; the market is
 * then quiet for one window, so one surge is reported once.
 *
 * The buckets live in memory. A market first seen (after a start) has its baseline read from the
 * indexed trades (`seed`), never its current window: the sink may not have written the newest trades
 * yet, and counting them twice would invent spikes. So right after a restart a spike can be missed, not
 * made up. Trades older than the newest seen for their market (backfill) are ignored.
 */
import type { TradeExecuted } from '../events/types.js';

const MINUTE_MS = 60_000;

export interface VolumeSpike {
  market_id: string;
  market_title: string;
  window_volume_usdc: number;
  baseline_hourly_usdc: number;
  ratio: number;
  at_ms: number;
  trigger_id: string;
  source: TradeExecuted['source'];
}

interface MarketVolume {
  buckets: Map<number, number>;
  newestMs: number;
  quietUntilMs: number;
}

/** Indexed taker volume per market and minute in [fromMs, toMs) for the given markets (one query). */
export type BaselineSeed = (
  marketIds: string[],
  fromMs: number,
  toMs: number,
) => Promise<Array<[marketId: string, minuteMs: number, usdc: number]>>;

export class VolumeWindows {
  private readonly markets = new Map<string, MarketVolume>();

  constructor(
    private readonly settings: { windowMs: number; baselineMs: number; spikeRatio: number; minUsdc: number },
    private readonly seed: BaselineSeed = async () => [],
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Loads, in one query, the baselines of markets not seen yet whose first trade here is recent:
   * each market's buckets before its first trade's window. Older trades (a replay of history) build
   * their baselines from the replayed trades themselves.
   */
  async prepare(trades: TradeExecuted[]): Promise<void> {
    const horizon = this.clock() - this.settings.baselineMs - this.settings.windowMs;
    const firstAt = new Map<string, number>();
    for (const trade of trades) {
      if (this.markets.has(trade.market_id) || firstAt.has(trade.market_id)) continue;
      firstAt.set(trade.market_id, trade.timestamp_ms);
    }
    const ends = new Map([...firstAt.entries()].filter(([, at]) => at >= horizon).map(([id, at]) => [id, at - this.settings.windowMs]));
    const buckets = new Map<string, Map<number, number>>([...ends.keys()].map((id) => [id, new Map()]));
    if (ends.size > 0) {
      const to = Math.max(...ends.values());
      const from = Math.min(...ends.values()) - this.settings.baselineMs;
      for (const [marketId, minute, usdc] of await this.seed([...ends.keys()], from, to)) {
        const end = ends.get(marketId);
        if (end !== undefined && minute + 60_000 <= end && minute >= end - this.settings.baselineMs)
          buckets.get(marketId)!.set(minute, usdc);
      }
    }
    for (const id of firstAt.keys()) this.markets.set(id, { buckets: buckets.get(id) ?? new Map(), newestMs: 0, quietUntilMs: 0 });
  }

  snapshot(marketIds: Iterable<string>): Map<string, MarketVolume | undefined> {
    const copy = new Map<string, MarketVolume | undefined>();
    for (const id of marketIds) {
      const m = this.markets.get(id);
      copy.set(id, m ? { buckets: new Map(m.buckets), newestMs: m.newestMs, quietUntilMs: m.quietUntilMs } : undefined);
    }
    return copy;
  }

  restore(snapshot: Map<string, MarketVolume | undefined>): void {
    for (const [id, m] of snapshot) {
      if (m) this.markets.set(id, m);
      else this.markets.delete(id);
    }
  }

  /**
   * Adds the trade to its market's windows; the spike it makes, if any. A trade that decides no signal
   * (`live` false: a backfilled one, isLiveTrade) feeds the windows only: a spike it would make is not
   * reported, so it does not start the quiet window either (a live spike within it would go unreported).
   */
  observe(trade: TradeExecuted, live = true): VolumeSpike | null {
    let market = this.markets.get(trade.market_id);
    if (!market) {
      market = { buckets: new Map(), newestMs: 0, quietUntilMs: 0 };
      this.markets.set(trade.market_id, market);
    }
    const ts = trade.timestamp_ms;
    if (ts < market.newestMs) return null;
    market.newestMs = ts;
    const minute = Math.floor(ts / MINUTE_MS) * MINUTE_MS;
    market.buckets.set(minute, (market.buckets.get(minute) ?? 0) + trade.size_usdc);
    const windowStart = ts - this.settings.windowMs;
    const baselineStart = windowStart - this.settings.baselineMs;
    let windowSum = 0;
    let baselineSum = 0;
    // forEach, not for-of: an [at, usdc] entry array per bucket per trade was most of this part's garbage.
    const buckets = market.buckets;
    buckets.forEach((usdc, at) => {
      if (at < baselineStart - MINUTE_MS) buckets.delete(at);
      else if (at > windowStart) windowSum += usdc;
      else if (at >= baselineStart) baselineSum += usdc;
    });
    const hourly = (baselineSum / this.settings.baselineMs) * 3_600_000;
    const perWindowBaseline = (baselineSum / this.settings.baselineMs) * this.settings.windowMs;
    if (ts < market.quietUntilMs || windowSum < this.settings.minUsdc) return null;
    if (perWindowBaseline > 0 ? windowSum < this.settings.spikeRatio * perWindowBaseline : false) return null;
    // No baseline at all (a market that never traded before) is not a spike of anything.
    if (perWindowBaseline === 0 || !live) return null;
    market.quietUntilMs = ts + this.settings.windowMs;
    return {
      market_id: trade.market_id,
      market_title: trade.market_title,
      window_volume_usdc: Math.round(windowSum * 1e6) / 1e6,
      baseline_hourly_usdc: Math.round(hourly * 1e6) / 1e6,
      ratio: Math.round((windowSum / perWindowBaseline) * 100) / 100,
      at_ms: ts,
      trigger_id: trade.event_id,
      source: trade.source,
    };
  }
}
