import type { MarketInfo } from './market-data.js';
import { type PositionRow, valuePositions } from './position-value.js';

const row = (over: Partial<PositionRow>): PositionRow => ({
  asset_id: 't1',
  market_id: 'm',
  outcome: '1',
  outcome_index: 1,
  qty: 0n,
  cost: 0n,
  opened_ms: 0,
  last_ms: 1,
  realized: 5_000_000n,
  bought: 0n,
  longshot: 0n,
  cost_in: 4_000_000n,
  fees: 0n,
  ...over,
});
const market: MarketInfo = {
  market_id: 'm',
  title: 'M',
  category: 'Politics',
  status: 'resolved',
  outcomes: ['Yes', 'No'],
  outcome_token_ids: ['t0', 't1'],
  outcome_prices: [0, 1],
  yes_index: 0,
  closed_ms: 1,
};

test("a position's outcome is the catalog's label, the row's own only while the catalog does not list the market", () => {
  // A redemption applied before the catalog listed the market wrote the outcome's index as its label.
  const [known] = valuePositions([row({})], new Map([['m', market]]), new Map());
  const [unknown] = valuePositions([row({})], new Map(), new Map());
  expect([known!.outcome, unknown!.outcome]).toEqual(['No', '1']);
});

test('a closed position is not marked: no price, no value, no unrealized', () => {
  const [closed] = valuePositions([row({})], new Map([['m', market]]), new Map());
  expect([closed!.mark, closed!.mark_basis, closed!.value, closed!.unrealized]).toEqual([null, 'none', null, 0n]);
  const [open] = valuePositions([row({ qty: 2_000_000n, cost: 1_000_000n })], new Map([['m', market]]), new Map());
  expect([open!.mark, open!.mark_basis, open!.value, open!.unrealized]).toEqual([1, 'payout', 2_000_000n, 1_000_000n]);
});
