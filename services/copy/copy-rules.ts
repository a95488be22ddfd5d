/**
 * What a copy subscription does with one leader fill (pure, exact, micro-units): the sizing rule
 * gives the child's notional, the risk limits clip or block it. Checks run in this order and the
 * first that fails is the `risk.blocked` reason (docs/COPY.md):
 *
 *   stale_fill            the fill is older than the engine's maximum age when it reaches the engine
 *   market_not_allowed    allowed_markets is set and does not name the market
 *   category_not_allowed  allowed_categories is set and does not name the market's category
 *   max_price             a buy above max_price (sells are never blocked by price: they reduce risk)
 *   no_position           a sell while the subscription holds no copied shares of that token
 *   below_min_order       the child is under min_order_usdc after sizing and clipping
 *   max_daily_notional    a buy that would take today's (UTC) copied buy notional past the limit
 *
 * Sizing: fixed = `usdc` per leader fill; proportional = leader notional x `ratio`; capped = the
 * proportional size, at most `cap_usdc`. The child is then clipped to max_per_trade_usdc, and a sell
 * to what the subscription holds (its copied shares at the leader's price): copying a leader's exit
 * never sells shares the follower was not copied into. Sells are never blocked by max_price or
 * max_daily_notional: they reduce the follower's exposure.
 */
import { MICRO, minBig, mulDiv } from '../shared/decimal.js';
import type { LeaderFill } from './leader-fill.js';

export type SizingRule =
  | { rule: 'fixed'; usdcMicros: bigint }
  | { rule: 'proportional'; ratioMicros: bigint }
  | { rule: 'capped'; ratioMicros: bigint; capMicros: bigint };

export interface RiskLimits {
  maxPerTradeMicros: bigint | null;
  maxDailyNotionalMicros: bigint | null;
  /** Condition ids (lower-case); empty = every market. */
  allowedMarkets: string[];
  /** Categories (lower-case); empty = every category. */
  allowedCategories: string[];
  maxPriceMicros: bigint | null;
  minOrderMicros: bigint;
}

type BlockReason =
  | 'stale_fill'
  | 'market_not_allowed'
  | 'category_not_allowed'
  | 'max_price'
  | 'no_position'
  | 'below_min_order'
  | 'max_daily_notional';

export type CopyDecision =
  | { kind: 'intent'; status: 'submitted' | 'dry_run'; childMicros: bigint; childSharesMicros: bigint }
  | { kind: 'blocked'; reason: BlockReason };

export interface DecisionInput {
  fill: Pick<LeaderFill, 'marketId' | 'side' | 'priceMicros' | 'usdcMicros' | 'timestampMs'>;
  /** The market's category (lower-case), '' when unknown. */
  category: string;
  sizing: SizingRule;
  limits: RiskLimits;
  dryRun: boolean;
  /** Copied buy notional of this subscription in the current UTC day (submitted and dry-run intents). */
  spentTodayMicros: bigint;
  /** Copied shares of this token the subscription holds (copied buys - copied sells). */
  heldSharesMicros: bigint;
  nowMs: number;
  maxFillAgeMs: number;
}

export function sizedNotional(rule: SizingRule, leaderUsdcMicros: bigint): bigint {
  switch (rule.rule) {
    case 'fixed':
      return rule.usdcMicros;
    case 'proportional':
      return mulDiv(leaderUsdcMicros, rule.ratioMicros, MICRO, 'floor');
    case 'capped':
      return minBig(mulDiv(leaderUsdcMicros, rule.ratioMicros, MICRO, 'floor'), rule.capMicros);
  }
}

export function decideCopy(input: DecisionInput): CopyDecision {
  const { fill, limits } = input;
  const blocked = (reason: BlockReason): CopyDecision => ({ kind: 'blocked', reason });
  if (input.nowMs - fill.timestampMs > input.maxFillAgeMs) return blocked('stale_fill');
  if (limits.allowedMarkets.length > 0 && !limits.allowedMarkets.includes(fill.marketId.toLowerCase()))
    return blocked('market_not_allowed');
  if (limits.allowedCategories.length > 0 && !limits.allowedCategories.includes(input.category)) return blocked('category_not_allowed');
  if (fill.side === 'buy' && limits.maxPriceMicros !== null && fill.priceMicros > limits.maxPriceMicros) return blocked('max_price');
  if (fill.side === 'sell' && input.heldSharesMicros <= 0n) return blocked('no_position');
  let child = sizedNotional(input.sizing, fill.usdcMicros);
  if (limits.maxPerTradeMicros !== null) child = minBig(child, limits.maxPerTradeMicros);
  if (fill.side === 'sell') child = minBig(child, mulDiv(input.heldSharesMicros, fill.priceMicros, MICRO, 'floor'));
  if (child < limits.minOrderMicros || child <= 0n) return blocked('below_min_order');
  if (fill.side === 'buy' && limits.maxDailyNotionalMicros !== null && input.spentTodayMicros + child > limits.maxDailyNotionalMicros)
    return blocked('max_daily_notional');
  let shares = fill.priceMicros > 0n ? mulDiv(child, MICRO, fill.priceMicros, 'floor') : 0n;
  if (fill.side === 'sell') shares = minBig(shares, input.heldSharesMicros);
  return { kind: 'intent', status: input.dryRun ? 'dry_run' : 'submitted', childMicros: child, childSharesMicros: shares };
}
