/** GET /metrics: per-source lag, target, last success and failures, sink lag and the processors' figures, in Prometheus text format. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { ingestionMetrics, metricsRoutes, renderPrometheus } from '../../api/metrics.js';
import { SourceHealth } from '../../services/ingest/source-health.js';
import { processorMetricsText } from '../../services/processors/processor-metrics.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import { ledgerOf } from '../../services/read-models/positions/ledger-projection.js';

function healthAt(nowMs: number) {
  let clock = nowMs - 4_000;
  const health = new SourceHealth(() => clock);
  health.register('clob.ws', 2_000);
  health.register('data.trades', 15_000);
  health.register('gamma.markets', 300_000);
  health.succeeded('clob.ws', 10, 1, clock);
  health.succeeded('data.trades', 3, 0, clock);
  health.failed('data.trades', new Error('HTTP 503'));
  clock = nowMs;
  return health;
}

test('families and samples, one per source, in the text format', () => {
  const text = renderPrometheus(ingestionMetrics(healthAt(Date.UTC(2026, 0, 1)).snapshot(), { 'tapeline.trades.v1': 7 }));
  expect(text).toContain('# TYPE tapeline_source_lag_seconds gauge\n');
  expect(text).toContain('tapeline_source_lag_seconds{source="clob.ws"} 4\n');
  expect(text).toContain('tapeline_source_fresh{source="clob.ws"} 0\n');
  expect(text).toContain('tapeline_source_fresh{source="data.trades"} 1\n');
  expect(text).toContain('tapeline_source_target_lag_seconds{source="data.trades"} 15\n');
  expect(text).toContain(`tapeline_source_last_success_timestamp_seconds{source="clob.ws"} ${(Date.UTC(2026, 0, 1) - 4_000) / 1000}\n`);
  expect(text).toContain('tapeline_source_consecutive_failures{source="data.trades"} 1\n');
  expect(text).toContain('tapeline_source_records_dead_lettered_total{source="clob.ws"} 1\n');
  expect(text).toContain('tapeline_sink_lag_messages{topic="tapeline.trades.v1"} 7\n');
  // A source that never succeeded has no lag sample rather than a made-up one.
  expect(text).not.toContain('tapeline_source_lag_seconds{source="gamma.markets"}');
  expect(text).toContain('tapeline_source_consecutive_failures{source="gamma.markets"} 0\n');
  // Every non-comment line is `name{labels} value`.
  for (const line of text
    .trim()
    .split('\n')
    .filter((l) => !l.startsWith('#')))
    expect(line).toMatch(/^[a-z_]+(\{[a-z_]+="[^"]*"\})? -?[0-9.e+-]+$/);
});

test('served over HTTP as text/plain version 0.0.4', async () => {
  const health = healthAt(Date.now());
  const app = express().use(metricsRoutes({ collect: async () => ingestionMetrics(health.snapshot(), { 'tapeline.markets.v1': 0 }) }));
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await response.text()).toContain('tapeline_sink_lag_messages{topic="tapeline.markets.v1"} 0');
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test("the processors' prom-client families follow the hand-made ones on the same endpoint", async () => {
  const app = express().use(
    metricsRoutes({
      collect: async () => ingestionMetrics([], { 'tapeline.trades.v1': 3 }),
      exposition: processorMetricsText,
    }),
  );
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const text = await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`)).text();
    expect(text).toContain('tapeline_sink_lag_messages{topic="tapeline.trades.v1"} 3\n');
    expect(text).toContain('# TYPE tapeline_processor_batch_duration_seconds histogram\n');
    expect(text).toContain('# TYPE tapeline_processor_dead_lettered_total counter\n');
    expect(text).toContain('# TYPE tapeline_processor_lag_messages gauge\n');
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test("the position ledgers' counts are served per figure, summed over the ledgers of the process", async () => {
  // Two stores' ledgers as the sink's projection makes them; the store is never queried by a count.
  const first = ledgerOf({} as AnalyticsStore).ledger;
  const second = ledgerOf({} as AnalyticsStore).ledger;
  first.stats.applied += 7;
  second.stats.applied += 5;
  second.stats.relinks_beyond_bound += 2;
  const text = await processorMetricsText();
  expect(text).toContain('# TYPE tapeline_position_ledger_figure gauge\n');
  expect(text).toContain('tapeline_position_ledger_figure{figure="applied"} 12\n');
  expect(text).toContain('tapeline_position_ledger_figure{figure="relinks_beyond_bound"} 2\n');
  expect(text).toContain('tapeline_position_ledger_figure{figure="rewinds"} 0\n');
});
