/**
 * GET /health: any valid key. Status, per-source freshness, the chain source, reconciliation, sink
 * lag and indexed counts. It costs no more than a cached read: the counts, the reconciliation and the
 * sink lag are computed at most once per period however often health is asked for, and failures show
 * as their kind (the log has the upstream text).
 */
import { Router } from 'express';
import type { ChainBackfillState } from '../../services/backfill/chain-backfill.js';
import { type HistoryProgress, readHistoryProgress } from '../../services/backfill/history-fill.js';
import type { ChainStatus } from '../../services/chain/follower.js';
import type { SourceStatus } from '../../services/ingest/source-health.js';
import { type UpstreamStatus, upstreamOfSource } from '../../services/ingest/upstream-reachability.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import type { EventLogStorage } from '../../services/ports/event-log.js';
import { chainCoverage, type ReconciliationHour, reconciliationHours } from '../../services/read-models/chain-ledger/queries.js';
import { ledgerCoverage } from '../../services/read-models/positions/coverage.js';
import { isoOrNull } from '../../services/shared/time.js';
import type { VerificationRun } from '../../services/shared/verification.js';
import { success } from '../../services/http/envelope.js';
import { cached } from '../metrics.js';

export interface HealthInputs {
  version: string;
  /** Ingest sources known to this process (empty when ingestion runs elsewhere). */
  sources: () => SourceStatus[];
  /** Whether each upstream can be reached (empty when ingestion runs elsewhere). */
  upstreams?: () => UpstreamStatus[];
  /** Messages on the log not yet in the analytics store, per topic (callers cache it). */
  sinkLag: () => Promise<Record<string, number>>;
  /** The position ledger's backlog per topic it reads (its own consumer group). */
  ledgerLag?: () => Promise<Record<string, number>>;
  /** Whether this configuration runs the chain source (an RPC is configured, on the same upstream as Gamma); default false. */
  chainEnabled?: boolean;
  /** The chain source's figures when it runs in this process. */
  chain?: () => ChainStatus | null;
  /** The embedded event log's disk use and retention figures (absent with Kafka). */
  eventLog?: () => Promise<EventLogStorage>;
  /** The progress of a chain backfill checkpointed in the data folder, null when none is. */
  chainBackfill?: () => Promise<ChainBackfillState | null>;
  /** The in-service history fill's progress, from its files in the data folder (CHAIN_HISTORY); absent: off. */
  chainHistory?: () => Promise<HistoryProgress>;
  /** The last `npm run verify` run left in the data folder, if any. */
  verification?: () => Promise<VerificationRun | null>;
}

/** How long indexed counts are reused: they move slowly and an exact distinct count scans a table. */
const COUNTS_TTL_MS = 30_000;
const RECONCILED_TTL_MS = 5_000;

// A source is "failing" after this many consecutive failed polls: one timeout is not an outage.
const FAILING_AFTER = 3;

/** Reconciliation figures: the newest hours and their sum. */
function reconciliationSummary(hours: ReconciliationHour[]) {
  const total = (key: 'data_api' | 'matched' | 'unmatched' | 'chain_only') => hours.reduce((sum, h) => sum + h[key], 0);
  return {
    hours,
    last_24h: { data_api: total('data_api'), matched: total('matched'), unmatched: total('unmatched'), chain_only: total('chain_only') },
  };
}

/** The health view of the log's storage (api/openapi.yaml Health.event_log). */
export function eventLogFigures(storage: EventLogStorage) {
  const partitions = storage.topics.reduce((sum, t) => sum + t.partitions, 0);
  const capRoom = storage.hardCapBytes === null ? Number.POSITIVE_INFINITY : storage.hardCapBytes * partitions - storage.bytes;
  return {
    bytes: storage.bytes,
    free_bytes: storage.freeBytes,
    headroom_bytes: Math.max(0, Math.min(storage.freeBytes, capRoom)),
    segment_bytes: storage.segmentBytes,
    retention_ms: storage.retentionMs,
    retention_bytes: storage.retentionBytes,
    hard_cap_bytes: storage.hardCapBytes,
    deleted_segments: storage.deletedSegments,
    deleted_bytes: storage.deletedBytes,
    lost_records: storage.lostRecordsByGroup,
  };
}

export function healthRoutes(store: AnalyticsStore, inputs: HealthInputs): Router {
  const router = Router();
  const indexedCounts = cached(
    () =>
      store.query<{ markets: number; trades: number; chain_fills: number }>(
        `SELECT (SELECT uniqExact(market_id) FROM markets) AS markets, (SELECT count() FROM trades) AS trades,
                (SELECT count() FROM chain_ledger WHERE kind = 'fill') AS chain_fills`,
      ),
    COUNTS_TTL_MS,
  );
  // Reconciled hours change once a minute (RECONCILIATION_INTERVAL_MS).
  const reconciled = cached(() => reconciliationHours(store, 24), RECONCILED_TTL_MS);
  router.get('/health', async (_request, response) => {
    const [[counts], coverage, hours, stated, backfill, history] = await Promise.all([
      indexedCounts(),
      chainCoverage(store),
      reconciled(),
      ledgerCoverage(store),
      inputs.chainBackfill?.() ?? null,
      inputs.chainHistory?.() ?? readHistoryProgress(null, false),
    ]);
    const sources = inputs.sources();
    const upstreams = inputs.upstreams?.() ?? [];
    // A failure to reach upstream at all is said in plain words: which upstream, the error code, since when.
    const lastError = (s: SourceStatus) => {
      const upstream = upstreams.find((u) => u.upstream === upstreamOfSource(s.source));
      return upstream?.cause && s.last_error === 'upstream unreachable' ? upstream.cause : s.last_error;
    };
    const issues = [
      ...sources
        .filter((s) => s.consecutive_failures >= FAILING_AFTER)
        .map((s) => `${s.source}: ${s.consecutive_failures} consecutive failures; last error: ${lastError(s)}`),
      // A source that has never succeeded is named at its first failure: an offline start says at once
      // that nothing is coming, whichever source failed (the catalog sync fails once, then waits).
      ...sources
        .filter((s) => s.last_success_at === null && s.consecutive_failures > 0 && s.consecutive_failures < FAILING_AFTER)
        .map(
          (s) =>
            `${s.source}: has not succeeded yet (${s.consecutive_failures} failed attempt${s.consecutive_failures === 1 ? '' : 's'}); last error: ${lastError(s)}`,
        ),
      ...sources.filter((s) => s.degraded).map((s) => `${s.source}: degraded: ${s.degraded_reason}`),
    ];
    const unmatched = hours.reduce((sum, h) => sum + h.unmatched, 0);
    if (unmatched > 0)
      issues.push(`reconciliation: ${unmatched} Data API trades in the last 24 reconciled hours have no matching chain fill`);
    const status = inputs.chain?.() ?? null;
    const eventLog = inputs.eventLog ? eventLogFigures(await inputs.eventLog()) : null;
    for (const [group, records] of Object.entries(eventLog?.lost_records ?? {})) {
      issues.push(
        `event log: the hard byte cap (EVENT_LOG_HARD_CAP_BYTES) deleted ${records} records consumer group ${group} had not read`,
      );
    }
    response.json(
      success({
        status: issues.length === 0 ? 'ok' : 'degraded',
        version: inputs.version,
        time: new Date().toISOString(),
        issues,
        sources,
        upstreams,
        trade_coverage: coverage ? 'both_sides' : 'taker_only',
        chain: {
          enabled: inputs.chainEnabled ?? false,
          covered_from: isoOrNull(coverage?.firstMs),
          covered_to: isoOrNull(coverage?.lastMs),
          ...(status ?? {}),
        },
        coverage: { ...stated, backfill, history: historyBody(history) },
        reconciliation: reconciliationSummary(hours),
        pipeline: { sink_lag: await inputs.sinkLag(), ledger_lag: (await inputs.ledgerLag?.()) ?? {} },
        event_log: eventLog,
        verification: (await inputs.verification?.()) ?? null,
        counts: {
          markets: Number(counts?.markets ?? 0),
          trades: Number(counts?.trades ?? 0),
          chain_fills: Number(counts?.chain_fills ?? 0),
        },
      }),
    );
  });
  return router;
}

/** The history fill as /health serves it (api/openapi.yaml HealthCoverage.history). */
function historyBody(p: HistoryProgress) {
  return {
    state: p.state,
    from_block: p.from_block,
    to_block: p.to_block,
    blocks_done: p.blocks_done,
    blocks_to_do: p.blocks_to_do,
    blocks_per_second: p.blocks_per_second,
    eta_seconds: p.eta_seconds,
    events: p.events,
    updated_at: p.updated_at_ms === null ? null : new Date(p.updated_at_ms).toISOString(),
  };
}
