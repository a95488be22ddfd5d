/**
 * A Kafka -> sink -> ClickHouse pipeline for fault tests: Avro topics under a unique namespace on
 * the shared broker, a ClickHouse HTTP harness (chDB-backed) with a unique database, and checks
 * that compare what ClickHouse holds with the source trades exactly.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openHttpStore } from '../../services/analytics/clickhouse-store.js';
import { migrate } from '../../services/analytics/migrate.js';
import { openKafkaEventLog } from '../../services/eventlog/kafka/kafka-event-log.js';
import { allTopicSpecs, topicSchemas } from '../../services/read-models/registry.js';
import { EventPublisher } from '../../services/events/publisher.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import type { EventLog } from '../../services/ports/event-log.js';
import type { TradeExecuted } from '../../services/events/types.js';

import { startClickHouseHttpHarness, type ClickHouseHttpHarness } from '../support/clickhouse-http-harness.js';
import { engineAddresses, uniqueName } from './engines.js';

export function openPipelineLog(namespace: string, brokers = engineAddresses().kafkaBrokers): Promise<EventLog> {
  return openKafkaEventLog({
    brokers: [brokers],
    schemaRegistryUrl: engineAddresses().schemaRegistryUrl,
    schemas: topicSchemas(),
    namespace,
    sessionTimeoutMs: 6_000,
    onLog: process.env.TAPELINE_TEST_DEBUG
      ? (level, message, extra) => console.error(`[kafka ${level}] ${message} ${JSON.stringify(extra)}`)
      : undefined,
  });
}

export interface PipelineFixture {
  namespace: string;
  harness: ClickHouseHttpHarness;
  database: string;
  openStore(): Promise<AnalyticsStore>;
  cleanup(): Promise<void>;
}

export async function pipelineFixture(): Promise<PipelineFixture> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-pipeline-'));
  const harness = await startClickHouseHttpHarness(dir);
  const database = uniqueName('faults');
  const first = await openHttpStore({ url: harness.url, database });
  await migrate(first);
  await first.close();
  return {
    namespace: `${uniqueName('ns')}.`,
    harness,
    database,
    openStore: () => openHttpStore({ url: harness.url, database }),
    async cleanup() {
      await harness.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Publishes trades in batches through the production publisher, retrying a batch until it is acknowledged. */
export async function publishAll(
  log: EventLog,
  trades: TradeExecuted[],
  batchSize = 250,
  onBatch?: (index: number) => Promise<void>,
): Promise<number> {
  const publisher = new EventPublisher(log);
  let retries = 0;
  for (let i = 0; i < trades.length; i += batchSize) {
    for (;;) {
      try {
        await publisher.publish('trades', trades.slice(i, i + batchSize));
        break;
      } catch {
        // At-least-once producer: an unacknowledged batch is sent again (maybe duplicating it on the log).
        retries++;
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    }
    await onBatch?.(i / batchSize);
  }
  return retries;
}

export interface StoredTotals {
  rows: number;
  distinct: number;
  candleTrades: number;
  /** Volume per 5-minute candle, rounded to micro-USDC, keyed market|bucket. */
  candleVolumes: Map<string, number>;
}

export async function storedTotals(store: AnalyticsStore): Promise<StoredTotals> {
  const [counts] = await store.query<{ rows: number; distinct: number }>(
    'SELECT count() AS rows, uniqExact(trade_id) AS distinct FROM trades',
  );
  const candles = await store.query<{ market_id: string; bucket: string; volume: number; n: number }>(
    'SELECT market_id, toString(bucket) AS bucket, sum(volume_usdc) AS volume, sum(trade_count) AS n FROM candles_5m GROUP BY market_id, bucket',
  );
  return {
    rows: Number(counts!.rows),
    distinct: Number(counts!.distinct),
    candleTrades: candles.reduce((sum, c) => sum + Number(c.n), 0),
    candleVolumes: new Map(candles.map((c) => [`${c.market_id}|${c.bucket}`, Math.round(Number(c.volume) * 1e6)])),
  };
}

/** The same totals computed from the source trades. */
export function sourceTotals(trades: TradeExecuted[]): StoredTotals {
  const volumes = new Map<string, number>();
  for (const t of trades) {
    const bucketMs = Math.floor(t.timestamp_ms / 300_000) * 300_000;
    const bucket = new Date(bucketMs)
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d{3}Z$/, '');
    const key = `${t.market_id}|${bucket}`;
    volumes.set(key, (volumes.get(key) ?? 0) + t.size_usdc);
  }
  for (const [key, value] of volumes) volumes.set(key, Math.round(value * 1e6));
  return { rows: trades.length, distinct: trades.length, candleTrades: trades.length, candleVolumes: volumes };
}

export async function waitUntil(description: string, condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export { allTopicSpecs };
