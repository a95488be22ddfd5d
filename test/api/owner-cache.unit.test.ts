/**
 * api/auth.ts OwnerCache: a burst with a key not cached yet (1,000 WebSockets opened at once by one
 * key) waits for one lookup of the key, not one each; a later miss looks up again.
 */
import { OwnerCache } from '../../api/auth.js';
import type { Accounts, KeyOwner } from '../../services/control/accounts.js';

function accounts(owner: KeyOwner | null) {
  const calls = { authenticate: 0 };
  const release: Array<() => void> = [];
  const stub = {
    isWellFormed: () => true,
    authenticate: async () => {
      calls.authenticate++;
      await new Promise<void>((resolve) => release.push(resolve));
      return owner;
    },
  } as unknown as Accounts;
  const releaseAll = () => {
    for (const resolve of release.splice(0)) resolve();
  };
  return { stub, calls, release: releaseAll };
}

test.each([
  ['a valid key', { key_id: 'k1', account_id: 'a1' } as unknown as KeyOwner],
  ['a made-up key', null],
])('%s: 1,000 lookups at once make one', async (_name, owner) => {
  const { stub, calls, release } = accounts(owner);
  const cache = new OwnerCache(stub, { ttlMs: 60_000, negativeTtlMs: 60_000 });
  const lookups = Array.from({ length: 1000 }, () => cache.lookup('aif_key'));
  await Promise.resolve();
  release();
  expect(new Set(await Promise.all(lookups))).toEqual(new Set([owner]));
  expect(calls.authenticate).toBe(1);
  expect(cache.lookupCount).toBe(1);
});

test('a failed lookup is not kept: the next one asks again', async () => {
  let fail = true;
  const stub = {
    isWellFormed: () => true,
    authenticate: async () => {
      if (fail) throw new Error('control store down');
      return null;
    },
  } as unknown as Accounts;
  const cache = new OwnerCache(stub, { ttlMs: 60_000, negativeTtlMs: 60_000 });
  await expect(Promise.all([cache.lookup('aif_x'), cache.lookup('aif_x')])).rejects.toThrow('control store down');
  fail = false;
  await expect(cache.lookup('aif_x')).resolves.toBeNull();
});
