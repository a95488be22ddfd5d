/** A trader's last 24 hours before a trade, from the indexed trades table (bloom-indexed by wallet). */
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { TraderContext } from './payloads.js';

export type TraderContextSource = (wallet: string, beforeMs: number) => Promise<TraderContext>;

const DAY_MS = 86_400_000;

export function analyticsTraderContext(store: AnalyticsStore): TraderContextSource {
  return async (wallet, beforeMs) => {
    const [row] = await store.query<{ trades: number; volume: number; markets: number; largest: number }>(
      `SELECT count() AS trades, sum(size_usdc) AS volume, uniqExact(market_id) AS markets, max(size_usdc) AS largest
         FROM trades
        WHERE wallet = {wallet:String}
          AND ts >= fromUnixTimestamp64Milli({from:Int64}) AND ts < fromUnixTimestamp64Milli({to:Int64})`,
      { wallet, from: beforeMs - DAY_MS, to: beforeMs },
    );
    const trades = Number(row?.trades ?? 0);
    return {
      trades_24h: trades,
      volume_24h_usdc: Math.round(Number(row?.volume ?? 0) * 1e6) / 1e6,
      markets_24h: Number(row?.markets ?? 0),
      largest_trade_24h_usdc: trades === 0 ? 0 : Number(row?.largest ?? 0),
    };
  };
}
