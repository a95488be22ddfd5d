/**
 * The ClickHouse sink: consume a partition batch -> decode -> drop trades already stored -> insert
 * with a deterministic dedup token -> (the log commits the offsets after this resolves).
 * Undecodable messages are dead-lettered with their coordinates; an insert failure (ClickHouse down)
 * rejects the batch so it is retried, never dead-lettered.
 */
import type { Logger } from '../logger.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { EventLog, LogMessage, MessageBatch, RunningConsumer } from '../ports/event-log.js';
import { decodeEvent, encodeEvent, topicKeyOf, type DeadLetter, type MarketUpserted, type TradeExecuted } from '../shared/events.js';
import { TOPICS, type TopicKey } from '../shared/topics.js';
import { INGESTION_TABLES } from './ingestion-rows.js';
import { WIRE_ERROR_HEADER } from '../eventlog/kafka/kafka-event-log.js';
import { marketRow, tradeRow } from './rows.js';

export const SINK_GROUP_ID = 'tapeline-sink-clickhouse';

export interface SinkStats {
  batches: number;
  inserted_trades: number;
  inserted_markets: number;
  dropped_known_trades: number;
  dead_lettered: number;
  /** Rows written to the Ingestion tables (resolutions, catalog, prices, books, wallets). */
  inserted_other?: number;
}

export interface SinkService {
  readonly stats: SinkStats;
  stop(): Promise<void>;
}

export async function startSink(log: EventLog, store: AnalyticsStore, logger: Logger, groupId = SINK_GROUP_ID): Promise<SinkService> {
  const stats: SinkStats = { batches: 0, inserted_trades: 0, inserted_markets: 0, dropped_known_trades: 0, dead_lettered: 0 };
  const handleBatch = async (batch: MessageBatch) => {
    const dedupToken = `${batch.topic}-${batch.partition}-${batch.firstOffset}-${batch.lastOffset}`;
    const topic = topicKeyOf(batch.topic);
    if (topic === 'trades') {
      const { events, deadLetters } = decodeAll<TradeExecuted>('trades', batch.messages);
      await deadLetter(log, deadLetters);
      const fresh = await dropKnownTrades(store, events);
      await store.insert('trades', fresh.map(tradeRow), { dedupToken });
      stats.inserted_trades += fresh.length;
      stats.dropped_known_trades += events.length - fresh.length;
      stats.dead_lettered += deadLetters.length;
    } else if (topic === 'markets') {
      const { events, deadLetters } = decodeAll<MarketUpserted>('markets', batch.messages);
      await deadLetter(log, deadLetters);
      await store.insert('markets', events.map(marketRow), { dedupToken });
      stats.inserted_markets += events.length;
      stats.dead_lettered += deadLetters.length;
    } else if (topic && INGESTION_TABLES[topic]) {
      // Catalog, resolutions, prices, books, wallets: ReplacingMergeTree on deterministic ids, so a
      // redelivered batch replaces rows instead of doubling them.
      const target = INGESTION_TABLES[topic] as { table: string; row: (event: unknown) => Record<string, unknown> };
      const { events, deadLetters } = decodeAll<unknown>(topic, batch.messages);
      await deadLetter(log, deadLetters);
      await store.insert(target.table, events.map(target.row), { dedupToken });
      stats.inserted_other = (stats.inserted_other ?? 0) + events.length;
      stats.dead_lettered += deadLetters.length;
    }
    stats.batches += 1;
  };
  const consumer: RunningConsumer = await log.runConsumer({
    groupId,
    topics: [TOPICS.markets.name, TOPICS.trades.name, ...ingestionTopicNames()],
    maxBatchSize: 5_000,
    handleBatch,
    onError: (error, batch) =>
      logger.warn({ err: error, topic: batch.topic, partition: batch.partition, offset: batch.firstOffset }, 'sink batch failed; retrying'),
  });
  return { stats, stop: () => consumer.stop() };
}

function ingestionTopicNames(): string[] {
  return (Object.keys(INGESTION_TABLES) as TopicKey[]).map((key) => TOPICS[key].name);
}

function decodeAll<T>(topic: TopicKey, messages: LogMessage[]) {
  const events: T[] = [];
  const deadLetters: DeadLetter[] = [];
  for (const message of messages) {
    try {
      // The Kafka adapter flags values it could not take out of the Confluent wire format.
      const wireError = message.headers[WIRE_ERROR_HEADER];
      if (wireError !== undefined) throw new Error(wireError);
      events.push(decodeEvent(topic, message.value) as T);
    } catch (error) {
      deadLetters.push({
        stage: 'sink',
        source: message.headers.source ?? 'unknown',
        origin: `${message.topic}/${message.partition}/${message.offset}`,
        reason: `undecodable ${topic} event: ${(error as Error).message}`,
        raw: message.value.toString('base64'),
        at_ms: Date.now(),
      });
    }
  }
  return { events, deadLetters };
}

async function deadLetter(log: EventLog, entries: DeadLetter[]): Promise<void> {
  if (entries.length === 0) return;
  await log.produce(
    TOPICS.deadLetters.name,
    entries.map((e) => ({ key: e.origin, value: encodeEvent('deadLetters', e) })),
  );
}

/**
 * The candle views count every row they are handed, so a trade must reach the raw table once.
 * Redelivered batches and overlapping polls both carry trades already stored: drop them by id
 * (the time bounds let ClickHouse prune to the parts that can hold them).
 */
async function dropKnownTrades(store: AnalyticsStore, events: TradeExecuted[]): Promise<TradeExecuted[]> {
  const unique = [...new Map(events.map((e) => [e.event_id, e])).values()];
  if (unique.length === 0) return unique;
  let from = Infinity;
  let to = -Infinity;
  for (const e of unique) {
    from = Math.min(from, e.timestamp_ms);
    to = Math.max(to, e.timestamp_ms);
  }
  const known = await store.query<{ trade_id: string }>(
    `SELECT trade_id FROM trades
      WHERE ts BETWEEN fromUnixTimestamp64Milli({from:Int64}) AND fromUnixTimestamp64Milli({to:Int64})
        AND trade_id IN {ids:Array(String)}`,
    { from, to, ids: unique.map((e) => e.event_id) },
  );
  const knownIds = new Set(known.map((row) => row.trade_id));
  return unique.filter((e) => !knownIds.has(e.event_id));
}
