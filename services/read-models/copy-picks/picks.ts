/**
 * One candidate leader in one topic and window, judged (pure): the copier simulation's return, how
 * much of the leader's volume is wash (round trips), the rule that excludes it if any, and the score.
 *
 * - copier ROI: a follower copying every fill of the leader in the topic's markets within the window,
 *   `order_usdc` per leader fill (sells: the same notional, clipped to what it holds), `delay` seconds
 *   after it, filled like a backtest (order-book history where it exists, the impact model elsewhere;
 *   taker fees): roi_pct = 100 x (value now - cash spent) / cash invested in buys, with open positions at
 *   the day's close and resolved ones at their payout.
 * - wash share: of the leader's volume in the window, the part that went straight back: a sell of a
 *   token within 10 minutes of a buy of it, or a buy of one outcome within 10 minutes of a buy of the
 *   other outcome of the same market (both sides: a position that is flat by construction), counted
 *   on both legs; excluded at 0.2 and above.
 * - excluded (in this order): `no_fills_in_window`, `wash_trading`, `negative_copier_roi`; and, when read,
 *   fewer resolved markets in the topic than `min_resolved`.
 * - score (0..100) = 100 x (0.40 x roi + 0.25 x win rate + 0.15 x recency + 0.10 x sample + 0.10 x (1 - risk)),
 *   roi = copier_roi_pct / 50 clamped to [0, 1]; win rate = win_rate_pct / 100 (0 when unknown);
 *   recency = exp(-days since the last fill in the window / 7); sample = min(resolved / 50, 1);
 *   risk = risk_score / 100.
 */
import type { LeaderFill } from '../../copy/leader-fill.js';
import type { LeaderStats } from '../../copy/leader-stats.js';

const WASH_WINDOW_MS = 10 * 60_000;
const WASH_EXCLUDE_SHARE = 0.2;
const DAY_MS = 86_400_000;

export function washShare(fills: LeaderFill[]): number {
  const total = fills.reduce((sum, f) => sum + Number(f.usdcMicros), 0);
  if (total === 0) return 0;
  let wash = 0;
  const open: Array<{ fill: LeaderFill; left: number }> = [];
  for (const fill of [...fills].sort((a, b) => a.timestampMs - b.timestampMs)) {
    while (open.length > 0 && open[0]!.fill.timestampMs < fill.timestampMs - WASH_WINDOW_MS) open.shift();
    let amount = Number(fill.usdcMicros);
    for (const entry of open) {
      if (amount <= 0) break;
      if (entry.left <= 0 || entry.fill.marketId !== fill.marketId) continue;
      const roundTrip = fill.side === 'sell' && entry.fill.side === 'buy' && entry.fill.assetId === fill.assetId;
      const bothSides = fill.side === 'buy' && entry.fill.side === 'buy' && entry.fill.assetId !== fill.assetId;
      if (!roundTrip && !bothSides) continue;
      const matched = Math.min(amount, entry.left);
      entry.left -= matched;
      amount -= matched;
      wash += 2 * matched;
    }
    if (fill.side === 'buy') open.push({ fill, left: amount });
  }
  return Math.min(1, wash / total);
}

export interface PickFigures {
  stats: LeaderStats;
  fillsInWindow: number;
  lastFillMs: number | null;
  washShare: number;
  copierRoiPct: number;
  nowMs: number;
}

export function exclusion(f: PickFigures): string {
  if (f.fillsInWindow === 0) return 'no_fills_in_window';
  if (f.washShare >= WASH_EXCLUDE_SHARE) return 'wash_trading';
  if (f.copierRoiPct < 0) return 'negative_copier_roi';
  return '';
}

export function score(f: PickFigures): number {
  const clamp = (x: number) => Math.max(0, Math.min(1, x));
  const roi = clamp(f.copierRoiPct / 50);
  const win = (f.stats.winRatePct ?? 0) / 100;
  const recency = f.lastFillMs === null ? 0 : Math.exp(-Math.max(0, f.nowMs - f.lastFillMs) / DAY_MS / 7);
  const sample = clamp((f.stats.won + f.stats.lost) / 50);
  const risk = clamp(f.stats.riskScore / 100);
  return Math.round(100 * (0.4 * roi + 0.25 * win + 0.15 * recency + 0.1 * sample + 0.1 * (1 - risk)) * 100) / 100;
}
