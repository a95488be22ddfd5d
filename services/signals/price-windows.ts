/**
 * market.price_signal detection: per market, the YES prices of the last `windowMs` of trades (event
 * time). When the newest price differs from any price in the window by more than `thresholdPct`
 * (relative), a move is reported against the price farthest from it, and the window restarts at the
 * newest price so one move is reported once. Trades older than the newest seen for their market
 * (backfill) are ignored. The windows live in memory: after a restart they refill from new trades.
 */
import type { TradeExecuted } from '../events/types.js';
import type { PriceMove } from './payloads.js';

interface Point {
  ts: number;
  price: number;
}

const MAX_POINTS_PER_MARKET = 5_000;

export class PriceWindows {
  private readonly windows = new Map<string, Point[]>();

  constructor(
    private readonly windowMs: number,
    private readonly thresholdPct: number,
  ) {}

  /** Copies of the given markets' windows, so a batch that fails can be rolled back and redetected. */
  snapshot(marketIds: Iterable<string>): Map<string, Point[] | undefined> {
    const copy = new Map<string, Point[] | undefined>();
    for (const id of marketIds) copy.set(id, this.windows.get(id)?.slice());
    return copy;
  }

  restore(snapshot: Map<string, Point[] | undefined>): void {
    for (const [id, points] of snapshot) {
      if (points) this.windows.set(id, points);
      else this.windows.delete(id);
    }
  }

  observe(trade: TradeExecuted): PriceMove | null {
    const price = trade.yes_price;
    const ts = trade.timestamp_ms;
    let points = this.windows.get(trade.market_id);
    if (!points) {
      points = [];
      this.windows.set(trade.market_id, points);
    }
    const newest = points[points.length - 1];
    if (newest && ts < newest.ts) return null;
    while (points.length > 0 && (points[0]!.ts < ts - this.windowMs || points.length >= MAX_POINTS_PER_MARKET)) points.shift();

    let reference: Point | undefined;
    let biggest = 0;
    for (const point of points) {
      if (point.price <= 0) continue;
      const change = Math.abs(price - point.price) / point.price;
      if (change > biggest) {
        biggest = change;
        reference = point;
      }
    }
    // Rounded to 1e-6 % so a move of exactly the threshold is not a signal by floating-point noise.
    if (reference && Math.round(biggest * 1e8) / 1e6 > this.thresholdPct) {
      points.length = 0;
      points.push({ ts, price });
      return {
        market_id: trade.market_id,
        market_title: trade.market_title,
        yes_price: price,
        prev_price: reference.price,
        change_pct: Math.round(((price - reference.price) / reference.price) * 10_000) / 100,
        direction: price > reference.price ? 'up' : 'down',
        at_ms: ts,
        trigger_id: trade.event_id,
        source: trade.source,
      };
    }
    points.push({ ts, price });
    return null;
  }
}
