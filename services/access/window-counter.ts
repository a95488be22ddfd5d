/**
 * Counts events per key in fixed windows (e.g. failed authentications per client address per
 * minute), in a bounded LRU so the set of keys cannot grow without limit: a key evicted under
 * pressure starts again from zero, which only ever errs towards letting a request through.
 */
import { BoundedLru } from '../shared/lru.js';

interface Window {
  startMs: number;
  count: number;
}

export class WindowCounter {
  private readonly windows: BoundedLru<string, Window>;

  constructor(
    private readonly windowMs: number,
    maxKeys: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.windows = new BoundedLru({ maxEntries: maxKeys, sweepIntervalMs: windowMs, clock });
  }

  /** Events counted for `key` in the current window. */
  count(key: string): number {
    return this.current(key)?.count ?? 0;
  }

  add(key: string): number {
    const now = this.clock();
    const window = this.current(key) ?? { startMs: now - (now % this.windowMs), count: 0 };
    window.count += 1;
    this.windows.set(key, window, window.startMs + this.windowMs - now);
    return window.count;
  }

  /** Seconds until the current window of `key` ends. */
  retryAfterSeconds(key: string): number {
    const window = this.current(key);
    const now = this.clock();
    return Math.max(1, Math.ceil(((window?.startMs ?? now) + this.windowMs - now) / 1000));
  }

  get size(): number {
    return this.windows.size;
  }

  private current(key: string): Window | undefined {
    return this.windows.get(key);
  }
}
