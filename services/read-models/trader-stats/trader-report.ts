/**
 * A wallet's figures from its pre-aggregated ledger rows (queries.ts loads them), in exact micro-units
 * until the response rounds them to USDC. Definitions (docs/POSITIONS.md, api/openapi.yaml):
 * - unrealized = value at the mark - cost basis of the held shares, summed over the wallet's positions
 *   as GET /positions values them (../positions/position-value.ts; the mark follows marks/mark-price.ts:
 *   payout once settled, mid of a tight two-sided book, else last trade, else catalog price).
 * - win rate: over resolved markets (voided ones excluded) the wallet ever paid into (cost basis > 0),
 *   a market is won when its net PnL there (realized + payout value - cost of what is still held) is
 *   above 0, lost when below, neither when exactly 0; win_rate_pct = 100 x won / (won + lost).
 * - risk_score (0 low .. 100 high) = 40 x concentration + 30 x long-shot share + 30 x drawdown:
 *   concentration = largest open cost basis / all open cost basis; long-shot share = bought USDC at
 *   prices below 0.15 / all bought USDC; drawdown = the largest peak-to-trough fall of equity against
 *   its running peak over the curve, equity = capital at risk + PnL, capital at risk = the peak of net
 *   cash invested (paid for shares less received for them; capitalAtRisk). Measured against turnover
 *   instead, a $1,000 bankroll traded a hundred times over that ends $900 down scored under 2 %;
 *   against capital at risk it is 90 %.
 */
import { maxBig } from '../positions/ledger-math.js';
import type { MarketInfo, OutcomeQuote } from '../positions/market-data.js';
import { type PositionRow, type ValuedPosition, valuePositions } from '../positions/position-value.js';
import { DAY_MS } from '../../shared/time.js';

export interface MarketRow {
  market_id: string;
  realized: bigint;
  volume: bigint;
  trades: number;
  cost_in: bigint;
}

interface Totals {
  realized: bigint;
  volume: bigint;
  trades: number;
  /** Fees paid, USDC micro-units (a fee charged in shares at the fill price). */
  fees: bigint;
  /** The wallet's first and last fill (null when it has none: splits, merges, conversions, redemptions only). */
  first_ms: number | null;
  last_ms: number | null;
}

interface CurveData {
  fromDayMs: number;
  toDayMs: number;
  realizedBefore: bigint;
  dailyRealized: Map<number, bigint>;
  /** Unrealized PnL at each closed day's marks (day ms; absent = 0), (pnl-curve.ts). */
  unrealizedByDay: Map<number, bigint>;
}

export interface WalletData {
  wallet: string;
  totals: Totals;
  last30: { realized: bigint; volume: bigint; trades: number; fees: bigint };
  /** Peak of net cash invested over the wallet's history (capitalAtRisk): what drawdown is measured against. */
  capitalAtRisk: bigint;
  positions: PositionRow[];
  markets: MarketRow[];
  curve: CurveData | null;
}

interface CategoryFigures {
  category: string;
  realized: bigint;
  unrealized: bigint;
  volume: bigint;
  won: number;
  lost: number;
}

export interface TraderReport {
  realized: bigint;
  unrealized: bigint;
  won: number;
  lost: number;
  resolved: number;
  winRatePct: number | null;
  marketsTraded: number;
  positions: ValuedPosition[];
  categories: CategoryFigures[];
  curve: Array<{ date: string; realized: bigint; unrealized: bigint; total: bigint }>;
  risk: { score: number; concentration: number; long_shot_share: number; drawdown: number };
}

export function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function traderReport(data: WalletData, markets: Map<string, MarketInfo>, quotes: Map<string, OutcomeQuote>): TraderReport {
  const positions = valuePositions(data.positions, markets, quotes);
  const categoryOf = (marketId: string) => markets.get(marketId)?.category || 'Uncategorized';
  const categories = new Map<string, CategoryFigures>();
  const category = (name: string) => {
    const known = categories.get(name);
    if (known) return known;
    const created = { category: name, realized: 0n, unrealized: 0n, volume: 0n, won: 0, lost: 0 };
    categories.set(name, created);
    return created;
  };
  const openByMarket = new Map<string, bigint>();
  for (const p of positions) {
    category(categoryOf(p.market_id)).unrealized += p.unrealized;
    openByMarket.set(p.market_id, (openByMarket.get(p.market_id) ?? 0n) + p.unrealized);
  }
  let won = 0;
  let lost = 0;
  for (const m of data.markets) {
    const c = category(categoryOf(m.market_id));
    c.realized += m.realized;
    c.volume += m.volume;
    if (markets.get(m.market_id)?.status !== 'resolved' || m.cost_in <= 0n) continue;
    const net = m.realized + (openByMarket.get(m.market_id) ?? 0n);
    if (net > 0n) {
      won += 1;
      c.won += 1;
    } else if (net < 0n) {
      lost += 1;
      c.lost += 1;
    }
  }
  const unrealized = positions.reduce((sum, p) => sum + p.unrealized, 0n);
  const curve = data.curve ? dailyCurve(data.curve, unrealized) : [];
  const open = positions.filter((p) => p.qty > 0n).map((p) => p.cost);
  const openCost = open.reduce((a, b) => a + b, 0n);
  const concentration = openCost > 0n ? Number(open.reduce(maxBig, 0n)) / Number(openCost) : 0;
  const bought = data.positions.reduce((sum, p) => sum + p.bought, 0n);
  const longShot = data.positions.reduce((sum, p) => sum + p.longshot, 0n);
  const longShotShare = bought > 0n ? Number(longShot) / Number(bought) : 0;
  const drawdown = equityDrawdown(
    data.capitalAtRisk,
    curve.map((p) => p.total),
  );
  return {
    realized: data.totals.realized,
    unrealized,
    won,
    lost,
    resolved: won + lost,
    winRatePct: won + lost === 0 ? null : round((100 * won) / (won + lost), 2),
    marketsTraded: data.markets.filter((m) => m.trades > 0).length,
    positions,
    categories: [...categories.values()].sort((a, b) => Number(b.realized + b.unrealized - (a.realized + a.unrealized))),
    curve,
    risk: {
      score: round(40 * concentration + 30 * longShotShare + 30 * drawdown, 1),
      concentration: round(concentration, 4),
      long_shot_share: round(longShotShare, 4),
      drawdown: round(drawdown, 4),
    },
  };
}

/**
 * The largest fall of equity from its running peak, as a fraction of that peak: equity = capital +
 * PnL at each point. [100, 50, 1000] and [100, 50, 100] (PnL, capital 0) both fall 50 %; a $2 dip
 * on $1,000 of capital is 0.2 %. 0 without capital or points; at most 1.
 */
export function equityDrawdown(capital: bigint, pnl: bigint[]): number {
  let peak: bigint | null = null;
  let worst = 0;
  for (const point of pnl) {
    const equity = capital + point;
    if (peak === null || equity > peak) peak = equity;
    if (peak > 0n) worst = Math.max(worst, Number(peak - equity) / Number(peak));
  }
  return Math.min(1, worst);
}

/** A wallet's cash of one UTC day (micro-units): net (received - paid, fees apart) and paid. */
export interface CashDay {
  dayMs: number;
  cash: bigint;
  paid: bigint;
}

/**
 * Capital at risk: the peak of the wallet's net cash invested (paid for shares less received for
 * them), from its days: at most the net invested at a day's start plus what it paid that day (exact
 * when a day's buys come before its sells, above the true peak otherwise: day rows do not keep the
 * order within the day). 0 when it never paid anything.
 */
export function capitalAtRisk(days: CashDay[]): bigint {
  let invested = 0n;
  let peak = 0n;
  for (const day of [...days].sort((a, b) => a.dayMs - b.dayMs)) {
    const high = invested + day.paid;
    if (high > peak) peak = high;
    invested -= day.cash;
  }
  return peak;
}

/**
 * Daily PnL curve: for each UTC day, realized to date + unrealized at that day's closing marks (closed
 * days: pnl-curve.ts), today at the current marks (the report's unrealized PnL).
 */
function dailyCurve(curve: CurveData, unrealizedNow: bigint) {
  let realized = curve.realizedBefore;
  const points: TraderReport['curve'] = [];
  for (let day = curve.fromDayMs; day <= curve.toDayMs; day += DAY_MS) {
    realized += curve.dailyRealized.get(day) ?? 0n;
    const unrealized = day === curve.toDayMs ? unrealizedNow : (curve.unrealizedByDay.get(day) ?? 0n);
    points.push({ date: new Date(day).toISOString().slice(0, 10), realized, unrealized, total: realized + unrealized });
  }
  return points;
}
