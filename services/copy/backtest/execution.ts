/**
 * How a simulated order fills (pure, exact, micro-units). The follower is always the taker: it
 * trades at once against what is there.
 *
 * - Where order-book history has a book of the token at the order's time (the latest snapshot at or
 *   before it, at most BOOK_MAX_AGE_MS old), the order walks that book with paper trading's matcher
 *   (services/paper/matching.ts): a buy of N USDC takes asks from the lowest until N is spent, a
 *   sell of S shares hits bids from the highest. What the book cannot fill stays unfilled.
 * - Elsewhere (no book indexed then: history older than the book retention, or a token never
 *   polled) it fills at the reference price (the trade that triggered it) moved against the taker
 *   by the impact model: half a cent of spread plus 0.0001 per 100 USDC of notional
 *   (IMPACT_HALF_SPREAD_MICROS + notional in USDC x IMPACT_MICROS_PER_USDC), kept inside [0.001, 0.999].
 *
 * Fees: Polymarket's taker fee on every fill (services/fees/taker-fee.ts, the market's schedule).
 * Slippage paid: against the reference price, buys (notional - shares x reference), sells
 * (shares x reference - notional); negative when the fill was better.
 */
import { takerFeeMicros, type FeeSchedule } from '../../fees/taker-fee.js';
import { type Level, matchAgainstBook, notionalOf } from '../../paper/matching.js';
import { divide, MICRO, maxBig, minBig } from '../../shared/decimal.js';

export const BOOK_MAX_AGE_MS = 10 * 60_000;
const IMPACT_HALF_SPREAD_MICROS = 5_000n;
const IMPACT_MICROS_PER_USDC = 1n;
const MIN_PRICE = 1_000n;
const MAX_PRICE = 999_000n;

export interface BookAt {
  atMs: number;
  /** Best first: asks lowest first, bids highest first. */
  asks: Level[];
  bids: Level[];
}

interface OrderFill {
  level: number | null;
  priceMicros: bigint;
  sharesMicros: bigint;
  notionalMicros: bigint;
  feeMicros: bigint;
}

export interface Execution {
  basis: 'book' | 'trade_impact';
  bookAtMs: number | null;
  fills: OrderFill[];
  sharesMicros: bigint;
  notionalMicros: bigint;
  feeMicros: bigint;
  slippageMicros: bigint;
}

export type OrderSize = { side: 'buy'; notionalMicros: bigint } | { side: 'sell'; sharesMicros: bigint };

/** Shares a buy of `notional` takes from `asks` (best first), spending at most the notional. */
function sharesForNotional(asks: readonly Level[], notionalMicros: bigint): bigint {
  let left = notionalMicros;
  let shares = 0n;
  for (const level of asks) {
    if (left <= 0n) break;
    if (level.sizeMicros <= 0n || level.priceMicros <= 0n) continue;
    const all = notionalOf(level.sizeMicros, level.priceMicros);
    if (all <= left) {
      shares += level.sizeMicros;
      left -= all;
    } else {
      // The largest share count whose notional (rounded half up) stays within what is left.
      let take = divide(left * MICRO, level.priceMicros, 'floor');
      while (take > 0n && notionalOf(take, level.priceMicros) > left) take -= 1n;
      shares += take;
      left = 0n;
    }
  }
  return shares;
}

export function execute(order: OrderSize, referenceMicros: bigint, book: BookAt | null, fee: FeeSchedule): Execution {
  const fills = book ? fromBook(order, book) : fromImpact(order, referenceMicros);
  const withFees = fills.map((f) => ({ ...f, feeMicros: takerFeeMicros(f.sharesMicros, f.priceMicros, fee) }));
  const shares = withFees.reduce((s, f) => s + f.sharesMicros, 0n);
  const notional = withFees.reduce((s, f) => s + f.notionalMicros, 0n);
  const atReference = notionalOf(shares, referenceMicros);
  return {
    basis: book ? 'book' : 'trade_impact',
    bookAtMs: book?.atMs ?? null,
    fills: withFees,
    sharesMicros: shares,
    notionalMicros: notional,
    feeMicros: withFees.reduce((s, f) => s + f.feeMicros, 0n),
    slippageMicros: order.side === 'buy' ? notional - atReference : atReference - notional,
  };
}

function fromBook(order: OrderSize, book: BookAt): Array<Omit<OrderFill, 'feeMicros'>> {
  const levels = order.side === 'buy' ? book.asks : book.bids;
  const shares = order.side === 'buy' ? sharesForNotional(levels, order.notionalMicros) : order.sharesMicros;
  if (shares <= 0n) return [];
  return matchAgainstBook(order.side, shares, null, levels).fills.map((f) => ({
    level: f.level,
    priceMicros: f.priceMicros,
    sharesMicros: f.sizeMicros,
    notionalMicros: f.notionalMicros,
  }));
}

function impactPrice(side: 'buy' | 'sell', referenceMicros: bigint, notionalMicros: bigint): bigint {
  const impact = IMPACT_HALF_SPREAD_MICROS + (notionalMicros * IMPACT_MICROS_PER_USDC) / MICRO;
  const price = side === 'buy' ? referenceMicros + impact : referenceMicros - impact;
  return maxBig(MIN_PRICE, minBig(MAX_PRICE, price));
}

function fromImpact(order: OrderSize, referenceMicros: bigint): Array<Omit<OrderFill, 'feeMicros'>> {
  if (order.side === 'buy') {
    const price = impactPrice('buy', referenceMicros, order.notionalMicros);
    const shares = sharesForNotional([{ priceMicros: price, sizeMicros: 10n ** 18n }], order.notionalMicros);
    return shares > 0n ? [{ level: null, priceMicros: price, sharesMicros: shares, notionalMicros: notionalOf(shares, price) }] : [];
  }
  const price = impactPrice('sell', referenceMicros, notionalOf(order.sharesMicros, referenceMicros));
  return order.sharesMicros > 0n
    ? [{ level: null, priceMicros: price, sharesMicros: order.sharesMicros, notionalMicros: notionalOf(order.sharesMicros, price) }]
    : [];
}
