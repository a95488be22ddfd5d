/** Hand-computed examples of the definitions in trader-report.ts, ../positions/ledger-math.ts and ../positions/position-value.ts. */
import { applyLeg, divRound, EMPTY_STATE, inferPayout } from '../positions/ledger-math.js';
import { valueAt } from '../positions/position-value.js';
import { capitalAtRisk, equityDrawdown } from './trader-report.js';

const m = (usdc: number) => BigInt(Math.round(usdc * 1e6));

describe('drawdown: peak-to-trough of equity against its running peak', () => {
  test('the same 50 % fall scores the same whatever comes after it', () => {
    expect(equityDrawdown(0n, [m(100), m(50), m(1000)])).toBe(0.5);
    expect(equityDrawdown(0n, [m(100), m(50), m(100)])).toBe(0.5);
  });
  test('a $2 dip on $1,000 of capital is 0.2 %, not the maximum', () => {
    expect(equityDrawdown(m(1000), [0n, m(-2), 0n])).toBeCloseTo(0.002, 10);
  });
  test('losing all the capital is 1; no capital and no profit is 0', () => {
    expect(equityDrawdown(m(100), [0n, m(-100)])).toBe(1);
    expect(equityDrawdown(0n, [0n, m(-5)])).toBe(0);
  });
});

describe('weighted-average cost in micro-units', () => {
  test('buys average, a sell realizes against the average, the basis keeps the rounding', () => {
    let s = applyLeg(EMPTY_STATE, { side: 'buy', qty: m(3), usdc: m(1) }, 1).state; // 3 shares for 1 USDC
    const sell = applyLeg(s, { side: 'sell', qty: m(1), usdc: m(0.5) }, 2); // removes 1/3 of the cost: 333,333
    expect(sell.removedCost).toBe(333_333n);
    expect(sell.realized).toBe(500_000n - 333_333n);
    s = sell.state;
    expect(s).toMatchObject({ qty: m(2), cost: 666_667n });
    // the cost taken out plus the basis left is the cost paid in, exactly; realized = proceeds - cost taken out
    expect(sell.removedCost + s.cost).toBe(m(1));
    expect(sell.realized + sell.removedCost).toBe(sell.cash);
  });
  test('selling more than held realizes on the held shares only', () => {
    const s = applyLeg(EMPTY_STATE, { side: 'buy', qty: m(10), usdc: m(2) }, 1).state;
    const sell = applyLeg(s, { side: 'sell', qty: m(25), usdc: m(12.5) }, 2); // 10 of 25 at 0.5: 5 - 2
    expect(sell.realized).toBe(m(3));
    expect(sell.state).toEqual({ qty: 0n, cost: 0n, openedMs: 0 });
  });
  test('redemption sells all held at the payout', () => {
    const s = applyLeg(EMPTY_STATE, { side: 'buy', qty: m(90), usdc: m(45) }, 1).state;
    expect(applyLeg(s, { side: 'sell_all', payoutNum: 1n, payoutDen: 1n }, 2).realized).toBe(m(45));
    expect(applyLeg(s, { side: 'sell_all', payoutNum: 0n, payoutDen: 1n }, 2).realized).toBe(-m(45));
  });
  test('rounding is half up; values at a mark are micro-exact', () => {
    expect(divRound(5n, 2n)).toBe(3n);
    expect(divRound(4n, 3n)).toBe(1n);
    expect(valueAt(m(20), 0.7)).toBe(m(14));
  });
});

describe('redemption and conversion legs', () => {
  test('a redemption pays no more than its cap; a conversion leg realizes the collateral with it', () => {
    const s = applyLeg(EMPTY_STATE, { side: 'buy', qty: m(100), usdc: m(40) }, 1).state;
    expect(applyLeg(s, { side: 'sell_all', payoutNum: 1n, payoutDen: 1n, capUsdc: m(60) }, 2)).toMatchObject({
      cash: m(60),
      realized: m(20),
    });
    expect(applyLeg(s, { side: 'sell_at_cost', qty: m(100), usdc: m(40) }, 2)).toMatchObject({
      cash: m(80),
      realized: m(40),
      removedCost: m(40),
    });
  });
  test('an unknown payout is the one candidate that pays what the redemption paid for the shares given up', () => {
    // 50 YES and 30 NO: 30 paid means NO won; 50 means YES won; 40 a void (0.5 each); 35 fits none.
    expect(inferPayout([0, 1], [m(50), m(30)], m(30), 2)).toEqual({ num: [0n, 1n], den: 1n });
    expect(inferPayout([0, 1], [m(50), m(30)], m(50), 2)).toEqual({ num: [1n, 0n], den: 1n });
    expect(inferPayout([0, 1], [m(50), m(30)], m(40), 2)).toEqual({ num: [1n, 1n], den: 2n });
    expect(inferPayout([0, 1], [m(50), m(30)], m(35), 2)).toBeNull();
    // Equal holdings: either outcome winning fits; not decided here.
    expect(inferPayout([0, 1], [m(10), m(10)], m(10), 2)).toBeNull();
  });
});

describe('capital at risk: the peak of net cash invested', () => {
  const day = (d: number, paid: number, received: number) => ({ dayMs: d * 86_400_000, paid: m(paid), cash: m(received - paid) });
  test('a $1,000 bankroll recycled 100 times that ends $900 down: capital 1,000, drawdown 90 %', () => {
    // Each day it buys with all it has and sells for 9 less: 1,000 -> 991, 991 -> 982, ... turnover about 55,000.
    const days = Array.from({ length: 100 }, (_, d) => day(d, 1000 - 9 * d, 1000 - 9 * (d + 1)));
    expect(capitalAtRisk(days)).toBe(m(1000));
    // Its curve falls to -900 against 1,000 of capital: 90 %; against turnover it was under 2 %.
    expect(equityDrawdown(m(1000), [0n, m(-450), m(-900)])).toBeCloseTo(0.9, 10);
  });
  test('days are taken in day order; what a day pays counts on top of what was in at its start', () => {
    // Day 1 pays 100 (peak 100); day 2 starts with 100 in and pays 30 (at most 130 in), gets 60 back.
    expect(capitalAtRisk([day(2, 30, 60), day(1, 100, 0)])).toBe(m(130));
    expect(capitalAtRisk([day(1, 100, 0), day(2, 80, 0)])).toBe(m(180));
    expect(capitalAtRisk([day(1, 0, 5)])).toBe(0n);
  });
});
