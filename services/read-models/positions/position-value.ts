/**
 * A wallet's positions valued at the current marks: what GET /positions serves and what the trader
 * figures (../trader-stats/trader-report.ts) sum their unrealized PnL from. An open position is worth
 * qty x mark, the mark chosen by marks/mark-price.ts (payout once settled, mid of a tight two-sided
 * book, else last trade, else catalog price); value = qty x mark rounded half up to a micro-unit
 * (docs/POSITIONS.md "Marks").
 */
import { divRound } from './ledger-math.js';
import { isSettled, type MarketInfo, type OutcomeQuote } from './market-data.js';
import { markPrice, type MarkBasis } from '../marks/mark-price.js';

/** A (wallet, token) row of position_state as the reads turn it into numbers (queries.ts positionRow). */
export interface PositionRow {
  asset_id: string;
  market_id: string;
  outcome: string;
  outcome_index: number;
  qty: bigint;
  cost: bigint;
  opened_ms: number;
  last_ms: number;
  realized: bigint;
  bought: bigint;
  longshot: bigint;
  /** What the token's buy legs brought in (fills, splits, conversions, transfers at the sender's cost), USDC micro-units. */
  cost_in: bigint;
  /** Fees paid on the position's fills, USDC micro-units. */
  fees: bigint;
}

export interface ValuedPosition extends PositionRow {
  mark: number | null;
  mark_basis: MarkBasis;
  value: bigint | null;
  unrealized: bigint;
}

const MICRO = 1_000_000n;

/** Value of `qty` micro-shares at `price` (0..1) in micro-USDC, rounded half up. */
export function valueAt(qty: bigint, price: number): bigint {
  return divRound(qty * BigInt(Math.round(price * 1e6)), MICRO);
}

function markOf(
  p: { market_id: string; asset_id: string; outcome_index: number },
  markets: Map<string, MarketInfo>,
  quotes: Map<string, OutcomeQuote>,
) {
  const market = markets.get(p.market_id);
  const catalogPrice = market?.outcome_prices[p.outcome_index] ?? null;
  const quote = quotes.get(p.asset_id);
  return markPrice({
    payout: isSettled(market?.status) ? catalogPrice : null,
    bestBid: quote?.best_bid ?? null,
    bestAsk: quote?.best_ask ?? null,
    lastTrade: quote?.last_trade ?? null,
    catalogPrice,
  });
}

/** Positions at the current marks: an open one is worth qty x mark; a closed one has no mark and 0 unrealized. */
export function valuePositions(rows: PositionRow[], markets: Map<string, MarketInfo>, quotes: Map<string, OutcomeQuote>): ValuedPosition[] {
  return rows.map((p) => {
    const mark = p.qty > 0n ? markOf(p, markets, quotes) : { price: null, basis: 'none' as MarkBasis };
    const value = mark.price === null ? null : valueAt(p.qty, mark.price);
    // The catalog's label when it knows the market: a row a leg wrote before the catalog listed it holds the
    // outcome's index instead (ledger-legs.ts), and a key's rows can differ.
    const outcome = markets.get(p.market_id)?.outcomes[p.outcome_index] ?? p.outcome;
    return { ...p, outcome, mark: mark.price, mark_basis: mark.basis, value, unrealized: value === null ? 0n : value - p.cost };
  });
}
