import { marketUpserted } from '../../test/support/events.js';
import { nextBackfillMarket } from './trade-backfill-order.js';

const market = (id: string, volume: number, status: 'active' | 'closed' = 'active') =>
  marketUpserted({ market_id: id, slug: id, volume_24h_usdc: volume, status });

test('the busiest active market not yet backfilled, among the busiest N as they stand', () => {
  const markets = [market('a', 10), market('b', 30), market('c', 20), market('closed', 99, 'closed')];
  expect(nextBackfillMarket(markets, new Set(), 100)?.market_id).toBe('b');
  expect(nextBackfillMarket(markets, new Set(['b']), 100)?.market_id).toBe('c');
  // A market listed during the run, busier than the rest, goes next.
  expect(nextBackfillMarket([...markets, market('new', 25)], new Set(['b']), 100)?.market_id).toBe('new');
  // Only the busiest N as they stand are candidates: a market that becomes one of them is one.
  expect(nextBackfillMarket(markets, new Set(['b', 'c']), 2)).toBeUndefined();
  expect(nextBackfillMarket(markets, new Set(['b']), 2)?.market_id).toBe('c');
  expect(nextBackfillMarket([market('a', 40), ...markets.slice(1)], new Set(['b', 'c']), 2)?.market_id).toBe('a');
  expect(nextBackfillMarket(markets, new Set(['b', 'c', 'a']), 100)).toBeUndefined();
});
