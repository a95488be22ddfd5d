/**
 * Work done once for a record that many subscriptions send. The records at the log's end are read by
 * every subscription there (tail-cache.ts marks them shared): their decoded event, its presentation
 * and the presentation's JSON text are computed once and kept on the objects themselves. Anything not
 * shared (a replay's own records) is computed each time and keeps nothing: keeping values for every
 * record replays read, reused by no one, raised the abuse tier's replay flood peak RSS and control p99
 * (docs/STREAMING.md, "Fan-out").
 *
 * Kept as non-enumerable symbol properties, so spreads, `Object.keys`, JSON and test equality never see them.
 */
const SHARED = Symbol('shared by subscriptions');

/** Marks an object that many subscriptions read. */
export function share(on: object): void {
  if (!isShared(on) && Object.isExtensible(on)) Object.defineProperty(on, SHARED, { value: true });
}

export function isShared(on: object): boolean {
  return (on as Record<symbol, unknown>)[SHARED] === true;
}

/** `compute()` once for a shared object, kept on it (its value shared too); for any other object, each time. */
export function memo<T>(on: object, key: symbol, compute: () => T): T {
  if (!isShared(on)) return compute();
  const known = (on as Record<symbol, T | undefined>)[key];
  if (known !== undefined) return known;
  const value = compute();
  if (!Object.isExtensible(on)) return value;
  Object.defineProperty(on, key, { value });
  if (typeof value === 'object' && value !== null) share(value);
  return value;
}
