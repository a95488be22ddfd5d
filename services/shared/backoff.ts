/**
 * The one retry back-off: exponential from `baseMs`, capped at `maxMs`, with optional full jitter
 * (a uniform draw below the ceiling, so clients that failed together do not retry together).
 */
export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
  /** Full jitter; off where a deterministic delay matters more than spreading (in-process retries). */
  jitter: boolean;
}

/** Delay before retry number `attempt` (1 = the first retry). */
export function backoffMs(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  return policy.jitter ? Math.floor(random() * ceiling) : ceiling;
}
