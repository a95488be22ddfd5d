/**
 * An event's legs: one change per (wallet, outcome token) it touches, priced from its market and the
 * states of its keys just before it (docs/POSITIONS.md). Pure: the batch hands in what it loaded.
 */
import type { ConversionQuestion, LedgerEvent } from './ledger-events.js';
import { divRound, inferPayout, type LegAction, minBig, type PositionState } from './ledger-math.js';

export interface Leg {
  meta: LedgerEvent;
  assetId: string;
  marketId: string;
  outcome: string;
  outcomeIndex: number;
  kind: string;
  role: string;
  action: LegAction;
  fee: bigint;
  price: number;
  volume: bigint;
  trades: number;
  /** A transfer's other wallet. */
  counterparty?: string;
  /** A conversion leg's question index. */
  questionIndex?: number;
  /** A CTF redemption leg: the collateral the whole redemption paid out (its legs are priced together from it). */
  paid?: bigint;
}

export interface Payout {
  num: bigint[];
  den: bigint;
}

export interface MarketInfo {
  outcomes: string[];
  tokenIds: string[];
  payout: Payout | null;
  /** Whether the payout is the catalog's (the chain's not known): a differing chain resolution prices its redemptions again. */
  catalogPayout?: boolean;
}

/**
 * A redemption applied before its market's payout was known, re-priced when the resolution arrives
 * (migrations/0080); or priced by the catalog's payout (`priced` 2), re-priced by a chain's that differs.
 */
export interface UnpricedRedemption {
  market_id: string;
  wallet: string;
  event_id: string;
  asset_id: string;
  priced?: 0 | 2;
  /** The catalog payout that priced it (priced = 2), formatted (formatPayout, set by the batch); a different one prices it again. */
  payout?: string;
}

/** NegRiskAdapter.FEE_DENOMINATOR: a market's conversion fee is in basis points. */
const FEE_DENOMINATOR = 10_000n;

export const keyOf = (wallet: string, assetId: string) => `${wallet}|${assetId}`;

/** A fill's leg. */
export function fillLeg(e: Extract<LedgerEvent, { kind: 'fill' }>): Leg {
  // Built in one literal, not spread over a base: fills are nearly every event, and a spread copies
  // the base object once more for each of them.
  return {
    meta: e,
    assetId: e.assetId,
    marketId: e.marketId,
    outcome: e.outcome,
    outcomeIndex: e.outcomeIndex,
    kind: 'fill',
    role: e.role,
    action: { side: e.side, qty: e.shares, usdc: e.usdc },
    fee: e.fee,
    price: e.price,
    volume: e.volume,
    trades: 1,
  };
}

/**
 * A split's or merge's legs: a complete set costs 1, each of n outcomes at 1/n (0.50 in a binary
 * market); the remainder micro-unit of an odd amount goes to the first outcome, so the legs add up.
 */
export function completeSetLegs(e: Extract<LedgerEvent, { kind: 'split' | 'merge' }>, market: MarketInfo | undefined): Leg[] {
  const n = BigInt(e.tokenIds.length);
  if (n === 0n) return [];
  const share = e.amount / n;
  return e.tokenIds.map((assetId, i) => {
    const usdc = i === 0 ? e.amount - share * (n - 1n) : share;
    return {
      meta: e,
      fee: 0n,
      volume: 0n,
      trades: 0,
      role: '',
      assetId,
      marketId: e.marketId,
      outcome: market?.outcomes[i] ?? String(i),
      outcomeIndex: i,
      kind: e.kind,
      action: { side: e.kind === 'split' ? 'buy' : 'sell', qty: e.amount, usdc },
      price: 1 / Number(n),
    } satisfies Leg;
  });
}

/** A redemption's legs, how many of them had no payout, and the redemption when it was priced from the holdings. */
export interface RedemptionLegs {
  legs: Leg[];
  unresolved: number;
  unpriced: UnpricedRedemption | null;
}

/**
 * A redemption sells the redeemed shares at the market's payout. The payout per share comes from the
 * chain's resolution or the catalog; when neither is known yet (its record is on another stream), it
 * is read from the redemption itself: the one outcome winning, or all paying alike (a void), whose
 * payout for the shares held equals the collateral paid out; failing that, the collateral is spread
 * over the shares held. States are those after the batch's earlier changes (applyEvent settles
 * pending rewinds of these keys first). No leg realizes more than the collateral the event paid out.
 */
export function redemptionLegs(
  e: Extract<LedgerEvent, { kind: 'redemption' }>,
  market: MarketInfo | undefined,
  stateOf: (key: string) => PositionState,
): RedemptionLegs {
  const tokenIds = e.tokenIds.length > 0 ? e.tokenIds : (market?.tokenIds ?? []);
  const indices = redeemedIndices(e.indexSets, tokenIds.length);
  const held = indices.map((i) => stateOf(keyOf(e.wallet, tokenIds[i]!)).qty);
  const explicit = e.redeemed.length > 0;
  // What each leg gives up: the adapter's redeemed amounts, or the whole balance (CTF).
  const given = indices.map((i, j) => (explicit ? (e.redeemed[i] ?? 0n) : held[j]!));
  const payout = market?.payout ?? inferPayout(indices, given, e.amount, tokenIds.length);
  // Priced from the holdings (inferred or spread): its market's resolution prices it again. Priced by
  // the catalog's payout: a chain resolution that differs prices it again.
  const unpriced: UnpricedRedemption | null =
    (!market?.payout || market.catalogPayout) && !explicit && indices.length > 0
      ? { market_id: e.marketId, wallet: e.wallet, event_id: e.eventId, asset_id: tokenIds[indices[0]!]!, priced: market?.payout ? 2 : 0 }
      : null;
  const perShare = (j: number): { num: bigint; den: bigint } => {
    if (payout) return { num: payout.num[indices[j]!] ?? 0n, den: payout.den };
    // Spread: the collateral over the shares given up; none tracked, a share pays at most 1.
    const total = given.reduce((a, b) => a + b, 0n);
    return total > 0n ? { num: e.amount, den: total } : { num: e.amount > 0n ? 1n : 0n, den: 1n };
  };
  // Rounded down per outcome, as the CTF pays (payoutNumerator x stake / payoutDenominator).
  const expected = indices.map((_, j) => {
    const { num, den } = perShare(j);
    return den === 0n ? 0n : (given[j]! * num) / den;
  });
  const total = expected.reduce((a, b) => a + b, 0n);
  // More than was paid out: the ledger holds shares the chain did not; each leg gets its share of it.
  const scaled = total > e.amount;
  const paying = indices.filter((_, j) => perShare(j).num > 0n).length;
  const legs = indices.map((i, j) => {
    const { num, den } = perShare(j);
    const share = scaled ? divRound(expected[j]! * e.amount, total) : expected[j]!;
    // A CTF leg's stored action must not depend on what the ledger held when it was first applied,
    // since a rewind replays it as stored: an outcome paying nothing is 0/1 with no cap, and a paying
    // leg is capped by the whole payout unless several outcomes share a scaled-down one (then its
    // share, which depends on holdings; a share of 0 would read as no cap, so it keeps the whole).
    const action: LegAction = explicit
      ? { side: 'sell', qty: given[j]!, usdc: share }
      : num === 0n || e.amount === 0n
        ? { side: 'sell_all', payoutNum: 0n, payoutDen: 1n }
        : { side: 'sell_all', payoutNum: num, payoutDen: den, capUsdc: scaled && paying > 1 && share > 0n ? share : e.amount };
    return {
      meta: e,
      assetId: tokenIds[i]!,
      marketId: e.marketId,
      outcome: market?.outcomes[i] ?? String(i),
      outcomeIndex: i,
      kind: 'redemption',
      role: '',
      action,
      fee: 0n,
      price: den === 0n ? 0 : Number(num) / Number(den),
      volume: 0n,
      trades: 0,
      ...(explicit ? {} : { paid: e.amount }),
    } satisfies Leg;
  });
  return { legs, unresolved: payout ? 0 : indices.length, unpriced };
}

/**
 * NegRiskAdapter.convertPositions: `amount` NO shares of each of the k questions in the index set
 * become, less the market's fee f = amount x feeBips / 10,000 (rounded down), amount - f YES shares
 * of every other question prepared before the conversion plus (k - 1) x (amount - f) collateral
 * (none when k = 1); the vault keeps f YES shares of each and (k - 1) x f collateral (the first NO
 * leg's fee). The NO legs leave at their average cost (no PnL); that cost, less the collateral
 * received, becomes the YES legs' cost, split evenly (Polymarket's PnL subgraph prices the YES legs
 * the same way); collateral beyond the NO cost is realized with the first NO leg, and so is the loss of
 * NO cost beyond the collateral when every question is converted (no YES leg to carry it). `questions`
 * are the event's (`questionsOf`).
 */
export function conversionLegs(
  e: Extract<LedgerEvent, { kind: 'conversion' }>,
  questions: ConversionQuestion[],
  stateOf: (key: string) => PositionState,
): Leg[] {
  const no = questions.filter((q) => (e.indexSet >> BigInt(q.index)) & 1n);
  const yes = questions.filter((q) => !((e.indexSet >> BigInt(q.index)) & 1n));
  if (no.length === 0) return [];
  const fee = (e.amount * e.feeBips) / FEE_DENOMINATOR;
  const out = e.amount - fee;
  let noCost = 0n;
  const legs: Leg[] = [];
  for (const q of no) {
    const state = stateOf(keyOf(e.wallet, q.noToken));
    const closed = minBig(e.amount, state.qty);
    noCost += state.qty === 0n ? 0n : closed === state.qty ? state.cost : divRound(state.cost * closed, state.qty);
    legs.push({
      meta: e,
      assetId: q.noToken,
      marketId: q.marketId,
      outcome: q.outcomes[1 - q.yesIndex] ?? 'No',
      outcomeIndex: 1 - q.yesIndex,
      kind: 'conversion',
      role: '',
      action: { side: 'sell_at_cost', qty: e.amount },
      fee: 0n,
      price: 0,
      volume: 0n,
      trades: 0,
      questionIndex: q.index,
    });
  }
  const collateral = BigInt(no.length - 1) * out;
  legs[0] = { ...legs[0]!, fee: BigInt(no.length - 1) * fee };
  // With YES legs to carry it, NO cost above the collateral becomes their cost; with none (every
  // question converted) it is lost, so collateral minus NO cost is realized whatever its sign.
  const yesCost = yes.length > 0 && noCost > collateral ? noCost - collateral : 0n;
  const realized = yes.length > 0 && collateral <= noCost ? 0n : collateral - noCost;
  // Realized with the first NO leg (one row per key and event: a second row of the same event would
  // read as a redelivery).
  if (realized !== 0n) legs[0] = { ...legs[0]!, action: { side: 'sell_at_cost', qty: e.amount, usdc: realized } };
  const n = BigInt(yes.length);
  for (const [i, q] of yes.entries()) {
    const share = n === 0n ? 0n : yesCost / n;
    const usdc = i === 0 ? yesCost - share * (n - 1n) : share;
    legs.push({
      meta: e,
      assetId: q.yesToken,
      marketId: q.marketId,
      outcome: q.outcomes[q.yesIndex] ?? 'Yes',
      outcomeIndex: q.yesIndex,
      kind: 'conversion',
      role: '',
      action: { side: 'buy', qty: out, usdc },
      fee: 0n,
      price: out === 0n ? 0 : Number(usdc) / Number(out),
      volume: 0n,
      trades: 0,
      questionIndex: q.index,
    });
  }
  return legs;
}

/**
 * A conversion's questions: its own (the chain's count, the catalog's tokens), or for an event
 * published before the source carried them, the catalog's (by lowercase neg-risk market id).
 */
export function questionsOf(
  e: Extract<LedgerEvent, { kind: 'conversion' }>,
  catalog: ReadonlyMap<string, ConversionQuestion[]>,
): ConversionQuestion[] {
  return e.questions.length > 0 ? e.questions : (catalog.get(e.negRiskMarketId.toLowerCase()) ?? []);
}

/**
 * A transfer of q shares: they leave the sender at its average cost (`transfer_out`, sell_at_cost:
 * no PnL, no volume, no trade) and reach the receiver with that cost (`transfer_in`, a buy of q for
 * it). A sender holding fewer than q (history the ledger does not cover) moves what it holds at cost
 * and the rest at cost 0 (counted in `transfers_uncovered`). `stateOf` gives the sender's state just
 * before the transfer (the batch's current one, or a row's when re-priced).
 */
export function transferLegs(e: Extract<LedgerEvent, { kind: 'transfer' }>, stateOf: (key: string) => PositionState): Leg[] {
  const sender = stateOf(keyOf(e.wallet, e.assetId));
  const moved = minBig(e.shares, sender.qty);
  const cost = sender.qty === 0n ? 0n : moved === sender.qty ? sender.cost : divRound(sender.cost * moved, sender.qty);
  const price = e.shares === 0n ? 0 : Number(cost) / Number(e.shares);
  const leg = {
    assetId: e.assetId,
    marketId: e.marketId,
    outcome: e.outcome,
    outcomeIndex: e.outcomeIndex,
    role: '',
    fee: 0n,
    price: Math.round(price * 1e6) / 1e6,
    volume: 0n,
    trades: 0,
  };
  return [
    { ...leg, meta: e, kind: 'transfer_out', action: { side: 'sell_at_cost', qty: e.shares }, counterparty: e.to },
    {
      ...leg,
      meta: { ...e, wallet: e.to },
      kind: 'transfer_in',
      action: { side: 'buy', qty: e.shares, usdc: cost },
      counterparty: e.wallet,
    },
  ];
}

/** The (wallet, token)s an event changes, given the batch's markets and catalog questions. */
export function keysOfEvent(
  e: LedgerEvent,
  markets: ReadonlyMap<string, MarketInfo>,
  catalog: ReadonlyMap<string, ConversionQuestion[]>,
): string[] {
  if (e.kind === 'fill') return [keyOf(e.wallet, e.assetId)];
  if (e.kind === 'transfer') return [keyOf(e.wallet, e.assetId), keyOf(e.to, e.assetId)];
  if (e.kind === 'split' || e.kind === 'merge' || e.kind === 'redemption') {
    const ids = e.tokenIds.length > 0 ? e.tokenIds : (markets.get(e.marketId)?.tokenIds ?? []);
    return ids.map((id) => keyOf(e.wallet, id));
  }
  if (e.kind === 'conversion') return questionsOf(e, catalog).flatMap((q) => [keyOf(e.wallet, q.yesToken), keyOf(e.wallet, q.noToken)]);
  return [];
}

/** The outcome indices of a redemption's index sets (bit i = outcome i), in order. */
function redeemedIndices(indexSets: string[], outcomes: number): number[] {
  const indices = new Set<number>();
  for (const set of indexSets) {
    const bits = BigInt(set);
    for (let i = 0; i < outcomes; i++) if ((bits >> BigInt(i)) & 1n) indices.add(i);
  }
  return [...indices].sort((a, b) => a - b);
}
