/**
 * The price an open position is marked at - Polymarket displays the same price - one rule for every
 * caller, today's trader statistics and any later rewrite of them:
 * 1. settled (resolved or voided): the outcome's payout - 1 or 0, 0.5 each for a 50-50 void;
 * 2. a two-sided book whose spread is at most 0.10: the mid, (bid + ask) / 2;
 * 3. otherwise - one side empty (a one-sided book), both empty, or a wider spread - the last trade
 *    price of the outcome;
 * 4. no usable book and no trade: the catalog's price of the outcome (Gamma's outcomePrices), else
 *    unmarked (null: the position counts no unrealized PnL).
 */
const MAX_MARKING_SPREAD = 0.1;

export type MarkBasis = 'payout' | 'mid' | 'last_trade' | 'catalog' | 'none';

export interface MarkInputs {
  /** The outcome's payout once the market is settled, else null. */
  payout: number | null;
  bestBid: number | null;
  bestAsk: number | null;
  /** The outcome's last traded price, null when it never traded. */
  lastTrade: number | null;
  /** The catalog's current price of the outcome, null when it has none. */
  catalogPrice: number | null;
}

export interface Mark {
  price: number | null;
  basis: MarkBasis;
}

/** Prices are kept to 6 decimals, the precision of every price the service stores. */
const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

export function markPrice(inputs: MarkInputs): Mark {
  if (inputs.payout !== null) return { price: inputs.payout, basis: 'payout' };
  const { bestBid, bestAsk } = inputs;
  // Compared in micro-units: 0.61 - 0.51 is 0.09999999999999998 in binary floating point.
  if (bestBid !== null && bestAsk !== null && Math.round((bestAsk - bestBid) * 1e6) <= MAX_MARKING_SPREAD * 1e6) {
    return { price: round6((bestBid + bestAsk) / 2), basis: 'mid' };
  }
  if (inputs.lastTrade !== null) return { price: inputs.lastTrade, basis: 'last_trade' };
  if (inputs.catalogPrice !== null) return { price: inputs.catalogPrice, basis: 'catalog' };
  return { price: null, basis: 'none' };
}
