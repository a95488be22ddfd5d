/** GET /health: any valid key. Status, per-source freshness, sink lag and indexed counts. */
import { Router } from 'express';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import type { SourceStatus } from '../../services/ingest/source-health.js';
import { success } from '../envelope.js';

export interface HealthInputs {
  version: string;
  /** Ingest sources known to this process (empty when ingestion runs elsewhere). */
  sources: () => SourceStatus[];
  /** Messages on the log not yet in the analytics store, per topic. */
  sinkLag: () => Promise<Record<string, number>>;
}

// A source is "failing" after this many consecutive failed polls: one timeout is not an outage.
const FAILING_AFTER = 3;

export function healthRoutes(store: AnalyticsStore, inputs: HealthInputs): Router {
  const router = Router();
  router.get('/health', async (_request, response) => {
    const [counts] = await store.query<{ markets: number; trades: number }>(
      'SELECT (SELECT uniqExact(market_id) FROM markets) AS markets, (SELECT count() FROM trades) AS trades',
    );
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
