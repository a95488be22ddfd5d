/**
 * What a fill moves on chain, in micro-units (USDC and outcome shares both have 6 decimals): the one
 * place the simulator turns a Data API trade (size, price as JSON numbers) into the integers its
 * ledger, its chain and its truth all use, so the three can never disagree by a rounding.
 *
 * Taker fees (makers pay none): v1 none; v2 0.02 x shares x p x (1 - p) in collateral, rounded down.
 */
import type { Side } from './trades.js';

/** A Data API number (shares or USDC) in the chain's micro-units. */
export const micro = (value: number): bigint => BigInt(Math.round(value * 1e6));

/** Micro-units as the Data API's plain JSON number. */
export const fromMicro = (value: bigint): number => Number(value) / 1e6;

export const MICRO_PER_UNIT = 1_000_000n;

export interface FillAmounts {
  shares: bigint;
  usdc: bigint;
  /** The taker's fee, in collateral. */
  takerFee: bigint;
}

export function fillAmounts(trade: { size: number; price: number; side: Side }, v2: boolean): FillAmounts {
  const shares = micro(trade.size);
  const usdc = micro(trade.size * trade.price);
  // p = usdc / shares, so 0.02 x shares x p x (1 - p) = 2 x usdc x (shares - usdc) / (100 x shares).
  const takerFee = v2 && shares > 0n ? (2n * usdc * (shares - usdc)) / (100n * shares) : 0n;
  return { shares, usdc, takerFee };
}
