/** Payouts from the chain's numerators and the catalog's prices: one exact fraction per outcome, in lowest terms. */
import { alignedPayout, payoutOfNumerators, payoutOfPrices, samePayout } from './ledger-payouts.js';

test("a catalog void (0.5 each) is the chain's [1, 1] / 2, a winner 1/1, and nothing paying is no payout", () => {
  expect(payoutOfPrices([0.5, 0.5])).toEqual({ num: [1n, 1n], den: 2n });
  expect(payoutOfNumerators([1n, 1n])).toEqual({ num: [1n, 1n], den: 2n });
  expect(payoutOfPrices([0, 1])).toEqual({ num: [0n, 1n], den: 1n });
  expect(payoutOfNumerators([0n, 3n])).toEqual({ num: [0n, 1n], den: 1n });
  expect(payoutOfPrices([0.25, 0.75])).toEqual({ num: [1n, 3n], den: 4n });
  expect(payoutOfPrices([0, 0])).toBeNull();
  expect(payoutOfNumerators([0n, 0n])).toBeNull();
  expect(payoutOfPrices([Number.NaN, 1])).toBeNull();
  expect(payoutOfPrices([-1, 1])).toBeNull();
});

test('two payouts are the same when every outcome pays the same per share, whatever their denominators', () => {
  expect(samePayout({ num: [500_000n, 500_000n], den: 1_000_000n }, { num: [1n, 1n], den: 2n })).toBe(true);
  expect(samePayout({ num: [1n, 0n], den: 1n }, { num: [1n], den: 1n })).toBe(true);
  expect(samePayout({ num: [1n, 0n], den: 1n }, { num: [0n, 1n], den: 1n })).toBe(false);
  expect(samePayout({ num: [1n, 1n], den: 2n }, { num: [1n, 0n], den: 1n })).toBe(false);
});

test("a catalog payout is put in the market's token order when it named those tokens, else kept as given", () => {
  const known = { payout: { num: [1n, 0n], den: 1n }, tokenIds: ['b', 'a'] };
  expect(alignedPayout(known, ['a', 'b'])).toEqual({ num: [0n, 1n], den: 1n });
  expect(alignedPayout(known, ['b', 'a'])).toEqual({ num: [1n, 0n], den: 1n });
  expect(alignedPayout(known, [])).toEqual({ num: [1n, 0n], den: 1n });
  expect(alignedPayout(known, ['a', 'c'])).toEqual({ num: [1n, 0n], den: 1n });
  expect(alignedPayout({ ...known, tokenIds: [] }, ['a', 'b'])).toEqual({ num: [1n, 0n], den: 1n });
});
