/**
 * Ingest benchmark: trades/s from the event log into queryable candles (decode, known-id filter,
 * insert with dedup token, materialized views, offset commits) as a ratio to a plain chDB insert of
 * the same rows in the same process and run. Writes bench/results/ingest.json.
 *
 *   npm run bench:ingest            (BENCH_TRADES=200000 by default)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { openChdbStore } from '../services/analytics/clickhouse-store.js';
import { migrate } from '../services/analytics/migrate.js';
import { openFileEventLog } from '../services/eventlog/file-log.js';
import type { AnalyticsStore } from '../services/ports/analytics-store.js';
import { allTopicSpecs, STREAMS } from '../services/read-models/registry.js';
import { startSink } from '../services/sink/sink-service.js';
import { tradeRow } from '../services/read-models/trades/rows.js';
import { syntheticTrades } from './synthetic-trades.js';

const TRADES = Number(process.env.BENCH_TRADES ?? 200_000);
const BATCH = 5_000;
const here = path.dirname(fileURLToPath(import.meta.url));

async function candleTradeCount(store: AnalyticsStore): Promise<number> {
  const [row] = await store.query<{ n: number }>('SELECT sum(trade_count) AS n FROM candles_5m');
  return Number(row?.n ?? 0);
}

async function main() {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-'));
  const trades = syntheticTrades(TRADES);
  console.log(`generated ${TRADES} synthetic trades (source=simulator)`);

  // One chDB engine per process: both databases live in one data folder.
  const baselineStore = await openChdbStore({ path: path.join(workDir, 'chdb'), database: 'bench_baseline' });
  await migrate(baselineStore);
  const rows = trades.map((t) => tradeRow(t));
  const baselineStart = performance.now();
  for (let i = 0; i < rows.length; i += BATCH) await baselineStore.insert('trades', rows.slice(i, i + BATCH));
  const baselineSeconds = (performance.now() - baselineStart) / 1000;
  if ((await candleTradeCount(baselineStore)) !== TRADES) throw new Error('baseline candles incomplete');
  await baselineStore.close();

  const store = await openChdbStore({ path: path.join(workDir, 'chdb'), database: 'bench_pipeline' });
  await migrate(store);
  const log = await openFileEventLog({ directory: path.join(workDir, 'log') });
  await log.createTopics(allTopicSpecs());
  const produceStart = performance.now();
  for (let i = 0; i < trades.length; i += BATCH) {
    await log.produce(
      STREAMS.trades.topic,
      trades.slice(i, i + BATCH).map((t) => ({ key: t.market_id, value: STREAMS.trades.codec.encode(t), timestamp: t.timestamp_ms })),
    );
  }
  const produceSeconds = (performance.now() - produceStart) / 1000;

  const pipelineStart = performance.now();
  const sink = await startSink(log, store, pino({ level: 'warn' }), { groupId: 'bench-sink' });
  for (;;) {
    if ((await candleTradeCount(store)) >= TRADES) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const pipelineSeconds = (performance.now() - pipelineStart) / 1000;
  await sink.stop();
  const exact = await candleTradeCount(store);
  await log.close();
  await store.close();
  fs.rmSync(workDir, { recursive: true, force: true });

  const baselineRate = TRADES / baselineSeconds;
  const pipelineRate = TRADES / pipelineSeconds;
  const result = {
    benchmark: 'ingest: event log -> sink -> queryable candles',
    measured_at: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpu_model: os.cpus()[0]?.model ?? 'unknown',
      memory_gb: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
    },
    trades: TRADES,
    batch_size: BATCH,
    baseline_plain_chdb_insert: { seconds: round(baselineSeconds), trades_per_second: Math.round(baselineRate) },
    pipeline_log_to_candles: { seconds: round(pipelineSeconds), trades_per_second: Math.round(pipelineRate), candle_trade_count: exact },
    produce_to_log: { seconds: round(produceSeconds), trades_per_second: Math.round(TRADES / produceSeconds) },
    ratio_pipeline_to_baseline: round(pipelineRate / baselineRate),
  };
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  fs.writeFileSync(path.join(here, 'results', 'ingest.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

await main();
