/**
 * The leader figures copy picks rank on, per wallet and market category, behind one narrow interface
 * so the source can change in this file alone. It reads the position ledger's per-category figures
 * as of the valuation pass (services/read-models/trader-stats/queries.ts, docs/POSITIONS.md): realized
 * PnL and resolution-based won/lost per category, the risk score and the last trade per wallet.
 */
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { categoryLeaders, valuedCategories } from '../read-models/trader-stats/queries.js';

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
    categories: () => valuedCategories(store),
    async candidates(category, limit, minResolved) {
      return (await categoryLeaders(store, category, limit, minResolved)).map((r) => ({
        wallet: r.wallet,
        category: r.category,
        realizedPnlUsdc: Number(r.realized) / 1e6,
        winRatePct: r.winRatePct,
        won: r.won,
        lost: r.lost,
        riskScore: r.riskScore ?? 0,
        lastTradeMs: r.lastTradeMs,
      }));
    },
  };
}
