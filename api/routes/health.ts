/**
 * GET /health: any valid key. Status, per-source freshness, sink lag and indexed counts. It costs no
 * more than a cached read: the counts and the sink lag are computed at most once per period however
 * often health is asked for, and failures show as their kind (the log has the upstream text).
 */
import { Router } from 'express';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import type { SourceStatus } from '../../services/ingest/source-health.js';
import { success } from '../envelope.js';
import { cached } from '../metrics.js';

export interface HealthInputs {
  version: string;
  /** Ingest sources known to this process (empty when ingestion runs elsewhere). */
  sources: () => SourceStatus[];
  /** Messages on the log not yet in the analytics store, per topic (callers cache it). */
  sinkLag: () => Promise<Record<string, number>>;
}

/** How long indexed counts are reused: they move slowly and an exact distinct count scans a table. */
const COUNTS_TTL_MS = 30_000;

// A source is "failing" after this many consecutive failed polls: one timeout is not an outage.
const FAILING_AFTER = 3;

export function healthRoutes(store: AnalyticsStore, inputs: HealthInputs): Router {
  const router = Router();
  const indexedCounts = cached(
    () =>
      store.query<{ markets: number; trades: number }>(
        'SELECT (SELECT uniqExact(market_id) FROM markets) AS markets, (SELECT count() FROM trades) AS trades',
      ),
    COUNTS_TTL_MS,
  );
  router.get('/health', async (_request, response) => {
    const [counts] = await indexedCounts();
    const sources = inputs.sources();
    const issues = [
      ...sources
        .filter((s) => s.consecutive_failures >= FAILING_AFTER)
        .map((s) => `${s.source}: ${s.consecutive_failures} consecutive failures; last error: ${s.last_error}`),
      ...sources.filter((s) => s.degraded).map((s) => `${s.source}: degraded: ${s.degraded_reason}`),
    ];
    response.json(
      success({
        status: issues.length === 0 ? 'ok' : 'degraded',
        version: inputs.version,
        time: new Date().toISOString(),
        issues,
        sources,
        pipeline: { sink_lag: await inputs.sinkLag() },
        counts: { markets: Number(counts?.markets ?? 0), trades: Number(counts?.trades ?? 0) },
      }),
    );
  });
  return router;
}
