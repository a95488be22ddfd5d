/**
 * The ClickHouse sink: consume a partition batch -> decode with the stream's schema -> for each
 * projection of that stream (services/read-models/registry.ts): drop rows already stored where the
 * projection says so -> insert with a deterministic dedup token -> the projection's after-insert
 * effects (retractions) -> (the log commits the offsets after this resolves). Undecodable messages are dead-lettered with their coordinates; an insert failure
 * (ClickHouse down) rejects the batch so it is retried, never dead-lettered.
 */
import type { DeadLetter } from '../events/dead-letters.js';
import { EventPublisher } from '../events/publisher.js';
import type { Stream } from '../events/stream.js';
import type { Logger } from '../logger.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { type EventLog, type LogMessage, type MessageBatch, type RunningConsumer, UNDECODABLE_HEADER } from '../ports/event-log.js';
import type { Projection } from '../read-models/read-model.js';
import { ALL_PROJECTIONS } from '../read-models/registry.js';

export const SINK_GROUP_ID = 'tapeline-sink-clickhouse';

/** Projections the sink writes row by row. */
export const SINK_PROJECTIONS: readonly Projection[] = ALL_PROJECTIONS.filter((projection) => !projection.apply);

/**
 * Projections with state of their own (the position ledger) consume the same topics in a group of
 * their own, so their work never delays the tables the sink writes, and each keeps its own offsets.
 */
export const STATEFUL_PROJECTIONS: readonly Projection[] = ALL_PROJECTIONS.filter((projection) => projection.apply);

export const LEDGER_GROUP_ID = 'tapeline-position-ledger';

/** Starts the stateful projections' consumer (the position ledger). */
export function startStatefulProjections(
  log: EventLog,
  store: AnalyticsStore,
  logger: Logger,
  groupId = LEDGER_GROUP_ID,
): Promise<SinkService> {
  return startSink(log, store, logger, groupId, STATEFUL_PROJECTIONS);
}

export interface SinkStats {
  batches: number;
  /** Rows inserted per table. */
  inserted: Record<string, number>;
  /** Events not inserted because their rows were already stored, per table. */
  already_stored: Record<string, number>;
  dead_lettered: number;
}

export interface SinkService {
  readonly stats: SinkStats;
  stop(): Promise<void>;
}

/** The projections of each topic the sink writes. */
function projectionsByTopic(projections: readonly Projection[]): Map<string, Projection[]> {
  const byTopic = new Map<string, Projection[]>();
  for (const projection of projections) {
    const list = byTopic.get(projection.stream.topic) ?? [];
    list.push(projection);
    byTopic.set(projection.stream.topic, list);
  }
  return byTopic;
}

export async function startSink(
  log: EventLog,
  store: AnalyticsStore,
  logger: Logger,
  groupId = SINK_GROUP_ID,
  projections: readonly Projection[] = SINK_PROJECTIONS,
): Promise<SinkService> {
  const stats: SinkStats = { batches: 0, inserted: {}, already_stored: {}, dead_lettered: 0 };
  const publisher = new EventPublisher(log);
  const byTopic = projectionsByTopic(projections);
  const handleBatch = async (batch: MessageBatch) => {
    const targets = byTopic.get(batch.topic) ?? [];
    const stream = targets[0]?.stream;
    if (stream) {
      const { events, deadLetters } = decodeAll(stream, batch.messages);
      await publisher.deadLetter(deadLetters);
      stats.dead_lettered += deadLetters.length;
      for (const projection of targets) {
        const accepted = projection.accepts ? events.filter((event) => projection.accepts?.(event)) : events;
        const fresh = projection.unseen ? await projection.unseen(store, accepted) : accepted;
        // The token is per table: ClickHouse deduplicates inserts into the same table only.
        const dedupToken = `${batch.topic}-${batch.partition}-${batch.firstOffset}-${batch.lastOffset}`;
        if (projection.apply) await projection.apply(store, fresh, dedupToken);
        else
          await store.insert(
            projection.table,
            fresh.map((event) => projection.row(event)),
            { dedupToken },
          );
        await projection.afterInsert?.(store, events);
        stats.inserted[projection.table] = (stats.inserted[projection.table] ?? 0) + fresh.length;
        stats.already_stored[projection.table] = (stats.already_stored[projection.table] ?? 0) + accepted.length - fresh.length;
      }
    }
    stats.batches += 1;
  };
  const consumer: RunningConsumer = await log.runConsumer({
    groupId,
    topics: [...byTopic.keys()],
    maxBatchSize: 5_000,
    handleBatch,
    onError: (error, batch) =>
      logger.warn({ err: error, topic: batch.topic, partition: batch.partition, offset: batch.firstOffset }, 'sink batch failed; retrying'),
  });
  return { stats, stop: () => consumer.stop() };
}

function decodeAll(stream: Stream, messages: LogMessage[]) {
  const events: unknown[] = [];
  const deadLetters: DeadLetter[] = [];
  for (const message of messages) {
    try {
      // The adapter flags values it could not bring into the current schema (wire format, unknown writer schema).
      const undecodable = message.headers[UNDECODABLE_HEADER];
      if (undecodable !== undefined) throw new Error(undecodable);
      events.push(stream.codec.decode(message.value));
    } catch (error) {
      deadLetters.push({
        stage: 'sink',
        source: message.headers.source ?? 'unknown',
        origin: `${message.topic}/${message.partition}/${message.offset}`,
        reason: `undecodable ${stream.name} event: ${(error as Error).message}`,
        raw: message.value.toString('base64'),
        at_ms: Date.now(),
      });
    }
  }
  return { events, deadLetters };
}

/** Every topic the sink consumes. */
export function sinkTopics(projections: readonly Projection[] = SINK_PROJECTIONS): string[] {
  return [...projectionsByTopic(projections).keys()];
}

/** Messages on the log not yet written by the sink, per topic. */
export async function sinkLag(
  log: EventLog,
  topics: readonly string[] = sinkTopics(),
  groupId = SINK_GROUP_ID,
): Promise<Record<string, number>> {
  const lag: Record<string, number> = {};
  for (const topic of topics) {
    const positions = await log.positions(groupId, topic);
    lag[topic] = positions.reduce((sum, p) => sum + (p.endOffset - p.committedOffset), 0);
  }
  return lag;
}
