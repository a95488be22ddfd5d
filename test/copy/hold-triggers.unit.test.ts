/** buy_and_hold's outcome takes the API's outcome rule: a name, or YES / NO for a binary market, in any case. */
import { holdTriggers } from '../../services/copy/backtest/plan.js';
import type { MarketTerms } from '../../services/copy/backtest/simulate.js';

const market = (outcomes: string[], yesIndex = 0): MarketTerms => ({
  marketId: 'm',
  title: 'Lakers vs Celtics',
  category: 'Sports',
  outcomes,
  tokenIds: outcomes.map((_, i) => `t${i}`),
  yesIndex,
  fee: { rate: 0n, exponent: 0 } as unknown as MarketTerms['fee'],
  resolution: null,
});
const trades = [{ id: 'x', marketId: 'm', atMs: 0, yesPriceMicros: 400_000n }];
const entry = (outcome: string, outcomes: string[]) =>
  holdTriggers(
    { kind: 'buy_and_hold', marketIds: ['m'], outcome, orderMicros: 10_000_000n },
    trades,
    new Map([['m', market(outcomes)]]),
    1,
  )[0];

test.each([
  ['no', ['Lakers', 'Celtics'], 1, 600_000n],
  ['NO', ['Yes', 'No'], 1, 600_000n],
  ['yes', ['Lakers', 'Celtics'], 0, 400_000n],
  ['celtics', ['Lakers', 'Celtics'], 1, 600_000n],
])('%s of %j buys outcome %i at the last trade price', (outcome, outcomes, index, reference) => {
  expect(entry(outcome, outcomes)).toMatchObject({ outcomeIndex: index, referenceMicros: reference });
});

test('no names no outcome of a market with more than two', () => {
  expect(entry('no', ['A', 'B', 'C'])).toBeUndefined();
});
