/**
 * Fixed-window counters in the control store, shared by every API process: each `add` increments
 * the window row and returns its new count in one statement, so concurrent processes never lose
 * an increment. Used where the limit must hold across processes and each event already costs a
 * write (registrations).
 */
import type { ControlStore } from '../ports/control-store.js';

export class SharedWindowCounter {
  constructor(
    private readonly store: ControlStore,
    private readonly windowMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Adds one event to `scope`'s current window; returns the window's count and the seconds until it ends. */
  async add(scope: string): Promise<{ count: number; retryAfterSeconds: number }> {
    const now = this.clock();
    const windowStart = now - (now % this.windowMs);
    const [row] = await this.store.query<{ count: number }>(
      `INSERT INTO rate_windows (scope, window_start, count) VALUES ($1, $2, 1)
       ON CONFLICT (scope, window_start) DO UPDATE SET count = rate_windows.count + 1 RETURNING count`,
      [scope, new Date(windowStart)],
    );
    return { count: Number(row?.count ?? 1), retryAfterSeconds: Math.max(1, Math.ceil((windowStart + this.windowMs - now) / 1000)) };
  }
}
