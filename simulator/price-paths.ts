/**
 * One YES-price random walk per market, one value per minute from the world's origin. Trades print
 * near it, books are quoted around it and /prices-history samples it, so all three agree.
 *
 * Each market's walk draws from its own named stream and is extended one step at a time, so the path
 * is the same however the simulated time is advanced. Near its end date the walk is pulled toward the
 * outcome that will win (prices converge as information arrives); after a resolution it sits at the
 * payout; after a close without resolution it stays frozen.
 */

import { createRng, type Rng } from './prng.js';
import type { SimMarket } from './world-types.js';

// Math functions bound once: inside Jest's vm sandbox every global lookup (Math, Infinity) is slow.
const { floor, max, min } = Math;
const NEVER = Number.POSITIVE_INFINITY;

export const PRICE_STEP_MS = 60_000;
/** Largest move in one step, so a single minute never jumps across the book. */
const MAX_STEP_MOVE = 0.04;

export interface Quote {
  /** Ticks per unit price: 100 for a 0.01 tick, 1000 for 0.001. */
  ticksPerUnit: number;
  bidTicks: number;
  askTicks: number;
}

/** A growable Float64Array: one allocation per doubling instead of boxed numbers or array copies. */
class PathBuffer {
  // Small at first: a large catalog has many markets whose walk is never extended.
  values = new Float64Array(4);
  length = 0;

  push(value: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }

  last(): number {
    return this.values[this.length - 1] as number;
  }
}

export class PricePaths {
  private readonly seed: number;
  private readonly paths: PathBuffer[];
  /** Created on first use: most markets of a large catalog never walk. */
  private readonly streams: Array<Rng | undefined>;

  constructor(
    seed: number,
    private readonly markets: readonly SimMarket[],
    readonly originMs: number,
  ) {
    this.paths = markets.map((market) => {
      const path = new PathBuffer();
      path.push(market.initialYesPrice);
      return path;
    });
    this.streams = new Array(markets.length);
    this.seed = seed;
  }

  stepIndex(ms: number): number {
    return max(0, floor((ms - this.originMs) / PRICE_STEP_MS));
  }

  stepStartMs(step: number): number {
    return this.originMs + step * PRICE_STEP_MS;
  }

  /** YES price (unrounded) in effect at `ms`. */
  yesPriceAt(marketIndex: number, ms: number): number {
    const market = this.markets[marketIndex] as SimMarket;
    // A market settled before the generated history has no walk: its price is its payout (or frozen at its start).
    if (market.closesAtMs !== null && market.closesAtMs <= this.originMs) return settledPrice(market, market.initialYesPrice);
    const step = this.stepIndex(ms);
    const path = this.paths[marketIndex] as PathBuffer;
    if (path.length <= step) this.extend(marketIndex, path, step);
    return path.values[step] as number;
  }

  /** Best bid / ask for the YES token at `ms`, on the market's tick grid, never crossed. */
  quoteAt(market: SimMarket, ms: number): Quote {
    const ticksPerUnit = market.tickSize === 0.01 ? 100 : 1000;
    const price = this.yesPriceAt(market.index, ms);
    const spread = market.spreadTicks;
    const bidTicks = min(ticksPerUnit - 1 - spread, max(1, floor(price * ticksPerUnit - spread / 2 + 0.5)));
    return { ticksPerUnit, bidTicks, askTicks: bidTicks + spread };
  }

  private extend(marketIndex: number, path: PathBuffer, toStep: number): void {
    const market = this.markets[marketIndex] as SimMarket;
    let stream = this.streams[marketIndex];
    if (!stream) {
      stream = createRng(this.seed, 'price-path', marketIndex);
      this.streams[marketIndex] = stream;
    }
    const floor = market.tickSize;
    const ceiling = 1 - market.tickSize;
    while (path.length <= toStep) {
      const previous = path.last();
      const atMs = this.stepStartMs(path.length);
      const shock = stream.normal() * market.volatilityPerMinute;
      if (market.closesAtMs !== null && atMs >= market.closesAtMs) {
        path.push(settledPrice(market, previous));
        continue;
      }
      const target = market.winningOutcome === 0 ? ceiling : floor;
      const remainingMs = market.closesAtMs === null ? NEVER : market.closesAtMs - atMs;
      // Information arrives as the end nears: the pull grows like 1/remaining time.
      const pull = min(0.35, (0.6 * PRICE_STEP_MS) / max(remainingMs, PRICE_STEP_MS));
      const move = max(-MAX_STEP_MOVE, min(MAX_STEP_MOVE, shock + (target - previous) * pull));
      path.push(min(ceiling, max(floor, previous + move)));
    }
  }
}

/** YES price once trading stopped: the payout when the close resolves it (0.5 for a void), else frozen. */
function settledPrice(market: SimMarket, frozen: number): number {
  if (!market.resolvesOnClose) return frozen;
  return market.voided ? 0.5 : market.winningOutcome === 0 ? 1 : 0;
}
