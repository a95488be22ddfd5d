/**
 * Trader statistics from a wallet's positions and the markets they are in.
 * - unrealized = held x (mark - avg); the mark follows mark-price.ts: the payout once settled (1/0,
 *   0.5 after a 50-50 void), the mid of a two-sided book with a spread of at most 0.10, else the last
 *   trade (a one-sided book marks at the last trade), else the catalog price.
 * - win rate (market-level, resolution-based): a resolved market is won when the wallet's net PnL
 *   in it (realized + held x (payout - avg)) is positive; win_rate_pct = 100 x won / (won + lost);
 *   voided markets count neither way.
 * - risk_score, 0 (low) to 100 (high) = 40 x concentration + 30 x long-shot share + 30 x drawdown:
 *     concentration = largest open position's cost basis / all open cost basis (0 when flat);
 *     long-shot share = share of bought USDC at prices below 0.15;
 *     drawdown = max peak-to-trough fall of the daily PnL curve / max(peak, 1 USDC), capped at 1.
 */
import { type MarkBasis, markPrice } from './mark-price.js';
import type { Fill, Position } from './position-book.js';
import { PositionBook } from './position-book.js';

export interface MarketMark {
  market_id: string;
  category: string;
  status: 'active' | 'closed' | 'resolved' | 'voided';
  /** The catalog's price per outcome index (the payout once settled). */
  outcome_prices: number[];
}

/** What the market says about one outcome token now: its book's best bid/ask and its last trade. */
export interface OutcomeQuote {
  best_bid: number | null;
  best_ask: number | null;
  last_trade: number | null;
}

export interface ValuedPosition extends Position {
  mark: number | null;
  mark_basis: MarkBasis;
  unrealized: number;
  category: string;
  /** Resolved with a winner (counts for win rate); a void is settled but not resolved. */
  resolved: boolean;
}

export const isSettled = (status: MarketMark['status'] | undefined) => status === 'resolved' || status === 'voided';

export function valuePositions(
  positions: Position[],
  marks: Map<string, MarketMark>,
  quotes: ReadonlyMap<string, OutcomeQuote> = new Map(),
): ValuedPosition[] {
  return positions.map((p) => {
    const market = marks.get(p.market_id);
    const catalogPrice = market?.outcome_prices[p.outcome_index] ?? null;
    const quote = quotes.get(p.asset_id);
    const mark = markPrice({
      payout: isSettled(market?.status) ? catalogPrice : null,
      bestBid: quote?.best_bid ?? null,
      bestAsk: quote?.best_ask ?? null,
      lastTrade: quote?.last_trade ?? null,
      catalogPrice,
    });
    return {
      ...p,
      mark: mark.price,
      mark_basis: mark.basis,
      unrealized: mark.price === null ? 0 : p.held * (mark.price - p.avg_price),
      category: market?.category ?? 'Uncategorized',
      resolved: market?.status === 'resolved',
    };
  });
}

export function winLoss(valued: ValuedPosition[]) {
  const byMarket = new Map<string, number>();
  for (const p of valued) if (p.resolved) byMarket.set(p.market_id, (byMarket.get(p.market_id) ?? 0) + p.realized + p.unrealized);
  let won = 0;
  let lost = 0;
  for (const pnl of byMarket.values()) {
    if (pnl > 1e-9) won += 1;
    else lost += 1;
  }
  return { won, lost, resolved: won + lost, win_rate_pct: won + lost === 0 ? null : round((100 * won) / (won + lost), 2) };
}

export function riskScore(
  fills: Fill[],
  valued: ValuedPosition[],
  dailyPnl: number[],
): { score: number; concentration: number; long_shot_share: number; drawdown: number } {
  const openCost = valued.filter((p) => p.held > 0).map((p) => p.held * p.avg_price);
  const totalCost = openCost.reduce((a, b) => a + b, 0);
  const concentration = totalCost > 0 ? Math.max(...openCost) / totalCost : 0;
  const bought = fills.filter((f) => f.side === 'buy');
  const boughtUsdc = bought.reduce((sum, f) => sum + f.size * f.price, 0);
  const longShotUsdc = bought.filter((f) => f.price < 0.15).reduce((sum, f) => sum + f.size * f.price, 0);
  const longShotShare = boughtUsdc > 0 ? longShotUsdc / boughtUsdc : 0;
  let peak = -Infinity;
  let maxFall = 0;
  for (const value of dailyPnl) {
    peak = Math.max(peak, value);
    maxFall = Math.max(maxFall, peak - value);
  }
  const drawdown = dailyPnl.length === 0 ? 0 : Math.min(1, maxFall / Math.max(peak, 1));
  return {
    score: round(40 * concentration + 30 * longShotShare + 30 * drawdown, 1),
    concentration: round(concentration, 4),
    long_shot_share: round(longShotShare, 4),
    drawdown: round(drawdown, 4),
  };
}

/**
 * Daily PnL curve: for each UTC day, realized to date + unrealized at that day's closing marks
 * (`closes(day)` gives each market's closing YES price that day; other outcomes are 1 - YES in a
 * binary market). Days run from `fromDay` to `toDay` inclusive (ms at 00:00 UTC).
 */
export function dailyCurve(
  fills: Fill[],
  fromDayMs: number,
  toDayMs: number,
  closeOn: (marketId: string, dayMs: number) => number | null,
  yesIndexOf: (marketId: string) => number,
) {
  const book = new PositionBook();
  const points: Array<{ date: string; realized: number; unrealized: number; total: number }> = [];
  let next = 0;
  const sorted = [...fills].sort((a, b) => a.ts_ms - b.ts_ms);
  for (let day = fromDayMs; day <= toDayMs; day += 86_400_000) {
    const end = day + 86_400_000;
    while (next < sorted.length && sorted[next]!.ts_ms < end) book.apply(sorted[next++]!);
    let unrealized = 0;
    for (const p of book.open()) {
      const yes = closeOn(p.market_id, day);
      if (yes === null) continue;
      const mark = p.outcome_index === yesIndexOf(p.market_id) ? yes : 1 - yes;
      unrealized += p.held * (mark - p.avg_price);
    }
    const realized = book.realizedTotal();
    points.push({
      date: new Date(day).toISOString().slice(0, 10),
      realized: round(realized, 6),
      unrealized: round(unrealized, 6),
      total: round(realized + unrealized, 6),
    });
  }
  return points;
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
