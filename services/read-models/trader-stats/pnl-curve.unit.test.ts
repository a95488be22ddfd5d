/**
 * Hand-computed closed days of the curve (pnl-curve.ts curveUnrealized). The curve runs from day 100 to
 * today = day 105, so its closed days are 100..104. Amounts are micro-units.
 */
import { DAY_MS } from '../../shared/time.js';
import type { MarketInfo } from '../positions/market-data.js';
import { type CurveArrays, type CurveStates, curveUnrealized } from './pnl-curve.js';

const market = (id: string, status: MarketInfo['status'], closedDay: number | null, prices = [0.5, 0.5], yesIndex = 0): MarketInfo => ({
  market_id: id,
  title: id,
  category: 'Test',
  status,
  outcomes: ['Yes', 'No'],
  outcome_token_ids: [`${id}-0`, `${id}-1`],
  outcome_prices: prices,
  yes_index: yesIndex,
  closed_ms: closedDay === null ? null : closedDay * DAY_MS + 3_600_000,
});
const markets = new Map<string, MarketInfo>([
  ['A', market('A', 'active', null)],
  // Resolved YES during day 103: from day 103 on its tokens are worth the payout.
  ['R', market('R', 'resolved', 103, [1, 0])],
  // YES is outcome 1 here.
  ['F', market('F', 'active', null, [0.5, 0.5], 1)],
]);
/** Per token (wallet, market, outcome index, [(day, qty, cost)] by day), as the statement's flat columns. */
type Token = [string, string, number, Array<[string, string, string]>];
const flat = (tokens: Token[]): CurveStates => [
  tokens.map((t) => t[0]),
  tokens.map((t) => t[1]),
  tokens.map((t) => t[2]),
  tokens.map((t) => t[3].length),
  tokens.flatMap((t) => t[3].map((s) => Number(s[0]))),
  tokens.flatMap((t) => t[3].map((s) => Number(s[1]))),
  tokens.flatMap((t) => t[3].map((s) => Number(s[2]))),
];
type Input = { curve_states: Token[]; curve_closes: CurveArrays['curve_closes'] };
const value = (wallet: string, arrays: Input) =>
  Object.fromEntries(
    [
      ...(curveUnrealized({ ...arrays, curve_states: flat(arrays.curve_states) }, markets, 100 * DAY_MS, 105 * DAY_MS).get(wallet) ??
        new Map()),
    ].map(([d, u]) => [d / DAY_MS, u]),
  );

test('a token first held inside the curve counts from the day it was bought, at each day’s close', () => {
  // 10 YES of A bought on day 102 for 4 USDC; A closes at 0.3, 0.35, 0.4, 0.45, 0.5 on days 100..104.
  const arrays: Input = {
    curve_states: [['w', 'A', 0, [['102', '10000000', '4000000']]]],
    curve_closes: [['A', [0.3, 0.35, 0.4, 0.45, 0.5]]],
  };
  // Days 100 and 101: nothing held. 102: 10 x 0.4 - 4 = 0; 103: 4.5 - 4 = 0.5; 104: 5 - 4 = 1.
  expect(value('w', arrays)).toEqual({ 102: 0n, 103: 500000n, 104: 1000000n });
});

test('the other outcome is worth 1 - YES; a sold-out token and a market without a close are left out', () => {
  const arrays: Input = {
    curve_states: [
      // 3 NO of A held from before the curve (cost 1.2), sold out on day 101.
      [
        'w',
        'A',
        1,
        [
          ['98', '3000000', '1200000'],
          ['101', '0', '0'],
        ],
      ],
      // 2 YES of F (outcome 1 is its YES) from day 100, cost 1; F has no close before day 103.
      ['w', 'F', 1, [['100', '2000000', '1000000']]],
    ],
    curve_closes: [
      ['A', [0.3, 0.35, 0.4, 0.45, 0.5]],
      ['F', [-1, -1, -1, 0.25, 0.333333]],
    ],
  };
  // A NO: day 100: 3 x 0.7 - 1.2 = 0.9. F: days 103 (2 x 0.25 - 1 = -0.5) and 104 (2 x 0.333333 - 1 =
  // 0.666666 - 1 = -0.333334).
  expect(value('w', arrays)).toEqual({ 100: 900000n, 103: -500000n, 104: -333334n });
});

test('a settled market is worth its payout from the day it closed, its close before', () => {
  const arrays: Input = {
    curve_states: [
      ['w', 'R', 0, [['99', '5000000', '2000000']]],
      ['w', 'R', 1, [['99', '4000000', '1000000']]],
    ],
    // Closes of 0.6 then 0.9 before it resolved; the candle of day 104 (0.95) is not used.
    curve_closes: [['R', [0.6, 0.6, 0.9, 0.9, 0.95]]],
  };
  // YES 5 (cost 2) + NO 4 (cost 1): day 100: 3 - 2 + 1.6 - 1 = 1.6; 101 the same; 102: 4.5 - 2 + 0.4 - 1
  // = 1.9; 103 and 104 at the payout: 5 - 2 + 0 - 1 = 2.
  expect(value('w', arrays)).toEqual({ 100: 1600000n, 101: 1600000n, 102: 1900000n, 103: 2000000n, 104: 2000000n });
});

test('a market missing from the catalog is valued at its closes with outcome 0 as YES', () => {
  const arrays: Input = {
    curve_states: [['w', 'X', 0, [['100', '1000000', '100000']]]],
    curve_closes: [['X', [0.2, 0.2, 0.2, 0.2, 0.2]]],
  };
  expect(value('w', arrays)).toEqual({ 100: 100000n, 101: 100000n, 102: 100000n, 103: 100000n, 104: 100000n });
});

test('a state beyond exact JSON numbers (2^53 micro-units) is refused, not rounded', () => {
  const arrays: Input = {
    curve_states: [['w', 'A', 0, [['100', '9007199254740993', '1']]]],
    curve_closes: [['A', [0.5, 0.5, 0.5, 0.5, 0.5]]],
  };
  expect(() => value('w', arrays)).toThrow(/2\^53/);
});

test('each token is valued with its own states, whatever came before it in the flat columns', () => {
  const arrays: Input = {
    curve_states: [
      // w: 10 YES of A for 4 on day 100, sold out on day 103.
      [
        'w',
        'A',
        0,
        [
          ['100', '10000000', '4000000'],
          ['103', '0', '0'],
        ],
      ],
      // v: 2 NO of A for 1 from day 101 (its first state is older than w's last one).
      ['v', 'A', 1, [['101', '2000000', '1000000']]],
    ],
    curve_closes: [['A', [0.3, 0.35, 0.4, 0.45, 0.5]]],
  };
  // w: 3 - 4 = -1; 3.5 - 4 = -0.5; 4 - 4 = 0; nothing held from day 103.
  expect(value('w', arrays)).toEqual({ 100: -1000000n, 101: -500000n, 102: 0n });
  // v at 1 - YES: 2 x 0.65 - 1 = 0.3; 2 x 0.6 - 1 = 0.2; 2 x 0.55 - 1 = 0.1; 2 x 0.5 - 1 = 0.
  expect(value('v', arrays)).toEqual({ 101: 300000n, 102: 200000n, 103: 100000n, 104: 0n });
});
