/** The bounded LRU behind every caller-keyed map: entry and byte bounds, recency, expiry. */
import { BoundedLru } from '../../services/shared/lru.js';

test('holds at most maxEntries, evicting the least recently used', () => {
  const lru = new BoundedLru<string, number>({ maxEntries: 3 });
  for (const key of ['a', 'b', 'c']) lru.set(key, 1, 60_000);
  expect(lru.get('a')).toBe(1); // a is now the most recent
  lru.set('d', 1, 60_000);
  expect([...['a', 'b', 'c', 'd']].filter((k) => lru.peek(k) !== undefined)).toEqual(['a', 'c', 'd']);
  expect(lru.stats()).toMatchObject({ entries: 3, evictions: 1 });
});

test('holds at most maxBytes; an entry larger than the bound alone is not stored', () => {
  const lru = new BoundedLru<string, string>({ maxEntries: 100, maxBytes: 100 });
  for (let i = 0; i < 10; i++) lru.set(`k${i}`, 'v', 60_000, 30);
  expect(lru.bytes).toBeLessThanOrEqual(100);
  expect(lru.size).toBe(3);
  expect(lru.set('huge', 'v', 60_000, 101)).toBe(false);
  expect(lru.peek('huge')).toBeUndefined();
  expect(lru.size).toBe(3);
});

test('expired entries are never returned and are swept on later writes', () => {
  let now = 0;
  const lru = new BoundedLru<string, number>({ maxEntries: 100, sweepIntervalMs: 10, clock: () => now });
  for (let i = 0; i < 50; i++) lru.set(`old${i}`, i, 100, 10);
  expect(lru.size).toBe(50);
  now = 101;
  expect(lru.get('old0')).toBeUndefined();
  lru.set('fresh', 1, 100, 10);
  // One write after expiry sweeps every expired entry, not just the one looked up.
  expect(lru.size).toBe(1);
  expect(lru.bytes).toBe(10);
  expect(lru.stats().expirations).toBe(50);
});

test('deleteWhere removes matching entries (e.g. lookups of a revoked key)', () => {
  const lru = new BoundedLru<string, { keyId: string }>({ maxEntries: 10 });
  lru.set('a', { keyId: '1' }, 60_000);
  lru.set('b', { keyId: '2' }, 60_000);
  expect(lru.deleteWhere((v) => v.keyId === '1')).toBe(1);
  expect(lru.peek('a')).toBeUndefined();
  expect(lru.peek('b')).toEqual({ keyId: '2' });
});
