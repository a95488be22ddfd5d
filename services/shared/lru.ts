/**
 * A bounded map: at most `maxEntries` entries and `maxBytes` of their declared sizes, least recently
 * used evicted first, entries dropped once past their expiry. Every in-memory map keyed by something
 * a caller chooses (URLs, API keys, IP addresses) goes through one of these, so no stream of distinct
 * keys can grow memory without limit.
 */
export interface LruOptions {
  maxEntries: number;
  /** Cap on the sum of entry sizes (default: no byte bound, sizes count 0). */
  maxBytes?: number;
  /** Expired entries are swept at most this often (default 1 s); reads never return them. */
  sweepIntervalMs?: number;
  clock?: () => number;
}

interface Slot<V> {
  value: V;
  bytes: number;
  expiresAt: number;
}

export interface LruStats {
  entries: number;
  bytes: number;
  evictions: number;
  expirations: number;
}

export class BoundedLru<K, V> {
  // A Map iterates in insertion order; re-inserting on access makes the first key the least recently used.
  private readonly slots = new Map<K, Slot<V>>();
  private totalBytes = 0;
  private evictions = 0;
  private expirations = 0;
  private lastSweep = 0;
  private readonly clock: () => number;

  constructor(private readonly options: LruOptions) {
    if (!(options.maxEntries >= 1)) throw new RangeError(`maxEntries must be at least 1, got ${options.maxEntries}`);
    this.clock = options.clock ?? Date.now;
  }

  get size(): number {
    return this.slots.size;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  stats(): LruStats {
    return { entries: this.slots.size, bytes: this.totalBytes, evictions: this.evictions, expirations: this.expirations };
  }

  /** The live value, marked as recently used; an expired one is removed and not returned. */
  get(key: K): V | undefined {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    if (slot.expiresAt <= this.clock()) {
      this.remove(key, slot);
      this.expirations++;
      return undefined;
    }
    this.slots.delete(key);
    this.slots.set(key, slot);
    return slot.value;
  }

  /** The live value without touching its recency. */
  peek(key: K): V | undefined {
    const slot = this.slots.get(key);
    return slot && slot.expiresAt > this.clock() ? slot.value : undefined;
  }

  /**
   * Stores `value` until `ttlMs` from now (Infinity: until evicted). Returns false, storing nothing,
   * when the entry alone is larger than the byte bound.
   */
  set(key: K, value: V, ttlMs: number, bytes = 0): boolean {
    const maxBytes = this.options.maxBytes ?? Number.POSITIVE_INFINITY;
    const existing = this.slots.get(key);
    if (existing) this.remove(key, existing);
    if (bytes > maxBytes) return false;
    const now = this.clock();
    this.sweepExpired(now);
    this.slots.set(key, { value, bytes, expiresAt: now + ttlMs });
    this.totalBytes += bytes;
    while (this.slots.size > this.options.maxEntries || this.totalBytes > maxBytes) {
      const [oldestKey, oldest] = this.slots.entries().next().value as [K, Slot<V>];
      this.remove(oldestKey, oldest);
      this.evictions++;
    }
    return true;
  }

  delete(key: K): boolean {
    const slot = this.slots.get(key);
    if (!slot) return false;
    this.remove(key, slot);
    return true;
  }

  /** Removes every entry whose value matches (e.g. all cached lookups of a revoked key). */
  deleteWhere(predicate: (value: V, key: K) => boolean): number {
    let removed = 0;
    for (const [key, slot] of [...this.slots]) {
      if (predicate(slot.value, key)) {
        this.remove(key, slot);
        removed++;
      }
    }
    return removed;
  }

  clear(): void {
    this.slots.clear();
    this.totalBytes = 0;
  }

  /** Drops every expired entry; runs on writes at most once per sweep interval (O(entries), amortised). */
  sweepExpired(now = this.clock()): void {
    if (now - this.lastSweep < (this.options.sweepIntervalMs ?? 1_000)) return;
    this.lastSweep = now;
    for (const [key, slot] of [...this.slots]) {
      if (slot.expiresAt <= now) {
        this.remove(key, slot);
        this.expirations++;
      }
    }
  }

  private remove(key: K, slot: Slot<V>): void {
    this.slots.delete(key);
    this.totalBytes -= slot.bytes;
  }
}
