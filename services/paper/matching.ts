/**
 * The matching function of paper trading (pure, exact): an order walks the opposite side of a book
 * level by level, best price first - a buy takes asks from the lowest, a sell hits bids from the
 * highest - taking min(level size, what is left) at each level's own price, and stops at its limit
 * price (none for a market order) or when the side runs out. Amounts are micro-units (10^-6 USDC,
 * 10^-6 shares); a fill's notional is size x price rounded half up to one micro-USDC.
 * A resting order, later, fills as the maker at its own limit price (restingFill*).
 */
import { MICRO, minBig, mulDiv } from '../shared/decimal.js';

export type Side = 'buy' | 'sell';

export interface Level {
  priceMicros: bigint;
  sizeMicros: bigint;
}

export interface BookFill {
  /** 1 = the best level. */
  level: number;
  priceMicros: bigint;
  sizeMicros: bigint;
  notionalMicros: bigint;
}

export interface MatchResult {
  fills: BookFill[];
  filledMicros: bigint;
  notionalMicros: bigint;
  remainingMicros: bigint;
}

export const notionalOf = (sizeMicros: bigint, priceMicros: bigint): bigint => mulDiv(sizeMicros, priceMicros, MICRO);

/** `levels` is the side the order takes from (asks for a buy, bids for a sell), best first. */
export function matchAgainstBook(side: Side, sizeMicros: bigint, limitMicros: bigint | null, levels: readonly Level[]): MatchResult {
  const fills: BookFill[] = [];
  let remaining = sizeMicros;
  let notional = 0n;
  for (let i = 0; i < levels.length && remaining > 0n; i++) {
    const level = levels[i]!;
    if (level.sizeMicros <= 0n) continue;
    if (limitMicros !== null && (side === 'buy' ? level.priceMicros > limitMicros : level.priceMicros < limitMicros)) break;
    const size = minBig(level.sizeMicros, remaining);
    const fillNotional = notionalOf(size, level.priceMicros);
    fills.push({ level: i + 1, priceMicros: level.priceMicros, sizeMicros: size, notionalMicros: fillNotional });
    remaining -= size;
    notional += fillNotional;
  }
  return { fills, filledMicros: sizeMicros - remaining, notionalMicros: notional, remainingMicros: remaining };
}

/**
 * A resting limit order against a later book: the liquidity on the opposite side at or through its
 * price (asks <= limit for a buy, bids >= limit for a sell) would have traded with it, as the maker,
 * at its own price. Returns the shares that fill (0 when the book does not cross it).
 */
export function restingFillFromBook(side: Side, remainingMicros: bigint, limitMicros: bigint, opposite: readonly Level[]): bigint {
  let crossing = 0n;
  for (const level of opposite) {
    if (side === 'buy' ? level.priceMicros > limitMicros : level.priceMicros < limitMicros) continue;
    crossing += level.sizeMicros;
  }
  return minBig(remainingMicros, crossing);
}

/**
 * A resting limit order against a later trade in its token: a print strictly through its price (below
 * a resting buy, above a resting sell) means someone traded worse than it offered, so it fills first,
 * up to the trade's size, at its own price. A print exactly at the price does not fill it: its place
 * in the queue at that level is unknown, and assuming the worst is the honest paper fill.
 */
export function restingFillFromTrade(side: Side, remainingMicros: bigint, limitMicros: bigint, trade: Level): bigint {
  const through = side === 'buy' ? trade.priceMicros < limitMicros : trade.priceMicros > limitMicros;
  return through ? minBig(remainingMicros, trade.sizeMicros) : 0n;
}
