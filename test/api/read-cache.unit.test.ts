/**
 * The read cache's key: the matched operation, its path parameters and its query canonicalised by
 * the declared parameter types, so spellings of one query share one entry and a query the validator
 * would refuse has no key at all.
 */
import { OPENAPI_PATH } from '../../api/app.js';
import { OperationIndex, readOperations } from '../../api/operations.js';
import { ReadCache } from '../../api/response-cache.js';

const cache = new ReadCache({ ttlMs: 1_000, maxEntries: 100, maxBytes: 1_000_000 }, new OperationIndex(readOperations(OPENAPI_PATH)));

test('percent-encoding, parameter order, number spelling and path case do not make new keys', () => {
  const key = cache.keyOf('GET', '/v1/markets?status=all&limit=500');
  expect(key).not.toBeNull();
  for (const variant of [
    '/v1/markets?status=al%6C&limit=500',
    '/v1/markets?limit=500&status=all',
    '/v1/markets?limit=0500&status=all',
    '/v1/markets?limit=500.0&status=%61ll',
    '/v1/MARKETS?limit=5e2&status=all',
    '/v1/markets/?status=all&limit=500',
  ])
    expect(cache.keyOf('GET', variant)).toBe(key);
});

test('different values are different keys; path parameters are part of the key', () => {
  expect(cache.keyOf('GET', '/v1/markets?status=all&limit=499')).not.toBe(cache.keyOf('GET', '/v1/markets?status=all&limit=500'));
  expect(cache.keyOf('GET', '/v1/markets/a/ohlcv?interval=1h')).not.toBe(cache.keyOf('GET', '/v1/markets/b/ohlcv?interval=1h'));
  expect(cache.keyOf('GET', '/v1/markets/will%20it/oi')).toBe(cache.keyOf('GET', '/v1/markets/will it/oi'));
});

test.each([
  ['an undeclared parameter', '/v1/markets?status=all&buster=1'],
  ['a repeated parameter', '/v1/markets?limit=5&limit=6'],
  ['a number that is not one', '/v1/markets?limit=five'],
  ['an empty number', '/v1/markets?limit='],
  ['a private operation in any case', '/v1/USAGE'],
  ['a non-GET', '/v1/markets'],
])('no key for %s', (_what, url) => {
  expect(cache.keyOf(url === '/v1/markets' ? 'POST' : 'GET', url)).toBeNull();
});
