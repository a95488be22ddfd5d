/**
 * The leader figures copy picks rank on, per wallet and market category, behind one narrow interface
 * so the source can change in this file alone. Today it reads the trader statistics tables the
 * traders read model's job recomputes (trader_category_stats for realized PnL and resolution-based
 * win rate per category; trader_stats for the risk score and the last trade). When the position
 * ledger's per-category queries exist, this module reads those instead.
 */
import type { AnalyticsStore } from '../ports/analytics-store.js';

export interface LeaderStats {
  wallet: string;
  category: string;
  /** Realized PnL in the category, USDC (weighted-average cost; docs: definitions). */
  realizedPnlUsdc: number;
  /** 100 x won / (won + lost) over resolved markets of the category the wallet traded; null when none resolved. */
  winRatePct: number | null;
  won: number;
  lost: number;
  /** 0 (low) .. 100 (high), the trader statistics' risk score (concentration, long shots, drawdown). */
  riskScore: number;
  lastTradeMs: number | null;
}

export interface LeaderStatsSource {
  /** Categories that have any leader statistics. */
  categories(): Promise<string[]>;
  /** Up to `limit` wallets with positive realized PnL in `category`, best first, with at least `minResolved` resolved markets there. */
  candidates(category: string, limit: number, minResolved: number): Promise<LeaderStats[]>;
}

export function traderStatsSource(store: AnalyticsStore): LeaderStatsSource {
  return {
    async categories() {
      const rows = await store.query<{ category: string }>('SELECT DISTINCT category FROM trader_category_stats FINAL ORDER BY category');
      return rows.map((r) => r.category);
    },
    async candidates(category, limit, minResolved) {
      const rows = await store.query<{
        wallet: string;
        category: string;
        realized_pnl: number;
        win_rate_pct: number | null;
        won: number;
        lost: number;
        risk_score: number | null;
        last_ms: string | null;
      }>(
        `SELECT c.wallet AS wallet, c.category AS category, c.realized_pnl AS realized_pnl, c.win_rate_pct AS win_rate_pct, c.won AS won,
                c.lost AS lost, s.risk_score AS risk_score, toUnixTimestamp64Milli(s.last_trade_at) AS last_ms
           FROM (SELECT * FROM trader_category_stats FINAL WHERE category = {category:String} AND realized_pnl > 0 AND won + lost >= {min:UInt32}) AS c
           LEFT JOIN (SELECT wallet, risk_score, last_trade_at FROM trader_stats FINAL) AS s ON s.wallet = c.wallet
          ORDER BY c.realized_pnl DESC, c.wallet LIMIT {limit:UInt32}`,
        { category, limit, min: minResolved },
      );
      return rows.map((r) => ({
        wallet: r.wallet,
        category: r.category,
        realizedPnlUsdc: Number(r.realized_pnl),
        winRatePct: r.win_rate_pct === null ? null : Number(r.win_rate_pct),
        won: Number(r.won),
        lost: Number(r.lost),
        riskScore: Number(r.risk_score ?? 0),
        lastTradeMs: r.last_ms === null ? null : Number(r.last_ms),
      }));
    },
  };
}
