/**
 * What an attempt's outcome means for the delivery and the subscription (pure, so every branch is
 * unit-testable with an injected random): 2xx only is success; 410 disables the subscription;
 * 429 and timeouts wait at least the throttle floor, and 429 honours Retry-After within bounds;
 * anything else (5xx, 4xx, redirects, network errors) retries on the schedule until it runs out.
 */
export interface RetryPolicy {
  /** scheduleMs[n] is the delay before attempt n + 1 (scheduleMs[0], the first attempt, is normally 0). */
  scheduleMs: readonly number[];
  jitter: number;
  throttleMinDelayMs: number;
  retryAfterMaxMs: number;
}

export type AttemptOutcome =
  | { kind: 'response'; status: number; retryAfter: string | null }
  | { kind: 'timeout' }
  | { kind: 'error'; message: string };

export type Decision =
  | { next: 'succeeded' }
  | { next: 'retry'; delayMs: number; error: string }
  | { next: 'failed'; error: string; disableReason: string | null };

export function decide(outcome: AttemptOutcome, attemptsMade: number, policy: RetryPolicy, random: () => number, nowMs: number): Decision {
  if (outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 300) return { next: 'succeeded' };
  const error = describe(outcome);
  if (outcome.kind === 'response' && outcome.status === 410) {
    return { next: 'failed', error, disableReason: `the receiver answered 410 Gone at ${new Date(nowMs).toISOString()}` };
  }
  const scheduled = policy.scheduleMs[attemptsMade];
  if (scheduled === undefined) return { next: 'failed', error: `${error}; gave up after ${attemptsMade} attempts`, disableReason: null };
  let delayMs = withJitter(scheduled, policy.jitter, random);
  const throttled = outcome.kind === 'timeout' || (outcome.kind === 'response' && outcome.status === 429);
  if (throttled) delayMs = Math.max(delayMs, policy.throttleMinDelayMs);
  if (outcome.kind === 'response' && outcome.status === 429) {
    const asked = retryAfterMs(outcome.retryAfter, nowMs);
    if (asked !== null) delayMs = Math.max(delayMs, Math.min(asked, policy.retryAfterMaxMs));
  }
  return { next: 'retry', delayMs, error };
}

/** delay x (1 +/- jitter), uniformly. */
export function withJitter(delayMs: number, jitter: number, random: () => number): number {
  return Math.round(delayMs * (1 + jitter * (2 * random() - 1)));
}

/** Retry-After as delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, nowMs: number): number | null {
  if (!header) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : null;
}

function describe(outcome: AttemptOutcome): string {
  if (outcome.kind === 'timeout') return 'timed out waiting for the receiver';
  if (outcome.kind === 'error') return outcome.message;
  if (outcome.status >= 300 && outcome.status < 400) return `HTTP ${outcome.status}: redirects are not followed`;
  return `HTTP ${outcome.status}`;
}
