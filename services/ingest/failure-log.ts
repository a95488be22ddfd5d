/**
 * Logs a repeating task's failures by state change, not by attempt: the first failure of a run of
 * failures is one plain line (what failed, why, what to check) with the error at debug level, the
 * repeats of the same reason only at debug level, and the first success after them one line saying
 * it recovered. A failure to reach upstream at all is told once per upstream by upstream-reachability.ts,
 * so here it stays at debug level: an offline start prints one line per upstream, not one per task.
 */
import type { Logger } from '../logger.js';
import { publicReason } from './source-health.js';
import { unreachableCode } from './upstream-reachability.js';

export interface FailureLog {
  /** A failed attempt of `what`; `hint` says what an operator can check. */
  failed(what: string, error: unknown, hint?: string): void;
  /** A successful attempt of `what` (logs once when it ends a run of failures). */
  succeeded(what: string): void;
}

/** What to check when an upstream cannot be reached, by the task that reaches it. */
export const UPSTREAM_HINT =
  'check the network and the POLYMARKET_*_URL / POLYGON_RPC_URL settings (docs/CONFIG.md); the service keeps retrying and serves what it has';

export function failureLog(logger: Logger): FailureLog {
  const failing = new Map<string, { reason: string; failures: number; sinceMs: number; quiet: boolean }>();
  return {
    failed(what, error, hint) {
      const reason = publicReason(error);
      const run = failing.get(what);
      if (run && run.reason === reason) {
        run.failures += 1;
        logger.debug({ err: error, failures: run.failures }, `${what} failed again`);
        return;
      }
      const quiet = unreachableCode(error) !== null;
      failing.set(what, { reason, failures: (run?.failures ?? 0) + 1, sinceMs: Date.now(), quiet });
      const detail = (error as { message?: unknown } | null)?.message;
      logger[quiet ? 'debug' : 'warn'](
        { failures: (run?.failures ?? 0) + 1, reason, detail: typeof detail === 'string' ? detail : String(error) },
        `${what} failed: ${reason}${hint ? `; ${hint}` : ''} (repeats are logged at debug level until it recovers)`,
      );
      logger.debug({ err: error }, `${what} failure`);
    },
    succeeded(what) {
      const run = failing.get(what);
      if (!run) return;
      failing.delete(what);
      logger[run.quiet ? 'debug' : 'info'](
        { failures: run.failures, seconds: Math.round((Date.now() - run.sinceMs) / 1000) },
        `${what} recovered`,
      );
    },
  };
}
