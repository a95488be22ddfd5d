/**
 * GET /metrics: operational figures in the Prometheus text format (version 0.0.4), for scrapers.
 * Served on the operator port (api/admin.ts), never the public one. Per ingest source: lag against
 * its target, last success, failures, records; the sink's lag and dead letters; the API's read
 * cache, key lookups and metering; the analytics queue. A scrape reads in-memory figures and the sink
 * lag, which is itself cached (`cached`), so scraping costs the log nothing per hit.
 * The chain source's blocks and the reconciliation of Data API trades with chain fills are among them.
 */
import { Router } from 'express';
import type { ChainStatus } from '../services/chain/follower.js';
import type { SourceStatus } from '../services/ingest/source-health.js';
import type { ReconciliationHour } from '../services/read-models/chain-ledger/queries.js';
import { type Family, single } from '../services/shared/metric-family.js';
import { outsideRequest } from '../services/shared/request-context.js';

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const seconds = (iso: string | null) => (iso === null ? null : Date.parse(iso) / 1000);

export function renderPrometheus(families: Family[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${family.help}`, `# TYPE ${family.name} ${family.type}`);
    for (const { labels, value } of family.samples) {
      const labelText = Object.entries(labels)
        .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
        .join(',');
      lines.push(`${family.name}${labelText ? `{${labelText}}` : ''} ${Number.isFinite(value) ? value : 'NaN'}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export function ingestionMetrics(sources: SourceStatus[], sinkLag: Record<string, number>): Family[] {
  const per = (pick: (s: SourceStatus) => number | null) =>
    sources.flatMap((s) => {
      const value = pick(s);
      return value === null ? [] : [{ labels: { source: s.source }, value }];
    });
  return [
    {
      name: 'tapeline_source_lag_seconds',
      help: 'Upstream time not yet covered by this source (now - covered_until).',
      type: 'gauge',
      samples: per((s) => (s.lag_ms === null ? null : s.lag_ms / 1000)),
    },
    {
      name: 'tapeline_source_target_lag_seconds',
      help: 'Freshness target of this source.',
      type: 'gauge',
      samples: per((s) => (s.target_lag_ms === null ? null : s.target_lag_ms / 1000)),
    },
    {
      name: 'tapeline_source_fresh',
      help: '1 when the lag is within the target, 0 when not.',
      type: 'gauge',
      samples: per((s) => (s.fresh === null ? null : s.fresh ? 1 : 0)),
    },
    {
      name: 'tapeline_source_last_success_timestamp_seconds',
      help: 'Unix time of the last successful poll or message.',
      type: 'gauge',
      samples: per((s) => seconds(s.last_success_at)),
    },
    {
      name: 'tapeline_source_consecutive_failures',
      help: 'Failed polls since the last success.',
      type: 'gauge',
      samples: per((s) => s.consecutive_failures),
    },
    {
      name: 'tapeline_source_degraded',
      help: '1 while the source repairs a known hole in its view (a trade gap, unpublished websocket events).',
      type: 'gauge',
      samples: per((s) => (s.degraded ? 1 : 0)),
    },
    {
      name: 'tapeline_source_progress_records',
      help: "Records done by the source's long job (the first catalog sync).",
      type: 'gauge',
      samples: per((s) => s.progress?.completed ?? null),
    },
    {
      name: 'tapeline_source_records_published_total',
      help: 'Events published by this source since start.',
      type: 'counter',
      samples: per((s) => s.records_published),
    },
    {
      name: 'tapeline_source_records_dead_lettered_total',
      help: 'Malformed records sent to the dead-letter topic since start.',
      type: 'counter',
      samples: per((s) => s.records_dead_lettered),
    },
    {
      name: 'tapeline_sink_lag_messages',
      help: 'Messages on the log not yet in the analytics store.',
      type: 'gauge',
      samples: Object.entries(sinkLag).map(([topic, value]) => ({ labels: { topic }, value })),
    },
  ];
}

/** The chain source: head, final and ingested blocks, what waits, reorgs. */
export function chainMetrics(status: ChainStatus | null): Family[] {
  if (!status) return [];
  const gauge = (name: string, help: string, value: number | null, type: Family['type'] = 'gauge'): Family[] =>
    value === null ? [] : [{ name, help, type, samples: [{ labels: { chain_id: String(status.chain_id) }, value }] }];
  return [
    ...gauge('tapeline_chain_head_block', 'Newest block the RPC reports.', status.head_block),
    ...gauge('tapeline_chain_final_block', 'head - CHAIN_CONFIRMATIONS: the newest block treated as final.', status.final_block),
    ...gauge('tapeline_chain_ingested_block', 'The last block read and published.', status.ingested_block),
    ...gauge('tapeline_chain_lag_blocks', 'Final blocks not read yet.', status.lag_blocks),
    ...gauge('tapeline_chain_pending_events', 'Settlement events waiting for the catalog to know their market.', status.pending_events),
    ...gauge(
      'tapeline_chain_conversions_waiting',
      "Neg-risk conversions waiting for their market's questions (chain or their transaction), the catalog's tokens of them, or an earlier event of their wallet.",
      status.conversions_waiting,
    ),
    ...gauge(
      'tapeline_chain_conversions_unfit_evidence',
      "Conversions waiting whose own transaction's splits do not fit their index set.",
      status.conversions_unfit_evidence,
    ),
    ...gauge(
      'tapeline_chain_conversions_from_transaction_total',
      'Conversions published with their question count from their own transaction since start.',
      status.conversions_from_transaction,
      'counter',
    ),
    ...gauge(
      'tapeline_chain_conversion_fees_assumed_total',
      'Conversions published with fee 0 assumed (neither MarketPrepared nor their transaction told it) since start.',
      status.conversion_fees_assumed,
      'counter',
    ),
    ...gauge(
      'tapeline_chain_released_at_hold_limit_total',
      'Events published only because they waited CHAIN_HOLD_MAX_MS (conversions priced with the catalog questions) since start.',
      status.released_at_hold_limit,
      'counter',
    ),
    ...gauge(
      'tapeline_chain_dead_lettered_at_hold_limit_total',
      'Events dead-lettered because they waited CHAIN_HOLD_MAX_MS and nothing priced them, since start.',
      status.dead_lettered_at_hold_limit,
      'counter',
    ),
    ...gauge(
      'tapeline_chain_oldest_conversion_waiting_seconds',
      'Age of the oldest conversion waiting (now - its block time).',
      status.oldest_conversion_waiting_ms === null ? null : Math.max(0, (Date.now() - status.oldest_conversion_waiting_ms) / 1000),
    ),
    ...gauge('tapeline_chain_log_range_blocks', 'Current eth_getLogs window.', status.log_range_blocks),
    ...gauge('tapeline_chain_reorgs_total', 'Reorgs repaired since start.', status.reorgs, 'counter'),
    ...gauge('tapeline_chain_retracted_blocks_total', 'Published blocks retracted since start.', status.retracted_blocks, 'counter'),
  ];
}

/** Data API trades matched / unmatched against chain fills: the newest reconciled hour, and the last 24 reconciled hours. */
export function reconciliationMetrics(hours: ReconciliationHour[]): Family[] {
  if (hours.length === 0) return [];
  const latest = hours[0] as ReconciliationHour;
  const statuses = ['matched', 'unmatched', 'chain_only'] as const;
  return [
    {
      name: 'tapeline_trades_reconciled_last_hour',
      help: `Data API trades matched / unmatched by a chain taker fill, and chain taker fills the Data API did not list, in the newest reconciled hour (${latest.hour}).`,
      type: 'gauge',
      samples: statuses.map((status) => ({ labels: { status }, value: latest[status] })),
    },
    {
      name: 'tapeline_trades_reconciled_24h',
      help: 'The same over the last 24 reconciled hours.',
      type: 'gauge',
      samples: statuses.map((status) => ({ labels: { status }, value: hours.reduce((sum, h) => sum + h[status], 0) })),
    },
  ];
}

/** Tracked wallets whose newest position check (of the last day) matched Polymarket's Data API or drifted, and the summed size drift. */
export function positionReconciliationMetrics(summary: {
  match: number;
  explained: number;
  drift: number;
  sizeDriftShares: number;
}): Family[] {
  if (summary.match + summary.explained + summary.drift === 0) return [];
  return [
    {
      name: 'tapeline_positions_reconciled_wallets',
      help: "Tracked wallets whose open positions match Polymarket's Data API /positions (status=match), differ only for known reasons (status=explained: the ledger behind the snapshot, history before the coverage) or differ without one (status=drift), newest check of the last day.",
      type: 'gauge',
      samples: (['match', 'explained', 'drift'] as const).map((status) => ({ labels: { status }, value: summary[status] })),
    },
    single(
      'tapeline_positions_reconciled_drift_shares',
      "Shares by which those wallets' positions differ from the Data API, summed.",
      'gauge',
      summary.sizeDriftShares,
    ),
  ];
}

/** What /metrics renders: each collector returns its families (collected in order). */
export interface MetricsSource {
  collect(): Promise<Family[]>;
  /** Families kept by prom-client (the processors'), already in the text format, rendered after the others. */
  exposition?(): Promise<string>;
}

/**
 * `load` at most once per `ttlMs`, callers in between share the last value (or the load in flight),
 * so a value that costs a round trip (sink lag: admin calls to Kafka) costs it once per period however
 * often it is asked for. A failed load is not kept. The load runs outside the request that happened to
 * start it: it is every caller's, so it neither queues in that caller's lane nor is dropped once that
 * caller is answered.
 */
export function cached<T>(load: () => Promise<T>, ttlMs: number, clock: () => number = Date.now): () => Promise<T> {
  let value: { at: number; promise: Promise<T> } | null = null;
  return () => {
    const now = clock();
    if (value && now - value.at < ttlMs) return value.promise;
    const promise = outsideRequest(load);
    const entry = { at: now, promise };
    value = entry;
    promise.catch(() => {
      if (value === entry) value = null;
    });
    return promise;
  };
}

export function metricsRoutes(source: MetricsSource): Router {
  const router = Router();
  router.get('/metrics', async (_request, response, next) => {
    try {
      const text = renderPrometheus(await source.collect()) + ((await source.exposition?.()) ?? '');
      response.type('text/plain; version=0.0.4; charset=utf-8').send(text);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
