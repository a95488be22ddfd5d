/**
 * Kafka ingest benchmark: trades/s produced to a real Kafka broker (Avro, Confluent wire format,
 * schema registry) and consumed by the sink into ClickHouse over HTTP (the chDB-backed harness),
 * as a ratio to a direct batch insert of the same rows through the same HTTP store in the same run;
 * then produce -> queryable latency p50/p99 of single trades. Starts its own broker and registry
 * with infra/ scripts in a temporary folder and stops them. Writes bench/results/kafka-ingest.json.
 *
 *   npm run bench:kafka              (BENCH_TRADES=50000, BENCH_PROBES=40 by default)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { openHttpStore } from '../services/analytics/clickhouse-store.js';
import { migrate } from '../services/analytics/migrate.js';
import { openKafkaEventLog } from '../services/eventlog/kafka/kafka-event-log.js';
import { EventPublisher } from '../services/events/publisher.js';
import type { AnalyticsStore } from '../services/ports/analytics-store.js';
import { allTopicSpecs, STREAMS, topicSchemas } from '../services/read-models/registry.js';
import { SINK_GROUP_ID, startSink } from '../services/sink/sink-service.js';
import { tradeRow } from '../services/read-models/trades/rows.js';
import { startClickHouseHttpHarness } from '../test/support/clickhouse-http-harness.js';
import { syntheticTrades } from './synthetic-trades.js';

const TRADES = Number(process.env.BENCH_TRADES ?? 50_000);
const PROBES = Number(process.env.BENCH_PROBES ?? 40);
const BATCH = 5_000;
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..');

async function count(store: AnalyticsStore): Promise<number> {
  const [row] = await store.query<{ n: number }>('SELECT sum(trade_count) AS n FROM candles_5m');
  return Number(row?.n ?? 0);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main() {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-kafka-'));
  const infraEnv = { ...process.env, TAPELINE_INFRA_DIR: path.join(workDir, 'infra') };
  const infra = (script: string, command: string) =>
    execFileSync('bash', [path.join(repoRoot, 'infra', script), command], {
      env: infraEnv,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
  infra('kafka.sh', 'up');
  infra('registry.sh', 'up');
  const harness = await startClickHouseHttpHarness(path.join(workDir, 'clickhouse'));
  try {
    const trades = syntheticTrades(TRADES);
    console.log(`generated ${TRADES} synthetic trades (source=simulator)`);

    const baseline = await openHttpStore({ url: harness.url, database: 'bench_baseline' });
    await migrate(baseline);
    const rows = trades.map((t) => tradeRow(t));
    const baselineStart = performance.now();
    for (let i = 0; i < rows.length; i += BATCH) await baseline.insert('trades', rows.slice(i, i + BATCH), { dedupToken: `baseline-${i}` });
    const baselineSeconds = (performance.now() - baselineStart) / 1000;
    if ((await count(baseline)) !== TRADES) throw new Error('baseline incomplete');
    await baseline.close();

    const store = await openHttpStore({ url: harness.url, database: 'bench_pipeline' });
    await migrate(store);
    const log = await openKafkaEventLog({
      brokers: [infra('kafka.sh', 'url')],
      schemaRegistryUrl: infra('registry.sh', 'url'),
      schemas: topicSchemas(),
    });
    await log.createTopics(allTopicSpecs());
    const publisher = new EventPublisher(log);
    const sink = await startSink(log, store, pino({ level: 'silent' }));
    const pipelineStart = performance.now();
    for (let i = 0; i < trades.length; i += 1_000) await publisher.publish('trades', trades.slice(i, i + 1_000));
    const producedSeconds = (performance.now() - pipelineStart) / 1000;
    for (;;) {
      const positions = await log.positions(SINK_GROUP_ID, STREAMS.trades.topic);
      if (positions.every((p) => p.committedOffset === p.endOffset) && (await count(store)) === TRADES) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const pipelineSeconds = (performance.now() - pipelineStart) / 1000;

    // Latency: one trade at a time, from produce() called to the trade being queryable.
    const probes = syntheticTrades(PROBES, 10, 99, Date.UTC(2026, 10, 15)).map((t, i) => ({ ...t, event_id: `probe-${i}-${t.event_id}` }));
    const latencies: number[] = [];
    for (const probe of probes) {
      const start = performance.now();
      await publisher.publish('trades', [probe]);
      for (;;) {
        const found = await store.query<{ n: number }>('SELECT count() AS n FROM trades WHERE trade_id = {id:String}', {
          id: probe.event_id,
        });
        if (Number(found[0]?.n) === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      latencies.push(performance.now() - start);
    }
    latencies.sort((a, b) => a - b);
    await sink.stop();
    await log.close();
    await store.close();

    const result = {
      benchmark: 'kafka-ingest',
      description:
        'trades through Kafka (Avro via schema registry) + sink into ClickHouse over HTTP (chDB-backed harness), vs a direct batch insert of the same rows through the same HTTP store',
      trades: TRADES,
      machine: { cpus: os.cpus().length, node: process.version },
      baseline_direct_insert: { seconds: round(baselineSeconds), trades_per_second: Math.round(TRADES / baselineSeconds) },
      pipeline: {
        seconds: round(pipelineSeconds),
        produce_seconds: round(producedSeconds),
        trades_per_second: Math.round(TRADES / pipelineSeconds),
      },
      ratio_pipeline_to_direct: round(baselineSeconds / pipelineSeconds),
      latency_produce_to_queryable_ms: { probes: PROBES, p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)) },
      measured_at: new Date().toISOString(),
    };
    fs.mkdirSync(path.join(here, 'results'), { recursive: true });
    fs.writeFileSync(path.join(here, 'results', 'kafka-ingest.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await harness.stop();
    infra('registry.sh', 'down');
    infra('kafka.sh', 'down');
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

await main();
