/**
 * Identity 1 with ERC-1155 transfers, on two wallets worked out by hand: A buys 100 for 40 and sends 60
 * to B (their cost: 24; A realizes nothing) and holds 40 marked at 0.50 (value 20, cost 16); B sells the
 * 60 for 30 (realized 30 - 24 = 6). Without counting a transfer out as its cost received and a transfer
 * in as its cost paid, both wallets would be violations.
 */
import type { Population, WalletObservation } from './collect.js';
import { againstTruth, cashIdentity, coverage, shares, zeroSum } from './checks.js';
import type { ApiCurve, ApiPositions, ApiTrader, TruthWallet } from './sources.js';

function wallet(
  address: string,
  realized: number,
  position: { value: number; cost: number } | null,
  cash: { paid: string; received: string; out: string; into: string },
): WalletObservation {
  return {
    wallet: address,
    trader: { lifetime: { total_realized_pnl: realized } } as unknown as ApiTrader,
    positions: {
      positions: position
        ? [
            {
              asset_id: '1',
              market_id: 'm',
              current_value_usdc: position.value,
              cost_basis_usdc: position.cost,
              unrealized_pnl_usdc: position.value - position.cost,
            },
          ]
        : [],
    } as unknown as ApiPositions,
    curve: { points: [] } as unknown as ApiCurve,
    reads: 1,
    truth: {
      address,
      cash_paid_micro: cash.paid,
      cash_received_micro: cash.received,
      transfer_out_cost_micro: cash.out,
      transfer_in_cost_micro: cash.into,
    } as unknown as TruthWallet,
  };
}

const population = (wallets: WalletObservation[]): Population => ({
  wallets,
  unread: [],
  listed: { board: 0, truth: 0, union: 0, truncated: false },
});

test('identity 1 counts a transfer out as its cost received and a transfer in as its cost paid', () => {
  const sender = wallet('0xa', 0, { value: 20, cost: 16 }, { paid: '40000000', received: '0', out: '24000000', into: '0' });
  const receiver = wallet('0xb', 6, null, { paid: '0', received: '30000000', out: '0', into: '24000000' });
  expect(cashIdentity(population([sender, receiver]), true)).toMatchObject({ checked: 2, violations: 0 });
});

test('identity 1 still finds a wallet off by a micro-unit', () => {
  const receiver = wallet('0xb', 6.000001, null, { paid: '0', received: '30000000', out: '0', into: '24000000' });
  expect(cashIdentity(population([receiver]), true)).toMatchObject({ checked: 1, violations: 1 });
});

/**
 * The zero sum with a wallet the API does not know, worked out by hand on one resolved market (YES pays
 * 1): B splits 100 (pays 100) and sells the 100 YES to A for 40; A sends them to C, which never traded.
 * By the truth the market sums to 0 (A -40, B +40 - 100, C 100 shares x 1). The API does not know C: it
 * serves C holding nothing, so the market sums to -100, a violation, and check 0 names C. Before, any
 * unread wallet skipped every market (0 checked).
 */
describe('a wallet the API does not know', () => {
  const market = 'm';
  const token = (id: string, outcome: number, shares: string) => ({
    token_id: id,
    market_id: market,
    outcome_index: outcome,
    shares_micro: shares,
    held_micro: shares,
    cost_basis_micro: '0',
    fee_shares_micro: '0',
    fee_shares_value_micro: '0',
  });
  const truthOf = (address: string, paid: string, received: string, tokens: ReturnType<typeof token>[]) =>
    ({
      address,
      tokens,
      markets: [
        {
          market_id: market,
          payout: ['1000000', '0'],
          both_sides_wallets: true,
          cash_paid_micro: paid,
          cash_received_micro: received,
        },
      ],
    }) as unknown as TruthWallet;
  const observed = (truth: TruthWallet, held: Array<{ asset: string; shares: string }>): WalletObservation => ({
    wallet: truth.address,
    trader: {} as ApiTrader,
    positions: {
      positions: held.map((h) => ({ asset_id: h.asset, market_id: market, size_shares_micro: h.shares })),
    } as unknown as ApiPositions,
    curve: { points: [] } as unknown as ApiCurve,
    reads: 1,
    truth,
  });
  const a = truthOf('0xa', '40000000', '0', [token('yes', 0, '0')]);
  const b = truthOf('0xb', '100000000', '40000000', [token('yes', 0, '0'), token('no', 1, '100000000')]);
  const c = truthOf('0xc', '0', '0', [token('yes', 0, '100000000')]);
  const read = [observed(a, []), observed(b, [{ asset: 'no', shares: '100000000' }])];

  test('is counted in the zero sum as holding nothing, so its market is checked and off', () => {
    const [api, truth] = zeroSum(
      {
        wallets: read,
        unread: [{ wallet: '0xc', reason: 'unknown', detail: '404', truth: c }],
        listed: { board: 2, truth: 3, union: 3, truncated: false },
      },
      true,
    );
    expect(api).toMatchObject({ checked: 1, violations: 1 });
    expect(api?.examples[0]).toContain('-100.000000');
    expect(truth).toMatchObject({ checked: 1, violations: 0 });
  });

  test('read, it closes the sum', () => {
    const [api] = zeroSum(population([...read, observed(c, [{ asset: 'yes', shares: '100000000' }])]), true);
    expect(api).toMatchObject({ checked: 1, violations: 0 });
  });

  test('is reported by check 0; a wallet read inconsistently skips only the markets it touched', () => {
    const unread: Population['unread'] = [{ wallet: '0xc', reason: 'unknown', detail: 'the API does not know it (404)', truth: c }];
    expect(coverage({ wallets: read, unread, listed: { board: 2, truth: 3, union: 3, truncated: false } })).toMatchObject({
      checked: 3,
      violations: 1,
      examples: ['0xc… the API does not know it (404)'],
    });
    const other = truthOf('0xd', '0', '0', []);
    (other.markets[0] as { market_id: string }).market_id = 'elsewhere';
    const inconsistent = (truth: TruthWallet | null): Population => ({
      wallets: [...read, observed(c, [{ asset: 'yes', shares: '100000000' }])],
      unread: [{ wallet: '0xd', reason: 'inconsistent', detail: 'data_as_of', truth }],
      listed: { board: 4, truth: 4, union: 4, truncated: false },
    });
    expect(zeroSum(inconsistent(other), true)[0]).toMatchObject({ checked: 1, violations: 0 });
    expect(zeroSum(inconsistent(b), true)[0]).toMatchObject({ checked: 0 });
    expect(zeroSum(inconsistent(null), true)[0]).toMatchObject({ checked: 0 });
  });
});

/** One wallet's truth in one or more markets, and the positions the API serves for it (the truth's). */
const held = (
  address: string,
  markets: TruthWallet['markets'],
  tokens: Array<{ id: string; market: string; outcome: number; shares: string }>,
) => {
  const truth = {
    address,
    markets,
    tokens: tokens.map((t) => ({
      token_id: t.id,
      market_id: t.market,
      outcome_index: t.outcome,
      shares_micro: t.shares,
      held_micro: t.shares,
      cost_basis_micro: '0',
      fee_shares_micro: '0',
      fee_shares_value_micro: '0',
    })),
  } as unknown as TruthWallet;
  return {
    wallet: address,
    trader: {} as ApiTrader,
    positions: {
      positions: tokens.filter((t) => t.shares !== '0').map((t) => ({ asset_id: t.id, market_id: t.market, size_shares_micro: t.shares })),
    } as unknown as ApiPositions,
    curve: { points: [] } as unknown as ApiCurve,
    reads: 1,
    truth,
  } satisfies WalletObservation;
};
const resolved = (id: string, payout: [string, string], paid: string, received: string, voidOdd = 0) =>
  ({
    market_id: id,
    payout,
    both_sides_wallets: true,
    cash_paid_micro: paid,
    cash_received_micro: received,
    void_odd_redeemed: voidOdd,
  }) as unknown as TruthWallet['markets'][number];

/**
 * A void, in micro-units: B splits 3 (pays 3) and sells the 3 YES to A for 2; both redeem after the
 * 50-50 resolution, and the CTF pays each 3 micro-shares' half rounded down: 1. A: -2 + 1, B: -3 + 2 + 1,
 * so the market sums to -1, half a micro-unit per odd balance redeemed: 2 x (-1) + 2 = 0.
 */
describe('the zero sum of a voided market', () => {
  const half: [string, string] = ['500000', '500000'];
  test('is minus half a micro-unit per odd balance', () => {
    const a = held('0xa', [resolved('v', half, '2', '1', 1)], [{ id: 'y', market: 'v', outcome: 0, shares: '0' }]);
    const b = held('0xb', [resolved('v', half, '3', '3', 1)], [{ id: 'n', market: 'v', outcome: 1, shares: '0' }]);
    expect(zeroSum(population([a, b]), true).map((r) => r.violations)).toEqual([0, 0]);
  });

  test('a payout a micro-unit off, or an odd balance not counted, is a violation', () => {
    const a = held('0xa', [resolved('v', half, '2', '2', 1)], [{ id: 'y', market: 'v', outcome: 0, shares: '0' }]);
    const b = held('0xb', [resolved('v', half, '3', '3', 1)], [{ id: 'n', market: 'v', outcome: 1, shares: '0' }]);
    expect(zeroSum(population([a, b]), true).map((r) => r.violations)).toEqual([1, 1]);
    const uncounted = held('0xa', [resolved('v', half, '2', '1', 0)], [{ id: 'y', market: 'v', outcome: 0, shares: '0' }]);
    expect(zeroSum(population([uncounted, b]), true).map((r) => r.violations)).toEqual([1, 1]);
  });

  test('held, an odd balance counts from its shares', () => {
    // A keeps its 3 YES: valued at 1 (half rounded down), odd.
    const a = held('0xa', [resolved('v', half, '2', '0', 0)], [{ id: 'y', market: 'v', outcome: 0, shares: '3' }]);
    const b = held('0xb', [resolved('v', half, '3', '3', 1)], [{ id: 'n', market: 'v', outcome: 1, shares: '0' }]);
    expect(zeroSum(population([a, b]), true).map((r) => r.violations)).toEqual([0, 0]);
  });
});

/**
 * A conversion, with the adapter as counterparty: a two-question neg-risk event, question 1 wins. W
 * splits 10 on question 0 (pays 10: 10 YES0, 10 NO0) and converts its 10 NO0 (k = 1, fee 1 %: 0.1) into
 * 9.9 YES1 and no collateral; C split 20 on question 1 and holds both sides. Without the adapter,
 * question 0 sums to -10 (W paid 10, its YES0 pays 0, its NO0 are burned) and question 1 to +9.9 (W's
 * YES1, C's 0); the adapter took 10 NO0, worth 10, and gave 9.9 YES1, worth 9.9: both close.
 */
describe('the zero sum with a conversion', () => {
  const conversion = {
    neg_risk_market_id: '0xevent',
    amount_micro: '10000000',
    yes_out_micro: '9900000',
    collateral_out_micro: '0',
    no_market_ids: ['q0'],
    yes_market_ids: ['q1'],
    cash_market_id: 'q0',
  };
  const w = held(
    '0xw',
    [resolved('q0', ['0', '1000000'], '10000000', '0'), resolved('q1', ['1000000', '0'], '0', '0')],
    [
      { id: 'y0', market: 'q0', outcome: 0, shares: '10000000' },
      { id: 'n0', market: 'q0', outcome: 1, shares: '0' },
      { id: 'y1', market: 'q1', outcome: 0, shares: '9900000' },
    ],
  );
  const c = held(
    '0xc',
    [resolved('q1', ['1000000', '0'], '20000000', '0')],
    [
      { id: 'y1', market: 'q1', outcome: 0, shares: '20000000' },
      { id: 'n1', market: 'q1', outcome: 1, shares: '20000000' },
    ],
  );

  test('closes each market with the adapter counted', () => {
    (w.truth as { conversions?: unknown }).conversions = [conversion];
    expect(zeroSum(population([w, c]), true).map((r) => [r.checked, r.violations])).toEqual([
      [2, 0],
      [2, 0],
    ]);
  });

  test('without it, both markets are off', () => {
    (w.truth as { conversions?: unknown }).conversions = [];
    expect(zeroSum(population([w, c]), true).map((r) => [r.checked, r.violations])).toEqual([
      [2, 2],
      [2, 2],
    ]);
  });
});

/**
 * Check 4 on a live system: a wallet whose truth is the same at data_as_of and after the reads is held
 * to it exactly; one that moved between the two (it traded, or one of its markets resolved) may be
 * served anywhere between them, never outside.
 */
describe('check 4 against a wallet that moved while read', () => {
  const figures = (trades: number, won: number, volume: number) => ({ trades, won, volume });
  const truthOf = (f: ReturnType<typeof figures>) =>
    ({
      address: '0xa',
      realized_micro: '0',
      volume_micro: String(f.volume * 1_000_000),
      trades: f.trades,
      markets_traded: 1,
      fees_micro: '0',
      won: f.won,
      lost: 0,
      realized_by_day: [],
      tokens: [],
      markets: [],
    }) as unknown as TruthWallet;
  const observed = (api: ReturnType<typeof figures>, atAsOf: ReturnType<typeof figures>, after?: ReturnType<typeof figures>) =>
    ({
      wallet: '0xa',
      trader: {
        lifetime: {
          total_realized_pnl: 0,
          volume_usdc: api.volume,
          trades: api.trades,
          markets_traded: 1,
          fees_paid_usdc: 0,
          won: api.won,
          lost: 0,
        },
      } as unknown as ApiTrader,
      positions: { positions: [] } as unknown as ApiPositions,
      curve: { points: [] } as unknown as ApiCurve,
      reads: 1,
      truth: truthOf(atAsOf),
      ...(after ? { movedTo: truthOf(after) } : {}),
    }) as WalletObservation;
  const violations = (w: WalletObservation) => Object.fromEntries(againstTruth(population([w]), true).map((r) => [r.id, r.violations]));

  test('a still wallet is held exactly', () => {
    expect(violations(observed(figures(10, 0, 100), figures(10, 0, 100)))).toMatchObject({ '4 trades': 0, '4 won': 0, '4 volume': 0 });
    expect(violations(observed(figures(11, 1, 101), figures(10, 0, 100)))).toMatchObject({ '4 trades': 1, '4 won': 1, '4 volume': 1 });
  });

  test('a moved wallet is held between its two truths, inclusive, and never outside', () => {
    const atAsOf = figures(10, 0, 100);
    const after = figures(12, 2, 120);
    for (const api of [figures(10, 0, 100), figures(11, 2, 110), figures(12, 2, 120)])
      expect(violations(observed(api, atAsOf, after))).toMatchObject({ '4 trades': 0, '4 won': 0, '4 volume': 0 });
    expect(violations(observed(figures(9, 3, 99), atAsOf, after))).toMatchObject({ '4 trades': 1, '4 won': 1, '4 volume': 1 });
    expect(violations(observed(figures(13, 0, 121), atAsOf, after))).toMatchObject({ '4 trades': 1, '4 won': 0, '4 volume': 1 });
  });

  test('a moved wallet is not held on a lifetime figure that can fall (realized): only per market, where it did not move', () => {
    const moved = observed(figures(11, 1, 110), figures(10, 0, 100), figures(12, 2, 120));
    moved.trader.lifetime.total_realized_pnl = 42;
    expect(violations(moved)).toMatchObject({ '4 realized': 0, '4 trades': 0 });
    expect(violations({ ...moved, movedTo: undefined })).toMatchObject({ '4 realized': 1 });
  });

  test('checks 1 and 3 leave a moved wallet out, as the zero sum leaves out its markets', () => {
    const moved = observed(figures(11, 0, 110), figures(10, 0, 100), figures(12, 0, 120));
    expect(cashIdentity(population([moved]), true)).toMatchObject({ checked: 0 });
  });
});

/** A truth's lifetime figures of a wallet that traded nothing, for the tests below that check other figures. */
const NOTHING_TRADED = {
  realized_micro: '0',
  volume_micro: '0',
  trades: 0,
  markets_traded: 0,
  fees_micro: '0',
  won: 0,
  lost: 0,
};

/**
 * A wallet that moved while read in one market ("moving": 1 share, then 3) and not in another
 * ("still": 5 shares that cost 2, marked at 0.50 by the API: unrealized 0.50). Its still market is held
 * exactly (shares, unrealized); whatever the API serves in the moving one is not held.
 */
describe('a moved wallet in the markets it did not move in', () => {
  const token = (id: string, market: string, shares: string, cost: string) => ({
    token_id: id,
    market_id: market,
    outcome_index: 0,
    shares_micro: shares,
    held_micro: shares,
    cost_basis_micro: cost,
    fee_shares_micro: '0',
    fee_shares_value_micro: '0',
  });
  const truthOf = (movingShares: string, movingCost: string) =>
    ({
      address: '0xm',
      markets: [
        { market_id: 'still', payout: null, realized_micro: '1000000' },
        { market_id: 'moving', payout: null, realized_micro: '0' },
      ],
      tokens: [token('s', 'still', '5000000', '2000000'), token('m', 'moving', movingShares, movingCost)],
      ...NOTHING_TRADED,
      realized_by_day: [],
    }) as unknown as TruthWallet;
  const observed = (api: Array<{ asset: string; market: string; shares: string; unrealized: number; realized?: number }>) =>
    ({
      wallet: '0xm',
      trader: {
        lifetime: { total_realized_pnl: 0, volume_usdc: 0, trades: 0, markets_traded: 0, fees_paid_usdc: 0, won: 0, lost: 0 },
      } as unknown as ApiTrader,
      positions: {
        positions: api.map((p) => ({
          asset_id: p.asset,
          market_id: p.market,
          size_shares_micro: p.shares,
          mark_price: 0.5,
          unrealized_pnl_usdc: p.unrealized,
          realized_pnl_usdc: p.realized ?? 0,
        })),
      } as unknown as ApiPositions,
      curve: { points: [] } as unknown as ApiCurve,
      reads: 2,
      truth: truthOf('1000000', '500000'),
      movedTo: truthOf('3000000', '1500000'),
    }) as WalletObservation;
  const checked = (w: WalletObservation) => {
    const results = againstTruth(population([w]), true);
    const unrealized = results.find((r) => r.id === '4 unrealized')!;
    const realized = results.find((r) => r.id === '4 realized')!;
    const held = shares(population([w]), true);
    return {
      shares: [held.checked, held.violations],
      unrealized: [unrealized.checked, unrealized.violations],
      realized: [realized.checked, realized.violations],
    };
  };
  // It realized 1 there before (a closed token of the same market would carry it as well).
  const still = { asset: 's', market: 'still', shares: '5000000', unrealized: 0.5, realized: 1 };

  test('agreeing there, it passes whatever it serves in the market it moved in', () => {
    for (const moving of ['1000000', '2000000', '9000000'])
      expect(checked(observed([still, { asset: 'm', market: 'moving', shares: moving, unrealized: 7, realized: -3 }]))).toEqual({
        shares: [1, 0],
        unrealized: [1, 0],
        realized: [1, 0],
      });
  });

  test('off there by a share or by unrealized, it is a violation', () => {
    expect(checked(observed([{ ...still, shares: '4000000' }])).shares).toEqual([1, 1]);
    expect(checked(observed([{ ...still, unrealized: 0.7 }])).unrealized).toEqual([1, 1]);
    expect(checked(observed([{ ...still, realized: 1.000001 }])).realized).toEqual([1, 1]);
    // Its realized there split over an open and a closed token of the market is the market's.
    expect(
      checked(
        observed([
          { ...still, realized: 0.25 },
          { asset: 's2', market: 'still', shares: '0', unrealized: 0, realized: 0.75 },
        ]),
      ).realized,
    ).toEqual([1, 0]);
    // The still market's position missing altogether: check 3 finds it, and its realized PnL missing (unrealized
    // skips a position the API does not mark, as for a still wallet).
    expect(checked(observed([{ asset: 'm', market: 'moving', shares: '2000000', unrealized: 0 }]))).toEqual({
      shares: [1, 1],
      unrealized: [1, 0],
      realized: [1, 1],
    });
  });
});

/**
 * A wallet that realized 5 on 11-01 and 3 on 11-02, and realizes 2 more on 11-03 while read: its curve
 * up to 11-02 is settled (5, 8) and held exactly; from 11-03 on the API may serve either state.
 */
describe("a moved wallet's curve before the day it moved", () => {
  const truthOf = (days: Array<[string, string]>) =>
    ({
      address: '0xc',
      markets: [],
      tokens: [],
      ...NOTHING_TRADED,
      realized_by_day: days.map(([date, realized_micro]) => ({ date, realized_micro })),
    }) as unknown as TruthWallet;
  const before = truthOf([
    ['2026-11-01', '5000000'],
    ['2026-11-02', '3000000'],
  ]);
  const after = truthOf([
    ['2026-11-01', '5000000'],
    ['2026-11-02', '3000000'],
    ['2026-11-03', '2000000'],
  ]);
  const curveCheck = (points: Array<[string, number]>) => {
    const w = {
      wallet: '0xc',
      trader: {
        lifetime: { total_realized_pnl: 0, volume_usdc: 0, trades: 0, markets_traded: 0, fees_paid_usdc: 0, won: 0, lost: 0 },
      } as unknown as ApiTrader,
      positions: { positions: [] } as unknown as ApiPositions,
      curve: { points: points.map(([date, realized]) => ({ date, realized })) } as unknown as ApiCurve,
      reads: 2,
      truth: before,
      movedTo: after,
    } as WalletObservation;
    const result = againstTruth(population([w]), true).find((r) => r.id === '4 daily_curve')!;
    return [result.checked, result.violations];
  };

  test('the settled days are held exactly, the day it moved on is not', () => {
    for (const today of [8, 10, 99])
      expect(
        curveCheck([
          ['2026-11-01', 5],
          ['2026-11-02', 8],
          ['2026-11-03', today],
        ]),
      ).toEqual([1, 0]);
    expect(
      curveCheck([
        ['2026-11-01', 5],
        ['2026-11-02', 9],
        ['2026-11-03', 10],
      ]),
    ).toEqual([1, 1]);
  });
});
