/** The marking rule on hand-computed cases (mark-price.ts). */
import { markPrice } from './mark-price.js';

const none = { payout: null, bestBid: null, bestAsk: null, lastTrade: null, catalogPrice: null };

test.each([
  [
    'a resolved winner is marked at 1 whatever the book says',
    { ...none, payout: 1, bestBid: 0.96, bestAsk: 0.98, lastTrade: 0.97 },
    1,
    'payout',
  ],
  ['a resolved loser at 0', { ...none, payout: 0, lastTrade: 0.03 }, 0, 'payout'],
  ['a 50-50 void at 0.5', { ...none, payout: 0.5, lastTrade: 0.97 }, 0.5, 'payout'],
  ['a tight book at its mid: (0.44 + 0.46) / 2', { ...none, bestBid: 0.44, bestAsk: 0.46, lastTrade: 0.4 }, 0.45, 'mid'],
  ['a spread of exactly 0.10 still at its mid: (0.51 + 0.61) / 2', { ...none, bestBid: 0.51, bestAsk: 0.61, lastTrade: 0.4 }, 0.56, 'mid'],
  ['a spread of 0.11 at the last trade', { ...none, bestBid: 0.5, bestAsk: 0.61, lastTrade: 0.58 }, 0.58, 'last_trade'],
  ['a one-sided book (no asks) at the last trade, not at the bid', { ...none, bestBid: 0.97, lastTrade: 0.99 }, 0.99, 'last_trade'],
  ['a one-sided book (no bids) at the last trade, not at the ask', { ...none, bestAsk: 0.04, lastTrade: 0.02 }, 0.02, 'last_trade'],
  ['an empty book at the last trade', { ...none, lastTrade: 0.31 }, 0.31, 'last_trade'],
  ['no book, never traded: the catalog price', { ...none, catalogPrice: 0.27 }, 0.27, 'catalog'],
  ['a one-sided book, never traded: the catalog price', { ...none, bestBid: 0.2, catalogPrice: 0.27 }, 0.27, 'catalog'],
  ['nothing at all: unmarked', none, null, 'none'],
])('%s', (_case, inputs, price, basis) => {
  expect(markPrice(inputs)).toEqual({ price, basis });
});
