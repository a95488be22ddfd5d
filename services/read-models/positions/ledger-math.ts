/**
 * Weighted-average-cost accounting of one (wallet, outcome token), in exact integer micro-units
 * (docs/POSITIONS.md, shared definitions):
 *   buy q for c:        qty += q; cost += c                      (average = cost / qty)
 *   sell q for p:       q' = min(q, qty); removed = cost x q' / qty (rounded half up to a micro-unit);
 *                       proceeds' = p x q' / q (only the tracked shares earn PnL);
 *                       realized += proceeds' - removed; cost -= removed; qty -= q'
 * The basis keeps what rounding leaves, so realized + cost basis always equals the net cash of the
 * tracked shares to the micro-unit. Fees are not part of the basis (reported separately).
 */

export interface PositionState {
  qty: bigint;
  cost: bigint;
  /** When the current holding opened (qty went from 0 to > 0); 0 when flat. */
  openedMs: number;
}

export const EMPTY_STATE: PositionState = { qty: 0n, cost: 0n, openedMs: 0 };

/** How a leg moves a position. `usdc` is the collateral of the whole leg (cost of a buy, proceeds of a sell). */
export type LegAction =
  | { side: 'buy'; qty: bigint; usdc: bigint }
  | { side: 'sell'; qty: bigint; usdc: bigint }
  /**
   * Sell every held share at payout num/den per share (a redemption: shares x num / den rounded down,
   * as the CTF pays each outcome, so a void pays an odd balance half a micro-unit less than half of it), the proceeds never more than
   * `capUsdc` when given: the collateral the redemption paid out, so shares the ledger holds and the
   * chain did not (outside coverage, mispriced) cannot realize more than was paid.
   */
  | { side: 'sell_all'; payoutNum: bigint; payoutDen: bigint; capUsdc?: bigint }
  /**
   * Sell q shares at their own average cost (a neg-risk conversion's NO legs: no PnL), plus `usdc`
   * collateral, signed, all of it realized: the conversion paying more than the NO shares cost, or, when
   * every question is converted and nothing carries their cost on, less.
   */
  | { side: 'sell_at_cost'; qty: bigint; usdc?: bigint };

export interface LegEffect {
  state: PositionState;
  /** Signed change of held shares. */
  qtyDelta: bigint;
  /** Signed collateral of the leg as applied: -cost of a buy, +proceeds of a sell. */
  cash: bigint;
  realized: bigint;
  /** Cost basis the leg took out of the position (sells). */
  removedCost: bigint;
}

/** The smaller of two bigints (Math.min takes numbers only). */
export const minBig = (a: bigint, b: bigint): bigint => (a <= b ? a : b);

/** The larger of two bigints. */
export const maxBig = (a: bigint, b: bigint): bigint => (a >= b ? a : b);

/** a / b rounded half up, for a >= 0 and b > 0. */
export function divRound(a: bigint, b: bigint): bigint {
  return (2n * a + b) / (2n * b);
}

export function applyLeg(state: PositionState, action: LegAction, atMs: number): LegEffect {
  if (action.side === 'buy') {
    const next = {
      qty: state.qty + action.qty,
      cost: state.cost + action.usdc,
      openedMs: state.qty === 0n && action.qty > 0n ? atMs : state.openedMs,
    };
    return { state: next, qtyDelta: action.qty, cash: -action.usdc, realized: 0n, removedCost: 0n };
  }
  const held = state.qty;
  const wanted = action.side === 'sell_all' ? held : action.qty;
  const closed = minBig(wanted, held);
  const removed = held === 0n ? 0n : closed === held ? state.cost : divRound(state.cost * closed, held);
  let proceeds: bigint;
  if (action.side === 'sell') proceeds = action.qty === 0n ? 0n : divRound(action.usdc * closed, action.qty);
  else if (action.side === 'sell_all') {
    proceeds = action.payoutDen === 0n ? 0n : (closed * action.payoutNum) / action.payoutDen;
    if (action.capUsdc !== undefined) proceeds = minBig(proceeds, action.capUsdc);
  } else proceeds = removed + (action.usdc ?? 0n);
  const qty = held - closed;
  return {
    state: { qty, cost: state.cost - removed, openedMs: qty === 0n ? 0 : state.openedMs },
    qtyDelta: -closed,
    cash: proceeds,
    realized: proceeds - removed,
    removedCost: removed,
  };
}

/**
 * The payout a redemption implies when the market's is not known: of "outcome i wins" for each
 * redeemed outcome and "all pay alike" (a void), the one candidate whose payout for the shares given
 * up equals the collateral paid out (within a micro-unit per leg). Null when none or several fit
 * (holding equal amounts of two outcomes: either winning pays the same, and the caller spreads).
 */
export function inferPayout(indices: number[], given: bigint[], paid: bigint, outcomes: number): { num: bigint[]; den: bigint } | null {
  if (outcomes === 0) return null;
  const candidates = [
    ...indices.map((i) => ({ num: Array.from({ length: outcomes }, (_, k) => (k === i ? 1n : 0n)), den: 1n })),
    { num: Array.from({ length: outcomes }, () => 1n), den: BigInt(outcomes) },
  ];
  const tolerance = BigInt(indices.length);
  const fits = candidates.filter((c) => {
    const total = indices.reduce((sum, i, j) => sum + divRound(given[j]! * c.num[i]!, c.den), 0n);
    const gap = total > paid ? total - paid : paid - total;
    return gap <= tolerance;
  });
  return fits.length === 1 ? fits[0]! : null;
}
