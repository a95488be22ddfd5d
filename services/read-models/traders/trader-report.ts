/** One wallet's full picture from its fills: lifetime and 30-day stats, positions, curve, risk, categories. */
import { PositionBook, type Fill } from './position-book.js';
import {
  dailyCurve,
  isSettled,
  type OutcomeQuote,
  riskScore,
  round,
  valuePositions,
  winLoss,
  type ValuedPosition,
} from './trader-stats.js';
import type { MarketInfo } from './wallet-data.js';

const DAY = 86_400_000;

export const startOfDay = (ms: number) => Math.floor(ms / DAY) * DAY;

export interface TraderReport {
  realized: number;
  unrealized: number;
  realized30d: number;
  volume: number;
  volume30d: number;
  trades: number;
  trades30d: number;
  marketsTraded: number;
  winLoss: ReturnType<typeof winLoss>;
  risk: ReturnType<typeof riskScore>;
  curve: ReturnType<typeof dailyCurve>;
  positions: ValuedPosition[];
  categories: Array<{
    category: string;
    realized_pnl: number;
    unrealized_pnl: number;
    total_pnl: number;
    volume_usdc: number;
    won: number;
    lost: number;
    win_rate_pct: number | null;
  }>;
  firstTradeMs: number;
  lastTradeMs: number;
}

/** The closing YES mark of a market on a day: its payout once settled, else the last daily close (last trade) so far. */
export function markOn(markets: Map<string, MarketInfo>, closes: Map<string, Array<[number, number]>>) {
  return (marketId: string, dayMs: number): number | null => {
    const market = markets.get(marketId);
    if (market && isSettled(market.status) && market.closed_ms !== null && dayMs >= startOfDay(market.closed_ms)) {
      return market.outcome_prices[market.yes_index] ?? null;
    }
    let mark: number | null = null;
    for (const [day, close] of closes.get(marketId) ?? []) {
      if (day > dayMs) break;
      mark = close;
    }
    return mark;
  };
}

export function traderReport(
  fills: Fill[],
  markets: Map<string, MarketInfo>,
  closes: Map<string, Array<[number, number]>>,
  nowMs: number,
  curveDays = 30,
  quotes: ReadonlyMap<string, OutcomeQuote> = new Map(),
): TraderReport {
  const book = new PositionBook();
  for (const f of fills) book.apply(f);
  const positions = valuePositions(book.all(), markets, quotes);
  const since30 = nowMs - 30 * DAY;
  // Splits, merges and redemptions move positions and PnL but are not trading volume.
  const trades = fills.filter((f) => (f.kind ?? 'trade') === 'trade');
  const recent = trades.filter((f) => f.ts_ms >= since30);
  const usdc = (list: Fill[]) => list.reduce((sum, f) => sum + f.size * f.price, 0);
  const curve = dailyCurve(
    fills,
    startOfDay(nowMs) - (curveDays - 1) * DAY,
    startOfDay(nowMs),
    markOn(markets, closes),
    (id) => markets.get(id)?.yes_index ?? 0,
  );

  const categoryOf = (marketId: string) => markets.get(marketId)?.category ?? 'Uncategorized';
  const categories = new Map<string, { realized: number; unrealized: number; volume: number; positions: ValuedPosition[] }>();
  const entry = (category: string) => {
    let value = categories.get(category);
    if (!value) {
      value = { realized: 0, unrealized: 0, volume: 0, positions: [] };
      categories.set(category, value);
    }
    return value;
  };
  for (const p of positions) {
    const c = entry(p.category);
    c.realized += p.realized;
    c.unrealized += p.unrealized;
    c.positions.push(p);
  }
  for (const f of trades) entry(categoryOf(f.market_id)).volume += f.size * f.price;

  return {
    realized: book.realizedTotal(),
    unrealized: positions.reduce((sum, p) => sum + p.unrealized, 0),
    realized30d: book.realizedTotal(since30),
    volume: usdc(trades),
    volume30d: usdc(recent),
    trades: trades.length,
    trades30d: recent.length,
    marketsTraded: new Set(trades.map((f) => f.market_id)).size,
    winLoss: winLoss(positions),
    risk: riskScore(
      trades,
      positions,
      curve.map((p) => p.total),
    ),
    curve,
    positions,
    categories: [...categories.entries()]
      .map(([category, c]) => {
        const wl = winLoss(c.positions);
        return {
          category,
          realized_pnl: round(c.realized, 6),
          unrealized_pnl: round(c.unrealized, 6),
          total_pnl: round(c.realized + c.unrealized, 6),
          volume_usdc: round(c.volume, 6),
          won: wl.won,
          lost: wl.lost,
          win_rate_pct: wl.win_rate_pct,
        };
      })
      .sort((a, b) => b.total_pnl - a.total_pnl),
    firstTradeMs: trades[0]?.ts_ms ?? 0,
    lastTradeMs: trades[trades.length - 1]?.ts_ms ?? 0,
  };
}
