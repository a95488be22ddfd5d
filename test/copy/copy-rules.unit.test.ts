/** The copy rules on hand-computed cases: sizing, clipping, and the order in which limits block. */
import { type DecisionInput, decideCopy, type RiskLimits, sizedNotional } from '../../services/copy/copy-rules.js';

const M = 1_000_000n;
const NO_LIMITS: RiskLimits = {
  maxPerTradeMicros: null,
  maxDailyNotionalMicros: null,
  allowedMarkets: [],
  allowedCategories: [],
  maxPriceMicros: null,
  minOrderMicros: M,
};
const MARKET = `0x${'1'.repeat(64)}`;

function input(over: Partial<DecisionInput> = {}): DecisionInput {
  return {
    fill: { marketId: MARKET, side: 'buy', priceMicros: 500_000n, usdcMicros: 100n * M, timestampMs: 1_000 },
    category: 'politics',
    sizing: { rule: 'fixed', usdcMicros: 25n * M },
    limits: NO_LIMITS,
    dryRun: false,
    spentTodayMicros: 0n,
    heldSharesMicros: 0n,
    nowMs: 2_000,
    maxFillAgeMs: 60_000,
    ...over,
  };
}

test('sizing rules: fixed, proportional (floored to a micro-USDC), capped', () => {
  expect(sizedNotional({ rule: 'fixed', usdcMicros: 25n * M }, 1_000n * M)).toBe(25n * M);
  // 123.456789 x 0.333333 = 41.1522218... -> 41.152221 (floored)
  expect(sizedNotional({ rule: 'proportional', ratioMicros: 333_333n }, 123_456_789n)).toBe(41_152_221n);
  expect(sizedNotional({ rule: 'capped', ratioMicros: 500_000n, capMicros: 30n * M }, 100n * M)).toBe(30n * M);
  expect(sizedNotional({ rule: 'capped', ratioMicros: 500_000n, capMicros: 30n * M }, 40n * M)).toBe(20n * M);
});

test('a buy: child notional and shares at the leader price; dry run sets the status', () => {
  expect(decideCopy(input())).toEqual({ kind: 'intent', status: 'submitted', childMicros: 25n * M, childSharesMicros: 50n * M });
  expect(decideCopy(input({ dryRun: true }))).toMatchObject({ status: 'dry_run' });
  // 25 / 0.3 = 83.333333 shares (rounded down to a micro-share)
  expect(decideCopy(input({ fill: { ...input().fill, priceMicros: 300_000n } }))).toMatchObject({ childSharesMicros: 83_333_333n });
});

test('max_per_trade clips; max_daily_notional blocks a buy that would pass it', () => {
  const limits = { ...NO_LIMITS, maxPerTradeMicros: 10n * M, maxDailyNotionalMicros: 50n * M };
  expect(decideCopy(input({ limits }))).toMatchObject({ childMicros: 10n * M });
  expect(decideCopy(input({ limits, spentTodayMicros: 40n * M }))).toMatchObject({ childMicros: 10n * M });
  expect(decideCopy(input({ limits, spentTodayMicros: 40n * M + 1n }))).toEqual({ kind: 'blocked', reason: 'max_daily_notional' });
});

test('a sell is clipped to the copied holding, needs one, and ignores price and daily limits', () => {
  const sell = { ...input().fill, side: 'sell' as const, priceMicros: 550_000n };
  const limits = { ...NO_LIMITS, maxDailyNotionalMicros: 1n * M, maxPriceMicros: 100_000n };
  expect(decideCopy(input({ fill: sell, limits }))).toEqual({ kind: 'blocked', reason: 'no_position' });
  // held 20 shares x 0.55 = 11 USDC < 25: the child is 11 USDC, 20 shares.
  expect(decideCopy(input({ fill: sell, limits, heldSharesMicros: 20n * M, spentTodayMicros: 100n * M }))).toEqual({
    kind: 'intent',
    status: 'submitted',
    childMicros: 11n * M,
    childSharesMicros: 20n * M,
  });
});

test('limits block in their documented order', () => {
  const all: RiskLimits = {
    maxPerTradeMicros: null,
    maxDailyNotionalMicros: 1n,
    allowedMarkets: [`0x${'2'.repeat(64)}`],
    allowedCategories: ['sports'],
    maxPriceMicros: 100_000n,
    minOrderMicros: 1_000n * M,
  };
  expect(decideCopy(input({ limits: all, nowMs: 100_000 }))).toEqual({ kind: 'blocked', reason: 'stale_fill' });
  expect(decideCopy(input({ limits: all }))).toEqual({ kind: 'blocked', reason: 'market_not_allowed' });
  expect(decideCopy(input({ limits: { ...all, allowedMarkets: [MARKET] } }))).toEqual({ kind: 'blocked', reason: 'category_not_allowed' });
  const inCategory = { ...all, allowedMarkets: [], allowedCategories: ['politics'] };
  expect(decideCopy(input({ limits: inCategory }))).toEqual({ kind: 'blocked', reason: 'max_price' });
  expect(decideCopy(input({ limits: { ...inCategory, maxPriceMicros: null } }))).toEqual({ kind: 'blocked', reason: 'below_min_order' });
  expect(decideCopy(input({ limits: { ...inCategory, maxPriceMicros: null, minOrderMicros: M } }))).toEqual({
    kind: 'blocked',
    reason: 'max_daily_notional',
  });
});
