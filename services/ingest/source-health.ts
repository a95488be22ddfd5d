/**
 * Per-source freshness, reported by /v1/health: when each ingestor last succeeded, what it saw, and
 * how far behind upstream it is (lag) against its freshness target.
 *
 * lag_ms = now - covered_until, the upstream time up to which this source's view is complete: the
 * start of the last successful poll (a poll sees everything upstream had when it started), or the
 * arrival of the last websocket message or heartbeat answer on a live connection. Targets: ticks and
 * books 2 s, trades 15 s, positions 10 min, metadata 5 min.
 */
import { isoOrNull } from '../shared/time.js';
export interface SourceStatus {
  source: string;
  last_success_at: string | null;
  last_attempt_at: string | null;
  last_error: string | null;
  consecutive_failures: number;
  records_published: number;
  records_dead_lettered: number;
  /** Upstream time up to which this source's view is complete (ISO), null before the first success. */
  covered_until: string | null;
  /** Milliseconds between now and covered_until (or last_success_at), null before the first success. */
  lag_ms: number | null;
  /** The freshness this source aims for, null when it has none. */
  target_lag_ms: number | null;
  /** lag_ms <= target_lag_ms; null when either is unknown. */
  fresh: boolean | null;
  /** The source knows its view has a hole (a gap it is backfilling, events it could not publish). */
  degraded: boolean;
  degraded_reason: string | null;
  /** A long job's progress (the first catalog sync), null when the source runs none. */
  progress: SyncProgress | null;
}

interface SyncProgress {
  /** What the job is doing, e.g. `initial sync: markets (closed)` or `incremental`. */
  phase: string;
  /** Records done so far in this job. */
  completed: number;
  /** Records in all, when upstream says; null otherwise. */
  total: number | null;
  started_at: string;
  finished_at: string | null;
  /** completed / seconds since started_at (to finished_at once done). */
  per_second: number;
}

export const FRESHNESS_TARGETS_MS = {
  ticks: 2_000,
  books: 2_000,
  trades: 15_000,
  positions: 600_000,
  metadata: 300_000,
} as const;

interface Entry {
  source: string;
  lastSuccessMs: number | null;
  lastAttemptMs: number | null;
  lastEventMs: number | null;
  lastError: string | null;
  consecutiveFailures: number;
  published: number;
  deadLettered: number;
  targetLagMs: number | null;
  degradedReason: string | null;
  progress: { phase: string; completed: number; total: number | null; startedMs: number; finishedMs: number | null } | null;
}

export class SourceHealth {
  private readonly sources = new Map<string, Entry>();

  constructor(private readonly clock: () => number = Date.now) {}

  private entry(source: string): Entry {
    let status = this.sources.get(source);
    if (!status) {
      status = {
        source,
        lastSuccessMs: null,
        lastAttemptMs: null,
        lastEventMs: null,
        lastError: null,
        consecutiveFailures: 0,
        published: 0,
        deadLettered: 0,
        targetLagMs: null,
        degradedReason: null,
        progress: null,
      };
      this.sources.set(source, status);
    }
    return status;
  }

  register(source: string, targetLagMs: number | null = null): void {
    const entry = this.entry(source);
    if (targetLagMs !== null) entry.targetLagMs = targetLagMs;
  }

  /** A successful poll or message; `coveredUntilMs`: upstream time its view is complete up to (default: now). */
  succeeded(source: string, published: number, deadLettered: number, coveredUntilMs?: number | null): void {
    const status = this.entry(source);
    const now = this.clock();
    status.lastAttemptMs = now;
    status.lastSuccessMs = now;
    status.lastError = null;
    status.consecutiveFailures = 0;
    status.published += published;
    status.deadLettered += deadLettered;
    status.lastEventMs = Math.max(status.lastEventMs ?? 0, coveredUntilMs ?? now);
  }

  /**
   * A poll that had nothing to read (no markets or wallets known yet): an attempt, not a success, so
   * the source is not called fresh for a view it does not have.
   */
  idle(source: string): void {
    const status = this.entry(source);
    status.lastAttemptMs = this.clock();
    status.lastError = null;
    status.consecutiveFailures = 0;
  }

  /** Records published along the way of a long run, without claiming the run succeeded. */
  counted(source: string, published: number, deadLettered: number): void {
    const status = this.entry(source);
    status.published += published;
    status.deadLettered += deadLettered;
  }

  /** Records a failure; what is kept (and shown on /v1/health) is its kind, never upstream text or URLs (the log has those). */
  failed(source: string, error: unknown): void {
    const status = this.entry(source);
    status.lastAttemptMs = this.clock();
    status.lastError = publicReason(error);
    status.consecutiveFailures += 1;
  }

  /** The source's view has a hole until `recovered` (e.g. a trade gap being backfilled). */
  degraded(source: string, reason: string): void {
    this.entry(source).degradedReason = reason;
  }

  recovered(source: string): void {
    this.entry(source).degradedReason = null;
  }

  isDegraded(source: string): boolean {
    return this.sources.get(source)?.degradedReason != null;
  }

  /** Progress of a long job; `finished` closes it (the rate then stays as measured). */
  progress(
    source: string,
    update: { phase: string; completed: number; total?: number | null; startedMs: number; finished?: boolean },
  ): void {
    this.entry(source).progress = {
      phase: update.phase,
      completed: update.completed,
      total: update.total ?? null,
      startedMs: update.startedMs,
      finishedMs: update.finished ? this.clock() : null,
    };
  }

  snapshot(): SourceStatus[] {
    const now = this.clock();
    return [...this.sources.values()].map((s) => {
      const reference = s.lastEventMs ?? s.lastSuccessMs;
      const lag = reference === null ? null : Math.max(0, now - reference);
      return {
        source: s.source,
        last_success_at: isoOrNull(s.lastSuccessMs),
        last_attempt_at: isoOrNull(s.lastAttemptMs),
        last_error: s.lastError,
        consecutive_failures: s.consecutiveFailures,
        records_published: s.published,
        records_dead_lettered: s.deadLettered,
        covered_until: isoOrNull(s.lastEventMs),
        lag_ms: lag,
        target_lag_ms: s.targetLagMs,
        fresh: lag === null || s.targetLagMs === null ? null : lag <= s.targetLagMs,
        degraded: s.degradedReason !== null,
        degraded_reason: s.degradedReason,
        progress: s.progress === null ? null : presentProgress(s.progress, now),
      };
    });
  }
}

/** A failure as callers of the public API may see it: its kind and HTTP status, no text from upstream. */
export function publicReason(error: unknown): string {
  const e = error as { status?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : String(error);
  if (typeof e?.status === 'number') return `upstream answered HTTP ${e.status}`;
  if (/timed out|timeout/i.test(message)) return 'upstream timed out';
  if (/not JSON|invalid|unexpected/i.test(message)) return 'upstream sent an unreadable response';
  if (/fetch failed|ECONN|ENOTFOUND|EAI_AGAIN|socket|network/i.test(message)) return 'upstream unreachable';
  return 'ingest error (see the service log)';
}

function presentProgress(p: NonNullable<Entry['progress']>, nowMs: number): SyncProgress {
  const seconds = Math.max(0.001, ((p.finishedMs ?? nowMs) - p.startedMs) / 1000);
  return {
    phase: p.phase,
    completed: p.completed,
    total: p.total,
    started_at: new Date(p.startedMs).toISOString(),
    finished_at: isoOrNull(p.finishedMs),
    per_second: Math.round((p.completed / seconds) * 10) / 10,
  };
}
