/**
 * Polymarket's platform (taker) fee for a fill, as the official client computes it
 * (clob-client-v2 src/fees: platformFeeRate = rate x (p x (1 - p))^exponent, fee = shares x that):
 *
 *   fee_usdc = shares x rate x (p x (1 - p))^exponent
 *
 * with rate and exponent from the market's Gamma `feeSchedule` (the legacy makerBaseFee/takerBaseFee
 * are not the effective rate). Makers pay nothing (`takerOnly`); a market with `feesEnabled: false`
 * pays nothing. A market with fees enabled but no schedule is charged the configured fallback
 * schedule and says so (`basis: 'fallback'`). The result is exact, rounded half up to one micro-USDC
 * (the venue's own rounding is not published). See docs/SANDBOX.md.
 */
import { divide, MICRO, parseScaled } from '../shared/decimal.js';

export interface FeeSchedule {
  /** Rate in micro-units (0.07 -> 70000). */
  rateMicros: bigint;
  exponent: number;
  basis: 'market' | 'fallback' | 'none';
}

export interface MarketFeeFields {
  fees_enabled: boolean;
  fee_rate: number | null;
  fee_exponent: number | null;
  fee_taker_only: boolean | null;
}

export const NO_FEE: FeeSchedule = { rateMicros: 0n, exponent: 1, basis: 'none' };

/** The schedule that applies to a taker fill in this market. */
export function feeScheduleOf(market: MarketFeeFields, fallback: { rate: number; exponent: number }): FeeSchedule {
  if (!market.fees_enabled) return NO_FEE;
  const rate = market.fee_rate === null ? null : parseScaled(market.fee_rate);
  const exponent = market.fee_exponent;
  if (rate !== null && rate >= 0n && exponent !== null && Number.isInteger(exponent) && exponent >= 0 && exponent <= 8) {
    return { rateMicros: rate, exponent, basis: 'market' };
  }
  return { rateMicros: parseScaled(fallback.rate) ?? 0n, exponent: fallback.exponent, basis: 'fallback' };
}

/** fee in micro-USDC for `sharesMicros` filled at `priceMicros` (both 10^-6 units). */
export function takerFeeMicros(sharesMicros: bigint, priceMicros: bigint, schedule: FeeSchedule): bigint {
  if (schedule.rateMicros === 0n || sharesMicros <= 0n) return 0n;
  const variance = priceMicros * (MICRO - priceMicros); // p(1-p) at scale 10^12
  const scaleOfVariance = MICRO * MICRO;
  const numerator = sharesMicros * schedule.rateMicros * variance ** BigInt(schedule.exponent);
  const denominator = MICRO * scaleOfVariance ** BigInt(schedule.exponent);
  return divide(numerator, denominator, 'half-up');
}
