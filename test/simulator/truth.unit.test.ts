/**
 * The simulator's accounting (truth.ts) on a tiny world written by hand: one market, a taker A, a
 * second trader B and a market maker M, seven chain entries. Every expected number below was worked
 * out by hand from the definitions (weighted-average cost, exact micro-units, half-up rounding of the
 * cost a sell takes out, the v2 taker fee 0.02 x shares x p x (1 - p), the v1 taker buy's fee of
 * 0.02 x min(p, 1 - p) x shares / p shares worth their fill price), not by running the code.
 *
 *   E1 day 1 (v1) M splits 100            M: YES 100 for 50, NO 100 for 50; pays 100
 *   E2 day 1 (v1) A buys 100 YES @ 0.40   from M: M sells YES 100 for 40, cost out 50: -10; the fee is
 *                                         0.02 x 0.4 x 100 / 0.4 = 2 shares, worth 2 x 0.4 = 0.8: A gets
 *                                         98 YES that cost 39.2 (its cash paid before fees)
 *   E3 day 2 (v2) B splits 3.000001       B: YES 3.000001 for 1.500001 (odd micro-unit), NO for 1.500000
 *   E4 day 2 (v2) A sells 30 YES @ 0.70   to M: A gets 21, cost out 39.2 x 30/98 = 12: +9; fee 0.126
 *   E5 day 2 (v2) B sells 1 YES @ 0.60    to M: B gets 0.6, cost out 1.500001 x 1/3.000001 = 0.5000001667
 *                                         -> 0.500000 (half up): +0.1; fee 0.02 x 1 x 0.6 x 0.4 = 0.0048
 *   E6 day 2 the market resolves YES
 *   E7 day 2 A redeems 68 YES             A gets 68, cost out 27.2: +40.8
 */
import { SimulatedChain } from '../../simulator/chain.js';
import { fillAmounts, micro } from '../../simulator/fill-amounts.js';
import type { ActivityEntry } from '../../simulator/ledger.js';
import type { SimTrade } from '../../simulator/trades.js';
import { SimulatorTruth, type WalletTruth } from '../../simulator/truth.js';
import type { SimMarket } from '../../simulator/world-types.js';
import { smallState } from './fixtures.js';

const DAY1 = Date.UTC(2026, 3, 10, 10, 0, 0) / 1000;
const DAY2 = Date.UTC(2026, 3, 11, 12, 0, 0) / 1000;
const RESOLVED = DAY2 + 3_600;

// A quiet world: no generated trades, so the journal holds only what this test appends after it.
const state = smallState({ historicTrades: 0, tradesPerSecond: 0, marketCount: 4, walletCount: 12 });
const chain = new SimulatedChain(state, { v2FromMs: (DAY1 + DAY2) * 500 });
const truth = new SimulatorTruth(state, chain);
const [A, B, M] = [0, 1, 2];
const market = state.world.markets.find((m) => !m.placeholder) as SimMarket;
market.winningOutcome = 0;
market.voided = false;

let sequence = 0;
const trade = (second: number, taker: number, maker: number, side: 'BUY' | 'SELL', size: number, price: number): void => {
  const entry: SimTrade = {
    sequence: sequence++,
    walletIndex: taker,
    makerWalletIndex: maker,
    marketIndex: market.index,
    outcomeIndex: 0,
    side,
    size,
    price,
    timestamp: second,
    transactionHash: `0x${String(sequence).padStart(64, '0')}`,
  };
  state.journal.append({ kind: 'trade', second, trade: entry });
};
const activity = (second: number, wallet: number, type: ActivityEntry['type'], size: number, extra: Partial<ActivityEntry> = {}): void => {
  const entry: ActivityEntry = {
    type,
    walletIndex: wallet,
    marketIndex: market.index,
    timestamp: second,
    shares: micro(size),
    usdc: micro(size),
    transactionHash: `0x${String(1000 + sequence++).padStart(64, '0')}`,
    tradesBefore: 0,
    sequence,
    ...extra,
  };
  state.journal.append({ kind: 'activity', second, activity: entry });
};

activity(DAY1, M, 'SPLIT', 100);
trade(DAY1, A, M, 'BUY', 100, 0.4);
activity(DAY2, B, 'SPLIT', 3.000001);
trade(DAY2, A, M, 'SELL', 30, 0.7);
trade(DAY2 + 1, B, M, 'SELL', 1, 0.6);
state.journal.append({ kind: 'resolution', second: RESOLVED, marketIndex: market.index });
activity(RESOLVED, A, 'REDEEM', 68, { losingShares: 0n });

const headSecond = RESOLVED;
const of = (wallet: number, through = headSecond): WalletTruth => truth.wallet(wallet, through);
const token = (wallet: WalletTruth, outcome: number) => wallet.tokens.find((t) => t.outcome_index === outcome);
const day2 = new Date(DAY2 * 1000).toISOString().slice(0, 10);
const day1 = new Date(DAY1 * 1000).toISOString().slice(0, 10);

test('the taker: cash, fees, realized PnL by weighted-average cost, volume, a won market', () => {
  const a = of(A);
  expect(a.cash_paid_micro).toBe(39_200_000n);
  expect(a.cash_received_micro).toBe(89_000_000n); // 21 from the sell + 68 redeemed
  expect(a.fees_micro).toBe(926_000n); // 0.8 (v1, in shares) + 0.126 (v2)
  expect(a.realized_micro).toBe(49_800_000n); // +9 +40.8
  expect(a.cost_basis_micro).toBe(0n);
  expect(a.volume_micro).toBe(61_000_000n); // whole fills: 40 + 21
  expect(a.trades).toBe(2);
  expect([a.won, a.lost]).toEqual([1, 0]);
  expect(a.realized_by_day).toEqual([{ date: day2, realized_micro: 49_800_000n }]);
  expect(token(a, 0)).toMatchObject({
    shares_micro: 0n,
    held_micro: 0n,
    cost_basis_micro: 0n,
    cost_paid_in_micro: 39_200_000n,
    fee_shares_micro: 2_000_000n,
    fee_shares_value_micro: 800_000n,
  });
});

test('the odd micro-unit of a split, and the half-up rounding of the cost a sell takes out', () => {
  const b = of(B);
  expect(token(b, 0)).toMatchObject({ shares_micro: 2_000_001n, cost_basis_micro: 1_000_001n, realized_micro: 100_000n });
  expect(token(b, 1)).toMatchObject({ shares_micro: 3_000_001n, cost_basis_micro: 1_500_000n, realized_micro: 0n });
  expect(b.cash_paid_micro).toBe(3_000_001n);
  expect(b.cash_received_micro).toBe(600_000n);
  expect(b.fees_micro).toBe(4_800n);
  expect(b.volume_micro).toBe(600_000n);
  // Net in the market: 0.1 realized + 2.000001 YES at 1 - 2.500001 still held at cost = -0.4: lost.
  expect([b.won, b.lost]).toEqual([0, 1]);
  expect(b.markets[0]).toMatchObject({ payout_value_micro: 2_000_001n, cost_basis_micro: 2_500_001n, fees_micro: 4_800n });
});

test('the maker: both roles of every fill count, its fees are none, its loss is on day 1', () => {
  const m = of(M);
  expect(m.cash_paid_micro).toBe(121_600_000n); // split 100 + buys 21 + 0.6
  expect(m.cash_received_micro).toBe(40_000_000n);
  expect(m.fees_micro).toBe(0n);
  expect(m.realized_micro).toBe(-10_000_000n);
  expect(m.volume_micro).toBe(61_600_000n);
  expect(m.trades).toBe(3);
  expect(token(m, 0)).toMatchObject({ shares_micro: 31_000_000n, cost_basis_micro: 21_600_000n });
  expect(token(m, 1)).toMatchObject({ shares_micro: 100_000_000n, cost_basis_micro: 50_000_000n });
  expect(m.realized_by_day).toEqual([{ date: day1, realized_micro: -10_000_000n }]);
  expect([m.won, m.lost]).toEqual([0, 1]); // -10 + 31 - 71.6 = -50.6
});

test("the market sums to zero before fees with the exchange's fee shares, and each wallet is its cash plus its shares at the payout", () => {
  const wallets = [of(A), of(B), of(M)];
  const pnl = wallets.map((w) => {
    const m = w.markets[0]!;
    return m.realized_micro + m.payout_value_micro - m.cost_basis_micro;
  });
  expect(pnl).toEqual([49_800_000n, -400_000n, -50_600_000n]);
  // The 2 YES the exchange took pay 2 at the payout, against their 0.8 in A's fees: the traders sum to
  // 0.8 - 2 = -1.2, and with the exchange's shares to 0.
  expect(pnl.reduce((sum, x) => sum + x, 0n)).toBe(-1_200_000n);
  for (const [i, w] of wallets.entries()) expect(w.cash_received_micro - w.cash_paid_micro + w.markets[0]!.payout_value_micro).toBe(pnl[i]);
});

test('through a block: only the changes up to it, and no payout before the resolution', () => {
  const a = of(A, DAY2);
  expect(a.realized_micro).toBe(9_000_000n);
  expect(a.trades).toBe(2);
  expect(token(a, 0)).toMatchObject({ shares_micro: 68_000_000n, cost_basis_micro: 27_200_000n });
  expect(a.markets[0]!.payout).toBeNull();
  expect([a.won, a.lost]).toEqual([0, 0]);
  expect(truth.walletsWithChanges(DAY1)).toEqual([A, M]);
  expect(truth.walletsWithChanges(headSecond)).toEqual([A, B, M]);
});

test("CTF Exchange v1's taker fee (CalculatorHelper.calculateFee at 200 bps): a buy's in shares, a sell's in collateral", () => {
  // Below 0.5 a buy pays 2 % of its shares (worth 2 % x p of collateral); above it 2 % x (1 - p) / p.
  expect(fillAmounts({ side: 'BUY', size: 100, price: 0.4 }, false)).toEqual({
    shares: 100_000_000n,
    usdc: 40_000_000n,
    takerFee: 2_000_000n,
    takerFeeAsset: 'shares',
  });
  expect(fillAmounts({ side: 'BUY', size: 100, price: 0.8 }, false).takerFee).toBe(500_000n); // 0.02 x 0.2 x 100 / 0.8
  // A sell pays 2 % x min(p, 1 - p) x shares of collateral: 0.02 x 0.2 x 100 = 0.4.
  expect(fillAmounts({ side: 'SELL', size: 100, price: 0.8 }, false)).toMatchObject({ takerFee: 400_000n, takerFeeAsset: 'usdc' });
  // Rounded down: 0.02 x 0.3 x 0.000007 = 0.000000042 -> 0.
  expect(fillAmounts({ side: 'SELL', size: 0.000007, price: 0.3 }, false).takerFee).toBe(0n);
  // v2: 0.02 x shares x p x (1 - p) in collateral whatever the side.
  expect(fillAmounts({ side: 'BUY', size: 100, price: 0.4 }, true)).toMatchObject({ takerFee: 480_000n, takerFeeAsset: 'usdc' });
});
