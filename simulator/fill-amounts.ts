/**
 * What a fill moves on chain, in micro-units (USDC and outcome shares both have 6 decimals): the one
 * place the simulator turns a Data API trade (size, price as JSON numbers) into the integers its
 * ledger, its chain and its truth all use, so the three can never disagree by a rounding.
 *
 * Taker fees (makers pay none):
 * - CTF Exchange v1 (Polymarket/ctf-exchange, CalculatorHelper.calculateFee, charged to the taker order
 *   in _matchOrders): with p = collateral / shares of the fill in 18 decimals, a BUY pays
 *   rate x min(p, 1 - p) x shares / p in the shares it receives, a SELL pays
 *   rate x min(p, 1 - p) x shares in the collateral it receives; both rounded down.
 * - CTF Exchange v2: 0.02 x shares x p x (1 - p) in collateral, rounded down.
 * - A legacy AMM (FixedProductMarketMaker, `ammFillAmounts`): the pool's fee, 2 % of the collateral
 *   before fees, rounded down, in collateral: a buy invests collateral + fee, a sell returns collateral - fee.
 */
/** A taker's side; here, below trades.ts, because fill amounts depend on it and trades on the ledger. */
export type Side = 'BUY' | 'SELL';

/** A Data API number (shares or USDC) in the chain's micro-units. */
export const micro = (value: number): bigint => BigInt(Math.round(value * 1e6));

/** Micro-units as the Data API's plain JSON number. */
export const fromMicro = (value: bigint): number => Number(value) / 1e6;

export const MICRO_PER_UNIT = 1_000_000n;

/** The v1 taker orders' fee rate, basis points (the exchange's maximum is far above it). */
const V1_TAKER_FEE_BPS = 200n;
const ONE = 10n ** 18n;
const BPS_DIVISOR = 10_000n;

export interface FillAmounts {
  shares: bigint;
  usdc: bigint;
  /** The taker's fee, in `takerFeeAsset`. */
  takerFee: bigint;
  /** v1 buys pay in the shares they receive; everything else in collateral. */
  takerFeeAsset: 'usdc' | 'shares';
}

/** CalculatorHelper.calculateFee for a taker fill of `shares` against `usdc`. */
function v1TakerFee(side: Side, shares: bigint, usdc: bigint, rateBps = V1_TAKER_FEE_BPS): bigint {
  if (rateBps === 0n || shares === 0n) return 0n;
  const price = (usdc * ONE) / shares;
  if (price === 0n || price > ONE) return 0n;
  const lesser = price < ONE - price ? price : ONE - price;
  return side === 'BUY' ? (rateBps * lesser * shares) / (price * BPS_DIVISOR) : (rateBps * lesser * shares) / (BPS_DIVISOR * ONE);
}

export function fillAmounts(trade: { size: number; price: number; side: Side }, v2: boolean): FillAmounts {
  const shares = micro(trade.size);
  const usdc = micro(trade.size * trade.price);
  if (!v2) {
    return { shares, usdc, takerFee: v1TakerFee(trade.side, shares, usdc), takerFeeAsset: trade.side === 'BUY' ? 'shares' : 'usdc' };
  }
  const takerFee = shares > 0n ? (2n * usdc * (shares - usdc)) / (100n * shares) : 0n;
  return { shares, usdc, takerFee, takerFeeAsset: 'usdc' };
}

/** The simulated pools' fee, basis points of the collateral before fees (FixedProductMarketMaker's `fee`, 2 %). */
const AMM_FEE_BPS = 200n;

/** A trade against a legacy AMM: the same shares and collateral as the tape's numbers, the pool's fee in collateral. */
export function ammFillAmounts(trade: { size: number; price: number }): FillAmounts {
  const shares = micro(trade.size);
  const usdc = micro(trade.size * trade.price);
  return { shares, usdc, takerFee: (usdc * AMM_FEE_BPS) / BPS_DIVISOR, takerFeeAsset: 'usdc' };
}
