/** The API document declares each read's cacheability, and the cache finds operations the way Express routes. */
import fs from 'node:fs';
import { OPENAPI_PATH } from '../../api/app.js';
import { OperationIndex, readOperations } from '../../api/operations.js';
import { ReadCache } from '../../api/response-cache.js';

const operations = readOperations(OPENAPI_PATH);
const index = new OperationIndex(operations);
const cache = new ReadCache({ ttlMs: 1000, maxEntries: 100, maxBytes: 1_000_000 }, index);

test('every GET operation declares x-cache explicitly', () => {
  const gets = operations.filter((o) => o.method === 'GET');
  expect(gets.length).toBeGreaterThan(20);
  const raw = fs.readFileSync(OPENAPI_PATH, 'utf8');
  expect(raw.match(/^ {6}x-cache: (shared|private|none)$/gm)?.length).toBe(gets.length);
});

test('account-scoped reads are private, market data is shared', () => {
  const mode = (path: string) => operations.find((o) => o.method === 'GET' && o.path === path)?.cache;
  expect(['/v1/usage', '/v1/pricing/access', '/v1/agents/me', '/v1/webhooks', '/v1/webhooks/{id}/deliveries'].map(mode)).toEqual(
    Array(5).fill('private'),
  );
  expect(mode('/v1/health')).toBe('none');
  expect(['/v1/markets', '/v1/markets/{id}', '/v1/trades', '/v1/leaderboard'].map(mode)).toEqual(Array(4).fill('shared'));
});

test.each([
  ['/v1/usage', false],
  ['/v1/USAGE', false],
  ['/v1/Agents/me', false],
  ['/v1/Webhooks', false],
  ['/v1/Health', false],
  ['/v1/markets?limit=5', true],
  ['/v1/MARKETS/0xabc/ohlcv?interval=1h', true],
  ['/v1/markets/categories', true],
  ['/v1/nope', false],
])('%s cacheable: %s', (url, expected) => {
  expect(cache.keyOf('GET', url) !== null).toBe(expected);
});

test('literal paths win over templates and parameters are captured', () => {
  expect(index.match('GET', '/v1/markets/categories')?.operation.path).toBe('/v1/markets/categories');
  expect(index.match('GET', '/v1/markets/will-it/oi')).toMatchObject({ operation: { path: '/v1/markets/{id}/oi' }, params: ['will-it'] });
  expect(index.match('POST', '/v1/markets')).toBeUndefined();
});
