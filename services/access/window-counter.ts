/**
 * Counts events per key over a sliding window (e.g. failed authentications per client address in the
 * last minute), kept as `slots` sub-window counts: the count is the events of the last `slots` slots,
 * the current one included. A fixed window would let a burst of the whole limit at the end of one
 * window and another at the start of the next through within a second; here no span shorter than
 * windowMs minus one slot (55 s of a minute in 5-s slots) ever holds more than the limit. Keys live
 * in a bounded LRU so the set of keys cannot grow without limit: a key evicted under pressure starts
 * again from zero, which only ever errs towards letting a request through.
 */
import { BoundedLru } from '../shared/lru.js';

interface Slots {
  /** Events per slot, at index slot number % slots. */
  counts: Uint16Array;
  /** The number (time / slotMs) of the newest slot written. */
  newest: number;
}

const MAX_SLOT_COUNT = 65_535;

export class WindowCounter {
  private readonly windows: BoundedLru<string, Slots>;
  private readonly slotMs: number;

  constructor(
    private readonly windowMs: number,
    maxKeys: number,
    private readonly clock: () => number = Date.now,
    private readonly slots = 12,
  ) {
    this.slotMs = windowMs / slots;
    this.windows = new BoundedLru({ maxEntries: maxKeys, sweepIntervalMs: windowMs, clock });
  }

  /** Events counted for `key` in the window ending now. */
  count(key: string): number {
    const entry = this.current(key);
    return entry ? entry.counts.reduce((sum, n) => sum + n, 0) : 0;
  }

  add(key: string): number {
    const now = this.clock();
    const slot = Math.floor(now / this.slotMs);
    const entry = this.current(key) ?? { counts: new Uint16Array(this.slots), newest: slot };
    const index = slot % this.slots;
    entry.counts[index] = Math.min(MAX_SLOT_COUNT, entry.counts[index]! + 1);
    entry.newest = slot;
    // Kept until its newest slot leaves the window.
    this.windows.set(key, entry, (slot + this.slots) * this.slotMs - now);
    return this.count(key);
  }

  /** Seconds until the count of `key` is below `limit` again (the oldest slots leave the window), at least 1. */
  retryAfterSeconds(key: string, limit: number): number {
    const entry = this.current(key);
    const now = this.clock();
    if (!entry) return 1;
    const slot = Math.floor(now / this.slotMs);
    let remaining = this.count(key);
    if (remaining < limit) return 1;
    for (let s = slot - this.slots + 1; s <= slot && remaining >= limit; s++) {
      remaining -= entry.counts[((s % this.slots) + this.slots) % this.slots]!;
      if (remaining < limit) return Math.max(1, Math.ceil(((s + this.slots) * this.slotMs - now) / 1000));
    }
    return Math.max(1, Math.ceil(this.windowMs / 1000));
  }

  get size(): number {
    return this.windows.size;
  }

  /** The key's slots with those that left the window zeroed (undefined when it has none left). */
  private current(key: string): Slots | undefined {
    const entry = this.windows.get(key);
    if (!entry) return undefined;
    const slot = Math.floor(this.clock() / this.slotMs);
    const stale = Math.min(this.slots, slot - entry.newest);
    for (let step = 1; step <= stale; step++) entry.counts[(entry.newest + step) % this.slots] = 0;
    if (stale > 0) entry.newest = slot;
    return entry;
  }
}
