/**
 * The trade tape: every taker fill in generation order (timestamps never decrease), indexed per
 * market with running notional sums so volume over any window is two binary searches.
 */

import type { SimTrade } from './trades.js';

// Bound once: inside Jest's vm sandbox every global lookup (Math, Infinity) is slow.
const { ceil } = Math;
const OPEN_END = Number.POSITIVE_INFINITY;

export class TradeTape {
  /** Oldest first; a trade's `sequence` is its index here. */
  readonly trades: SimTrade[] = [];
  private readonly indexesByMarket: number[][];
  /** USDC notional (size x price) per market, running total after each of its trades. */
  private readonly cumulativeNotional: number[][];

  constructor(marketCount: number) {
    this.indexesByMarket = Array.from({ length: marketCount }, () => []);
    this.cumulativeNotional = Array.from({ length: marketCount }, () => []);
  }

  append(fill: Omit<SimTrade, 'sequence'>): SimTrade {
    const trade: SimTrade = { sequence: this.trades.length, ...fill };
    this.trades.push(trade);
    const indexes = this.indexesByMarket[trade.marketIndex] as number[];
    const cumulative = this.cumulativeNotional[trade.marketIndex] as number[];
    indexes.push(trade.sequence);
    cumulative.push((cumulative[cumulative.length - 1] ?? 0) + trade.size * trade.price);
    return trade;
  }

  tradesOfMarket(marketIndex: number): readonly number[] {
    return this.indexesByMarket[marketIndex] ?? [];
  }

  lastTrade(marketIndex: number): SimTrade | undefined {
    const indexes = this.indexesByMarket[marketIndex] ?? [];
    const last = indexes[indexes.length - 1];
    return last === undefined ? undefined : this.trades[last];
  }

  /** Sum of size x price of fills with fromMs <= timestamp < toMs (timestamps are whole seconds). */
  volumeBetween(marketIndex: number, fromMs: number, toMs = OPEN_END): number {
    const indexes = this.indexesByMarket[marketIndex] ?? [];
    const cumulative = this.cumulativeNotional[marketIndex] ?? [];
    const first = this.firstAtOrAfter(indexes, fromMs);
    const end = toMs === OPEN_END ? indexes.length : this.firstAtOrAfter(indexes, toMs);
    if (end <= first) return 0;
    return (cumulative[end - 1] ?? 0) - (first > 0 ? (cumulative[first - 1] ?? 0) : 0);
  }

  totalVolume(marketIndex: number): number {
    const cumulative = this.cumulativeNotional[marketIndex] ?? [];
    return cumulative[cumulative.length - 1] ?? 0;
  }

  private firstAtOrAfter(indexes: readonly number[], ms: number): number {
    const second = ceil(ms / 1000);
    let low = 0;
    let high = indexes.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.trades[indexes[mid] as number] as SimTrade).timestamp < second) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
