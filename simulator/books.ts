/**
 * CLOB order books, quoted around each market's price path. The YES book is generated; the NO book is
 * its mirror (a NO bid at p is a YES ask at 1 - p), as on Polymarket where both tokens share liquidity.
 *
 * A book's content is a function of (seed, market, price step, trade count), so it changes whenever
 * the price path moves to a new minute or a trade prints, and its `hash` (sha1 of the content, 40 hex
 * like upstream) changes with it. Levels are printed the way upstream prints them: bids ascending and
 * asks descending, so the best level of each side is the LAST element.
 */

import { createHash } from 'node:crypto';
import { createRng } from './prng.js';
import { decimalString } from './formats.js';
import type { SimulatorState } from './state.js';
import type { SimMarket } from './world-types.js';

export interface BookLevel {
  price: string;
  size: string;
}

export interface OrderBookSnapshot {
  market: string;
  asset_id: string;
  timestamp: string;
  hash: string;
  bids: BookLevel[];
  asks: BookLevel[];
  min_order_size: string;
  tick_size: string;
  neg_risk: boolean;
  last_trade_price: string;
}

interface TickLevel {
  ticks: number;
  size: number;
}

interface YesBook {
  versionKey: string;
  ticksPerUnit: number;
  /** Best first. */
  bids: TickLevel[];
  /** Best first. */
  asks: TickLevel[];
}

/** A token's printed levels and hash, valid while its market's YES book is the same object. */
interface PrintedBook {
  yes: YesBook;
  bids: BookLevel[];
  asks: BookLevel[];
  hash: string;
}

export class OrderBooks {
  private readonly cache = new Map<number, YesBook>();
  /** Per token: the WebSocket push asks every 250 ms for every subscribed token, mostly unchanged. */
  private readonly printed = new Map<string, PrintedBook>();

  constructor(private readonly state: SimulatorState) {}

  /** The book for a token, or null where upstream has none (unknown token, market not trading). */
  bookForToken(tokenId: string): OrderBookSnapshot | null {
    const ref = this.state.tokenById.get(tokenId);
    if (!ref || !this.state.isAcceptingOrders(ref.marketIndex)) return null;
    const market = this.state.world.markets[ref.marketIndex] as SimMarket;
    const yes = this.yesBook(market);
    const n = yes.ticksPerUnit;
    const decimals = n === 100 ? 2 : 3;
    const { bids, asks, hash } = this.print(tokenId, ref.outcomeIndex, yes);
    const last = this.state.lastTrade(market.index);
    const event = this.state.world.events[market.eventIndex];
    return {
      market: market.conditionId,
      asset_id: tokenId,
      timestamp: String(this.state.nowMs()),
      hash,
      bids,
      asks,
      min_order_size: String(market.orderMinSize),
      tick_size: String(market.tickSize),
      neg_risk: event?.negRisk ?? false,
      last_trade_price: last ? decimalString(last.outcomeIndex === ref.outcomeIndex ? last.price : 1 - last.price, decimals + 1) : '',
    };
  }

  /** The token's levels as upstream prints them and their hash; reprinted only when the YES book changed. */
  private print(tokenId: string, outcomeIndex: number, yes: YesBook): Omit<PrintedBook, 'yes'> {
    const kept = this.printed.get(tokenId);
    if (kept?.yes === yes) return kept;
    const n = yes.ticksPerUnit;
    // NO bids are YES asks seen from the other side, and vice versa.
    const bestFirstBids = outcomeIndex === 0 ? yes.bids : yes.asks.map((level) => ({ ticks: n - level.ticks, size: level.size }));
    const bestFirstAsks = outcomeIndex === 0 ? yes.asks : yes.bids.map((level) => ({ ticks: n - level.ticks, size: level.size }));
    const decimals = n === 100 ? 2 : 3;
    const print = (level: TickLevel): BookLevel => ({
      price: decimalString(level.ticks / n, decimals),
      size: decimalString(level.size, 2),
    });
    const bids = bestFirstBids.slice().reverse().map(print);
    const asks = bestFirstAsks.slice().reverse().map(print);
    const hash = createHash('sha1')
      .update(`${tokenId}|${JSON.stringify(bids)}|${JSON.stringify(asks)}`)
      .digest('hex');
    this.printed.set(tokenId, { yes, bids, asks, hash });
    return { bids, asks, hash };
  }

  /** USDC resting on the YES book (both sides), which Gamma reports as the market's liquidity. */
  liquidity(market: SimMarket): number {
    if (!this.state.isAcceptingOrders(market.index)) return 0;
    const yes = this.yesBook(market);
    const notional = (levels: TickLevel[]) => levels.reduce((sum, level) => sum + (level.ticks / yes.ticksPerUnit) * level.size, 0);
    return notional(yes.bids) + notional(yes.asks);
  }

  private yesBook(market: SimMarket): YesBook {
    const step = this.state.paths.stepIndex(this.state.nowMs());
    const tradeCount = this.state.tradesOfMarket(market.index).length;
    const versionKey = `${step}:${tradeCount}`;
    const cached = this.cache.get(market.index);
    if (cached?.versionKey === versionKey) return cached;

    const quote = this.state.quote(market.index);
    const rng = createRng(this.state.seed, 'book', market.index, step, tradeCount);
    const n = quote.ticksPerUnit;
    const levelSize = (depth: number) => {
      const raw = market.depthShares * rng.logNormal(1, 1) * (1 + depth * 0.12);
      return Math.max(market.orderMinSize, rng.chance(0.35) ? Math.round(raw) : Math.round(raw * 100) / 100);
    };
    const side = (startTicks: number, direction: 1 | -1): TickLevel[] => {
      const levels: TickLevel[] = [];
      const wanted = rng.int(10, 30);
      for (let ticks = startTicks; levels.length < wanted && ticks >= 1 && ticks <= n - 1; ) {
        levels.push({ ticks, size: levelSize(levels.length) });
        ticks += direction * (rng.chance(0.6) ? 1 : rng.int(2, 4));
      }
      return levels;
    };
    const book: YesBook = { versionKey, ticksPerUnit: n, bids: side(quote.bidTicks, -1), asks: side(quote.askTicks, 1) };
    this.cache.set(market.index, book);
    return book;
  }
}
