/**
 * When to try a call again and how long to wait. 429 is always retryable (the service refused it
 * before doing anything); 5xx and connection failures only for GET (a POST may have taken effect).
 * The wait is the service's `Retry-After` when it gives one, else exponential backoff with full
 * jitter (AWS architecture blog, "Exponential Backoff And Jitter"); a `Retry-After` longer than
 * `maxRetryDelayMs` is not waited out - the error goes to the caller with `retryAfterSeconds`.
 */
export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  maxRetries: number;
  /** Longest wait the client sleeps through on its own (default 60 s). */
  maxRetryDelayMs: number;
  /** First backoff step without Retry-After (default 500 ms; doubles per retry, capped at 8 s). */
  baseDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { maxRetries: 2, maxRetryDelayMs: 60_000, baseDelayMs: 500 };

const BACKOFF_CAP_MS = 8_000;

export function isRetryableStatus(status: number, method: string): boolean {
  if (status === 429) return true;
  return method === 'GET' && (status === 500 || status === 502 || status === 503 || status === 504);
}

/** Retry-After as seconds (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - nowMs) / 1000));
}

/** Milliseconds to wait before retry number `retry` (0-based), or null when the caller should not wait. */
export function retryDelayMs(retry: number, retryAfterSeconds: number | null, options: RetryOptions, random: () => number): number | null {
  if (retry >= options.maxRetries) return null;
  if (retryAfterSeconds !== null) {
    const ms = retryAfterSeconds * 1000;
    return ms <= options.maxRetryDelayMs ? ms : null;
  }
  return Math.floor(random() * Math.min(BACKOFF_CAP_MS, options.baseDelayMs * 2 ** retry));
}
