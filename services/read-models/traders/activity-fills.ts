/**
 * Wallet activity as position changes (shared definitions): a split buys every outcome at 0.50,
 * a merge sells every outcome at 0.50, a redemption sells all held shares at the payout. Without
 * these, PnL of active wallets drifts by tens of percent. Only tracked wallets have activity.
 */
import type { Fill } from './position-book.js';

export interface ActivityRow {
  wallet?: string;
  market_id: string;
  type: string;
  size: number;
  usdc_size: number;
  ts_ms: number;
}

export interface MarketOutcomes {
  status: 'active' | 'closed' | 'resolved' | 'voided';
  outcomes: string[];
  outcome_token_ids: string[];
  outcome_prices: number[];
}

export function activityToFills(rows: ActivityRow[], markets: Map<string, MarketOutcomes>): Fill[] {
  const fills: Fill[] = [];
  for (const row of rows) {
    const market = markets.get(row.market_id);
    if (!market || market.outcome_token_ids.length === 0) continue;
    const type = row.type.toUpperCase();
    const each = (side: Fill['side'], kind: NonNullable<Fill['kind']>, price: (index: number) => number, size: number) => {
      for (const [index, assetId] of market.outcome_token_ids.entries()) {
        fills.push({
          kind,
          market_id: row.market_id,
          asset_id: assetId,
          outcome: market.outcomes[index] ?? String(index),
          outcome_index: index,
          side,
          size,
          price: price(index),
          ts_ms: row.ts_ms,
        });
      }
    };
    // A split or merge of N USDC moves N complete sets (N shares of each outcome).
    const sets = Number(row.usdc_size) > 0 ? Number(row.usdc_size) : Number(row.size);
    if (type === 'SPLIT' && sets > 0) each('buy', 'split', () => 0.5, sets);
    else if (type === 'MERGE' && sets > 0) each('sell', 'merge', () => 0.5, sets);
    // A redemption pays the payout: 1 or 0, 0.5 each after a 50-50 void.
    else if (type === 'REDEEM' && (market.status === 'resolved' || market.status === 'voided'))
      each('sell', 'redeem', (index) => market.outcome_prices[index] ?? 0, Infinity);
  }
  return fills;
}

/** Trades and conversions in time order; at equal times trades go first (a redemption closes what they opened). */
export function mergeFills(trades: Fill[], conversions: Fill[]): Fill[] {
  return [...trades, ...conversions].sort(
    (a, b) => a.ts_ms - b.ts_ms || Number((a.kind ?? 'trade') !== 'trade') - Number((b.kind ?? 'trade') !== 'trade'),
  );
}
