/**
 * A market's payout as one exact fraction per outcome, whoever learnt it: the chain's
 * ConditionResolution (payout numerators over their sum) or the catalog (Gamma's outcome prices of a
 * resolved or voided market, the CLOB's winner). Both are reduced to lowest terms, so a catalog void
 * (0.5, 0.5) is the chain's [1, 1] / 2 and a redemption priced by either stores the same row.
 */
import type { Payout } from './ledger-legs.js';

/** Who learnt a payout. The chain's is preferred when both are known (ledger.ts `learnPayouts`). */
export type PayoutSource = 'chain' | 'catalog';

/** A payout the catalog gave, in the order of the token ids it named (the CLOB's message may list them in its own). */
export interface CatalogPayout {
  payout: Payout;
  tokenIds: string[];
}

const gcd = (a: bigint, b: bigint): bigint => {
  let [x, y] = [a < 0n ? -a : a, b < 0n ? -b : b];
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
};

/** The payout in lowest terms; null when nothing pays (a retracted or malformed resolution). */
function reduced(num: bigint[], den: bigint): Payout | null {
  if (den <= 0n || num.some((n) => n < 0n) || !num.some((n) => n > 0n)) return null;
  const divisor = num.reduce(gcd, den);
  return { num: num.map((n) => n / divisor), den: den / divisor };
}

/** The chain's payout: each outcome's numerator over their sum (payoutDenominator). */
export function payoutOfNumerators(numerators: bigint[]): Payout | null {
  return reduced(
    numerators,
    numerators.reduce((a, b) => a + b, 0n),
  );
}

/**
 * The catalog's payout: each outcome's price at resolution, 0..1, in micro-units (the precision of
 * every USDC figure) over 10^6. Gamma's prices of a settled market are 1 and 0, or 0.5 each for a void.
 */
export function payoutOfPrices(prices: number[]): Payout | null {
  if (prices.some((p) => !Number.isFinite(p))) return null;
  return reduced(
    prices.map((p) => BigInt(Math.round(p * 1e6))),
    1_000_000n,
  );
}

/** Whether two payouts pay the same per share on every outcome (a missing outcome pays nothing). */
export function samePayout(a: Payout, b: Payout): boolean {
  const outcomes = Math.max(a.num.length, b.num.length);
  for (let i = 0; i < outcomes; i += 1) if ((a.num[i] ?? 0n) * b.den !== (b.num[i] ?? 0n) * a.den) return false;
  return true;
}

/**
 * A catalog payout in the order of the market's outcome tokens (the catalog's order, which is the
 * condition's index order the chain's numerators follow), when it named those tokens; else as given.
 */
export function alignedPayout(known: CatalogPayout, tokenIds: readonly string[]): Payout {
  const { payout } = known;
  if (tokenIds.length === 0 || tokenIds.length !== known.tokenIds.length) return payout;
  const at = tokenIds.map((id) => known.tokenIds.indexOf(id));
  if (at.some((i) => i < 0)) return payout;
  return { num: at.map((i) => payout.num[i] ?? 0n), den: payout.den };
}

export const formatPayout = (p: Payout) => `[${p.num.join(',')}]/${p.den}`;
