/** The matching function on hand-computed books: level by level, best first, limits, resting fills. */
import { matchAgainstBook, restingFillFromBook, restingFillFromTrade } from '../../services/paper/matching.js';
import { formatScaled, parseScaled } from '../../services/shared/decimal.js';

const m = (text: string) => parseScaled(text)!;
const levels = (...pairs: Array<[string, string]>) => pairs.map(([price, size]) => ({ priceMicros: m(price), sizeMicros: m(size) }));
const asks = levels(['0.50', '100'], ['0.52', '200'], ['0.55', '500']);
const bids = levels(['0.48', '100'], ['0.47', '300']);
const show = (result: ReturnType<typeof matchAgainstBook>) => ({
  fills: result.fills.map((f) => [f.level, formatScaled(f.priceMicros), formatScaled(f.sizeMicros), formatScaled(f.notionalMicros)]),
  filled: formatScaled(result.filledMicros),
  notional: formatScaled(result.notionalMicros),
  remaining: formatScaled(result.remainingMicros),
});

test('a buy takes asks from the lowest, each level at its own price', () => {
  expect(show(matchAgainstBook('buy', m('250'), null, asks))).toEqual({
    fills: [
      [1, '0.5', '100', '50'],
      [2, '0.52', '150', '78'],
    ],
    filled: '250',
    notional: '128',
    remaining: '0',
  });
});

test('a limit stops the walk; a thin book leaves a remainder', () => {
  expect(show(matchAgainstBook('buy', m('1000'), m('0.52'), asks))).toMatchObject({ filled: '300', notional: '154', remaining: '700' });
  expect(show(matchAgainstBook('buy', m('1000'), null, asks))).toMatchObject({ filled: '800', remaining: '200' });
  expect(show(matchAgainstBook('buy', m('10'), m('0.49'), asks)).fills).toEqual([]);
});

test('a sell hits bids from the highest and stops at its limit', () => {
  // 100 x 0.48 + 50 x 0.47 = 48 + 23.5
  expect(show(matchAgainstBook('sell', m('150'), null, bids))).toMatchObject({ notional: '71.5', remaining: '0' });
  expect(show(matchAgainstBook('sell', m('150'), m('0.48'), bids))).toMatchObject({ filled: '100', remaining: '50' });
});

test('notional rounds half up to one micro-USDC', () => {
  // 0.333333 shares x 0.5 = 0.1666665 -> 0.166667
  expect(show(matchAgainstBook('buy', m('0.333333'), null, levels(['0.5', '1']))).notional).toBe('0.166667');
});

test('resting orders fill from a crossing book or a trade through their price, never at the touch', () => {
  expect(formatScaled(restingFillFromBook('buy', m('100'), m('0.45'), levels(['0.44', '60'], ['0.45', '10'], ['0.46', '500'])))).toBe('70');
  expect(formatScaled(restingFillFromBook('sell', m('100'), m('0.60'), levels(['0.61', '30'], ['0.59', '500'])))).toBe('30');
  expect(restingFillFromTrade('buy', m('40'), m('0.45'), { priceMicros: m('0.45'), sizeMicros: m('100') })).toBe(0n);
  expect(formatScaled(restingFillFromTrade('buy', m('40'), m('0.45'), { priceMicros: m('0.44'), sizeMicros: m('100') }))).toBe('40');
  expect(formatScaled(restingFillFromTrade('sell', m('40'), m('0.60'), { priceMicros: m('0.61'), sizeMicros: m('25') }))).toBe('25');
});
