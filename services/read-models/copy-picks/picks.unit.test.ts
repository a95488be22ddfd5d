/** Copy-pick rules on hand-computed cases: wash share, the exclusion order, the score. */
import type { LeaderFill } from '../../copy/leader-fill.js';
import { exclusion, score, washShare } from './picks.js';

const M = 1_000_000n;
const fill = (over: Partial<LeaderFill>): LeaderFill => ({
  key: 'k',
  tradeId: 't',
  wallet: '0x1',
  marketId: 'm1',
  marketTitle: '',
  assetId: 'yes',
  outcome: 'Yes',
  outcomeIndex: 0,
  side: 'buy',
  priceMicros: 500_000n,
  sharesMicros: 0n,
  usdcMicros: 100n * M,
  timestampMs: 0,
  origin: 'chain',
  source: 'simulator',
  ...over,
});
const stats = { wallet: '0x1', category: 'Politics', realizedPnlUsdc: 10, winRatePct: 60, won: 6, lost: 4, riskScore: 20, lastTradeMs: 0 };

test('wash share: round trips within 10 minutes and both outcomes bought, on both legs', () => {
  // buy 100 yes, sell 60 yes 5 min later (60 x 2 = 120 wash), buy 300 yes an hour later: 120 / 460.
  expect(
    washShare([
      fill({}),
      fill({ side: 'sell', usdcMicros: 60n * M, timestampMs: 300_000 }),
      fill({ usdcMicros: 300n * M, timestampMs: 3_600_000 }),
    ]),
  ).toBeCloseTo(120 / 460, 12);
  // buy yes 100, buy no 100 a minute later: all of it (200 / 200).
  expect(washShare([fill({}), fill({ assetId: 'no', timestampMs: 60_000 })])).toBe(1);
  // the sell comes 11 minutes later: none.
  expect(washShare([fill({}), fill({ side: 'sell', timestampMs: 660_000 })])).toBe(0);
  // another market's sell never matches.
  expect(washShare([fill({}), fill({ side: 'sell', marketId: 'm2', timestampMs: 60_000 })])).toBe(0);
});

test('exclusions in order, and the score formula', () => {
  const base = { stats, fillsInWindow: 3, lastFillMs: 0, washShare: 0.1, copierRoiPct: 10, nowMs: 7 * 86_400_000 };
  expect(exclusion({ ...base, fillsInWindow: 0, washShare: 0.5, copierRoiPct: -1 })).toBe('no_fills_in_window');
  expect(exclusion({ ...base, washShare: 0.2, copierRoiPct: -1 })).toBe('wash_trading');
  expect(exclusion({ ...base, copierRoiPct: -0.0001 })).toBe('negative_copier_roi');
  expect(exclusion(base)).toBe('');
  // 100 x (0.4 x 10/50 + 0.25 x 0.6 + 0.15 x e^-1 + 0.1 x 10/50 + 0.1 x 0.8) = 8 + 15 + 5.518192 + 2 + 8 = 38.518192 -> 38.52
  expect(score(base)).toBe(38.52);
  // ROI saturates at 50 %; risk 100 takes its part away.
  expect(score({ ...base, copierRoiPct: 500, stats: { ...stats, riskScore: 100 } })).toBe(
    Math.round((40 + 15 + 15 * Math.exp(-1) + 2) * 100) / 100,
  );
});
