/**
 * Neg-risk conversions on the simulated chain (`conversions: true`, `SIM_CONVERSIONS=1`): the events
 * whose questions the NegRiskAdapter prepares on chain, and the amounts of one `convertPositions`.
 *
 * Every neg-risk event with at least two tradable members takes part: its member markets get the
 * adapter's condition ids (keccak256(adapter, question id, 2), the adapter being their oracle), its
 * questions are prepared at the world's start (MarketPrepared, then one QuestionPrepared per member in
 * index order; inactive placeholders are not prepared), some events charge the adapter's fee, and in
 * some the last question is prepared halfway through the history: its market is listed and trades from
 * then on, and the conversions before it do not include it (the adapter counts the questions it has
 * when it converts). Two events without a late question resolve at 80 % of the history, so conversions
 * are settled (redeemed, checked by the zero sums) inside it.
 *
 * From Polymarket/neg-risk-ctf-adapter NegRiskAdapter.convertPositions, for `amount` A of each of the
 * k questions in the index set, a market of n questions and fee f = A x feeBips / 10,000 (rounded
 * down): the caller's k NO positions go to the burn address, it receives A - f YES of each of the
 * n - k other questions and (k - 1) x (A - f) collateral; the vault gets f YES of each and (k - 1) x f
 * collateral.
 */
import { negRiskConditionId } from '../services/chain/neg-risk-book.js';
import { POLYGON_CONTRACTS } from '../services/chain/polygon-contracts.js';
import { createRng } from './prng.js';
import type { SimMarket, World } from './world-types.js';

/** NegRiskAdapter.FEE_DENOMINATOR. */
const FEE_DENOMINATOR = 10_000n;
/** Fees the simulated events charge (bips), drawn per event: most charge none. */
const FEE_CHOICES = [0, 0, 0, 50, 100, 200];
/** Share of events (with 3 or more questions) whose last question is prepared late. */
const LATE_QUESTION_CHANCE = 0.4;
/** Events (without a late question) that resolve inside the history, at this share of it, so their conversions settle. */
const RESOLVED_EVENTS = 2;
const RESOLVED_AT_SHARE = 0.8;

export interface NegRiskPlan {
  eventIndex: number;
  marketId: string;
  feeBips: number;
  /** Markets of the questions, by question index (placeholders left out). */
  marketIndexes: number[];
  /** Epoch second each question is prepared on chain, by question index. */
  preparedAtSecond: number[];
  /** Its questions resolve inside the generated history (their conversions settle there). */
  resolvesInHistory: boolean;
}

export interface ConversionAmounts {
  fee: bigint;
  /** YES shares of each other question the caller receives. */
  yesOut: bigint;
  /** Collateral the caller receives. */
  collateralOut: bigint;
  /** What the vault keeps: collateral, and YES shares of each other question. */
  vaultCollateral: bigint;
  vaultYes: bigint;
}

/** convertPositions' amounts for `amount` of each of `k` NO positions. */
export function conversionAmounts(amount: bigint, k: number, feeBips: number): ConversionAmounts {
  if (k < 1) throw new RangeError('a conversion converts at least one NO position');
  const fee = (amount * BigInt(feeBips)) / FEE_DENOMINATOR;
  const out = amount - fee;
  const multiplier = BigInt(k - 1);
  return { fee, yesOut: out, collateralOut: multiplier * out, vaultCollateral: multiplier * fee, vaultYes: fee };
}

/** The index set of the questions converted: bit i for question i. */
export function indexSetOf(questions: readonly number[]): bigint {
  return questions.reduce((set, q) => set | (1n << BigInt(q)), 0n);
}

/**
 * Prepares the world's neg-risk events for conversions (in place: member condition ids, late members'
 * listing) and returns their plans. Draws from a stream of its own: without conversions nothing changes.
 */
export function planNegRisk(world: World, seed: number): NegRiskPlan[] {
  const rng = createRng(seed, 'neg-risk-conversions');
  const adapter = POLYGON_CONTRACTS.negRiskAdapter.toLowerCase();
  const originSecond = Math.floor(world.originMs / 1000);
  const generatedSecond = Math.floor(world.generatedAtMs / 1000);
  const plans: NegRiskPlan[] = [];
  for (const event of world.events) {
    if (!event.negRisk || !event.negRiskMarketId) continue;
    const members = event.marketIndexes.map((i) => world.markets[i] as SimMarket).filter((m) => !m.placeholder);
    // Events over before the history never trade: nothing to convert.
    if (members.length < 2 || members.some((m) => m.closesAtMs !== null && m.closesAtMs <= world.originMs)) continue;
    // Question index = the low byte of the question id (NegRiskIdLib), which world.ts set from the member order.
    members.sort((a, b) => questionIndex(a) - questionIndex(b));
    if (members.some((m, i) => questionIndex(m) !== i)) continue;
    for (const market of members) market.conditionId = negRiskConditionId(adapter, market.questionId);
    const feeBips = rng.pick(FEE_CHOICES);
    const preparedAtSecond = members.map(() => originSecond);
    let resolvesInHistory = false;
    const last = members[members.length - 1] as SimMarket;
    const open = (last.closesAtMs ?? Number.POSITIVE_INFINITY) > world.generatedAtMs;
    if (members.length >= 3 && open && rng.chance(LATE_QUESTION_CHANCE)) {
      const lateSecond = originSecond + Math.floor((generatedSecond - originSecond) / 2);
      preparedAtSecond[members.length - 1] = lateSecond;
      listLate(last, lateSecond * 1000);
    } else if (open && plans.filter((p) => p.resolvesInHistory).length < RESOLVED_EVENTS) {
      const atMs = world.originMs + Math.floor(((world.generatedAtMs - world.originMs) * RESOLVED_AT_SHARE) / 1000) * 1000;
      event.endDateMs = atMs;
      for (const market of members) {
        market.endDateMs = atMs;
        market.closesAtMs = atMs;
        market.resolvesOnClose = true;
      }
      resolvesInHistory = true;
    }
    plans.push({
      resolvesInHistory,
      eventIndex: event.index,
      marketId: event.negRiskMarketId,
      feeBips,
      marketIndexes: members.map((m) => m.index),
      preparedAtSecond,
    });
  }
  return plans;
}

const questionIndex = (market: SimMarket): number => Number.parseInt(market.questionId.slice(-2), 16);

/** A question added to its event later: Gamma lists it, and it trades, only from then on. */
function listLate(market: SimMarket, atMs: number): void {
  const micros = atMs * 1000;
  if (market.createdAtMicros < micros) {
    const shift = micros - market.createdAtMicros;
    market.createdAtMicros += shift;
    market.startDateMicros += shift;
  }
  market.acceptingOrdersFromMs = Math.max(market.acceptingOrdersFromMs, atMs + 60_000);
}
