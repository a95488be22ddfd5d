/**
 * The one retry back-off: exponential from `baseMs`, capped at `maxMs`, with a jitter strategy
 * (see AWS's "Exponential Backoff and Jitter"):
 * - none:  the ceiling itself (deterministic; in-process retries where spreading buys nothing);
 * - full:  uniform in [0, ceiling) - clients that failed together spread out the most;
 * - equal: half the ceiling plus uniform in [0, ceiling/2) - spread, but never an instant retry
 *          (reconnects, where an immediate retry against a closing server is wasted).
 */
export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
  jitter: 'none' | 'full' | 'equal';
}

/** Delay before retry number `attempt` (1 = the first retry). */
export function backoffMs(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  switch (policy.jitter) {
    case 'none':
      return ceiling;
    case 'full':
      return Math.floor(random() * ceiling);
    case 'equal':
      return Math.floor(ceiling / 2 + (random() * ceiling) / 2);
  }
}
