/**
 * The ClickHouse sink (a processor, services/processors/processor.ts): a partition batch decoded with
 * the stream's schema -> for each
 * projection of that stream (services/read-models/registry.ts): drop rows already stored where the
 * projection says so -> insert with a deterministic dedup token -> the projection's after-insert
 * effects (retractions) -> (the log commits the offsets after this resolves).
 * Failures, by kind (services/analytics/store-errors.ts):
 * - undecodable messages, and events a projection cannot map, are dead-lettered with their coordinates;
 * - an outage (ClickHouse down, timeouts) rejects the batch so it is retried, never dead-lettered;
 * - a batch the store keeps refusing for its data (`data` errors, `poisonAfterFailures` times in a
 *   row) is split in halves until the refused records are found: those are dead-lettered (and
 *   counted as poison), the rest inserted, each part with its own deterministic token so a retry of
 *   the split adds nothing twice. One bad record no longer stalls its partition. When every record
 *   is refused on its own the cause is not the records (a schema drift): the batch keeps retrying.
 */
import type { Logger } from '../logger.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { EventLog, LogMessage } from '../ports/event-log.js';
import {
  defineProcessor,
  type ProcessorBatch,
  type ProcessorContext,
  type ProcessorRecord,
  runProcessor,
} from '../processors/processor.js';
import type { LogPosition, Projection, Row } from '../read-models/read-model.js';
import { ALL_PROJECTIONS } from '../read-models/registry.js';
import { storeErrorKind } from '../analytics/store-errors.js';
import type { Family } from '../shared/metric-family.js';

export const SINK_GROUP_ID = 'tapeline-sink-clickhouse';

/** Projections the sink writes row by row. */
const SINK_PROJECTIONS: readonly Projection[] = ALL_PROJECTIONS.filter((projection) => !projection.apply);

/**
 * Projections with state of their own (the position ledger) consume the same topics in a group of
 * their own, so their work never delays the tables the sink writes, and each keeps its own offsets.
 */
export const STATEFUL_PROJECTIONS: readonly Projection[] = ALL_PROJECTIONS.filter((projection) => projection.apply);

export const LEDGER_GROUP_ID = 'tapeline-position-ledger';

export interface SinkStats {
  batches: number;
  /** Rows inserted per table. */
  inserted: Record<string, number>;
  /** Events not inserted because their rows were already stored, per table. */
  already_stored: Record<string, number>;
  /** Of those, the events stored from the same log position, whose views' rows were rebuilt (Projection.unseen), per table. */
  replayed: Record<string, number>;
  /** Every record sent to the dead-letter topic (undecodable, unmappable, refused by the store). */
  dead_lettered: number;
  /** Records the store refused for their data, found by splitting a failing batch. */
  poison_records: number;
  /** Failed batch attempts (outages and refusals alike). */
  failed_attempts: number;
}

export interface SinkOptions {
  /** The processor's name (metrics label, dead letters' stage): the position ledger runs the same code as `ledger`. */
  name?: 'sink' | 'ledger';
  groupId?: string;
  projections?: readonly Projection[];
  /** Consecutive data refusals of one batch before it is split to find the refused records (default 5). */
  poisonAfterFailures?: number;
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

export async function startSink(log: EventLog, store: AnalyticsStore, logger: Logger, options: SinkOptions = {}): Promise<SinkService> {
  const projections = options.projections ?? SINK_PROJECTIONS;
  const poisonAfter = options.poisonAfterFailures ?? 5;
  const stats: SinkStats = {
    batches: 0,
    inserted: {},
    already_stored: {},
    replayed: {},
    dead_lettered: 0,
    poison_records: 0,
    failed_attempts: 0,
  };
  const byTopic = projectionsByTopic(projections);
  /** Consecutive data refusals per batch (topic/partition/first offset); one entry per stuck partition at most. */
  const refusals = new Map<string, number>();

  const insertProjection = async (projection: Projection, batch: ProcessorBatch, context: ProcessorContext) => {
    const events = batch.records;
    const deadLetter = async (entries: Array<{ message: LogMessage; reason: string }>) => {
      await context.deadLetter(entries);
      stats.dead_lettered += entries.length;
    };
    const accepted = projection.accepts ? events.filter((decoded) => projection.accepts?.(decoded.event)) : events;
    const { fresh, replayed } = projection.unseen ? await unseenOf(projection, store, accepted) : { fresh: accepted, replayed: [] };
    if (projection.apply) {
      // A projection with state of its own writes its table itself (idempotent across redelivery).
      const written = await projection.apply(
        store,
        fresh.map((decoded) => decoded.event),
        { dedupToken: `${batch.topic}-${batch.partition}-${batch.firstOffset}-${batch.lastOffset}`, logger, signal: context.signal },
      );
      stats.inserted[projection.table] = (stats.inserted[projection.table] ?? 0) + written;
      return;
    }
    const rows: Array<{ row: Row; source: Decoded }> = [];
    const unmappable: Array<{ message: LogMessage; reason: string }> = [];
    for (const decoded of fresh) {
      try {
        rows.push({ row: projection.row(decoded.event, positionOf(decoded.message)), source: decoded });
      } catch (error) {
        unmappable.push({ message: decoded.message, reason: `cannot map to ${projection.table}: ${(error as Error).message}` });
      }
    }
    if (unmappable.length > 0) await deadLetter(unmappable);
    // The token is per table: ClickHouse deduplicates inserts into the same table only.
    const token = `${batch.topic}-${batch.partition}-${batch.firstOffset}-${batch.lastOffset}`;
    const batchKey = `${batch.topic}/${batch.partition}/${batch.firstOffset}`;
    try {
      await store.insert(
        projection.table,
        rows.map((r) => r.row),
        { dedupToken: token },
      );
    } catch (error) {
      if (storeErrorKind(error) !== 'data') throw error;
      const failures = (refusals.get(batchKey) ?? 0) + 1;
      refusals.set(batchKey, failures);
      if (failures < poisonAfter) throw error;
      const refused = await isolateRefused(
        store,
        projection.table,
        rows.map((r) => r.row),
        token,
      );
      if (refused.length === rows.length && rows.length > 1) throw error;
      const poison = refused.map(({ index, error: cause }) => ({
        message: rows[index]!.source.message,
        reason: `refused by ${projection.table}: ${(cause as Error).message.slice(0, 500)}`,
      }));
      await deadLetter(poison);
      stats.poison_records += poison.length;
      logger.warn(
        {
          topic: batch.topic,
          partition: batch.partition,
          offsets: poison.map((p) => `${p.message.topic}/${p.message.partition}/${p.message.offset}`),
          table: projection.table,
        },
        'poison records dead-lettered; the rest of the batch is inserted',
      );
      const kept = rows.length - refused.length;
      await projection.afterInsert?.(
        store,
        events.map((decoded) => decoded.event),
        replayed,
      );
      stats.inserted[projection.table] = (stats.inserted[projection.table] ?? 0) + kept;
      stats.already_stored[projection.table] = (stats.already_stored[projection.table] ?? 0) + accepted.length - fresh.length;
      if (projection.unseen) stats.replayed[projection.table] = (stats.replayed[projection.table] ?? 0) + replayed.length;
      return;
    }
    await projection.afterInsert?.(
      store,
      events.map((decoded) => decoded.event),
      replayed,
    );
    stats.inserted[projection.table] = (stats.inserted[projection.table] ?? 0) + rows.length;
    stats.already_stored[projection.table] = (stats.already_stored[projection.table] ?? 0) + accepted.length - fresh.length;
    if (projection.unseen) stats.replayed[projection.table] = (stats.replayed[projection.table] ?? 0) + replayed.length;
  };

  const processor = await runProcessor(
    log,
    defineProcessor({
      name: options.name ?? 'sink',
      group: options.groupId ?? SINK_GROUP_ID,
      streams: [...byTopic.values()].map((targets) => targets[0]!.stream),
      maxBatchSize: 5_000,
      async handle(batch, context) {
        stats.dead_lettered += batch.deadLettered;
        for (const projection of byTopic.get(batch.topic) ?? []) {
          // Stopping: the rest of the batch waits for the next start (its inserts so far are deduplicated then).
          context.signal.throwIfAborted();
          await insertProjection(projection, batch, context);
        }
        refusals.delete(`${batch.topic}/${batch.partition}/${batch.firstOffset}`);
        stats.batches += 1;
      },
      onError: () => {
        stats.failed_attempts += 1;
      },
    }),
    logger,
  );
  return { stats, stop: () => processor.stop() };
}

/**
 * Inserts `rows` in halves, recursively, each part under `<token>:<first>-<last>` (deterministic, so
 * a retried split adds nothing twice); returns the rows refused on their own. A failure that is not
 * about the data (an outage) stops the search and rejects, so the batch is retried as a whole later.
 */
async function isolateRefused(
  store: AnalyticsStore,
  table: string,
  rows: Row[],
  token: string,
): Promise<Array<{ index: number; error: unknown }>> {
  const refused: Array<{ index: number; error: unknown }> = [];
  const attempt = async (first: number, last: number): Promise<void> => {
    try {
      await store.insert(table, rows.slice(first, last + 1), { dedupToken: `${token}:${first}-${last}` });
    } catch (error) {
      if (storeErrorKind(error) !== 'data') throw error;
      if (first === last) {
        refused.push({ index: first, error });
        return;
      }
      const middle = Math.floor((first + last) / 2);
      await attempt(first, middle);
      await attempt(middle + 1, last);
    }
  };
  if (rows.length === 1) refused.push({ index: 0, error: new Error('refused on its own') });
  else if (rows.length > 1) {
    const middle = Math.floor((rows.length - 1) / 2);
    await attempt(0, middle);
    await attempt(middle + 1, rows.length - 1);
  }
  return refused;
}

type Decoded = ProcessorRecord<unknown>;

/** `unseen` splits events; the messages the fresh ones came from are kept alongside by identity. */
async function unseenOf(
  projection: Projection,
  store: AnalyticsStore,
  events: Decoded[],
): Promise<{ fresh: Decoded[]; replayed: unknown[] }> {
  const byEvent = new Map(events.map((decoded) => [decoded.event, decoded]));
  const { fresh, replayed } = await projection.unseen!(
    store,
    events.map((decoded) => ({ event: decoded.event, at: positionOf(decoded.message) })),
  );
  return { fresh: fresh.map((event) => byEvent.get(event)!), replayed };
}

function positionOf(message: LogMessage): LogPosition {
  return { partition: message.partition, offset: message.offset };
}

/** The sink's figures for /metrics. */
export function sinkMetrics(stats: SinkStats): Family[] {
  return [
    {
      name: 'tapeline_sink_rows_inserted_total',
      help: 'Rows the sink inserted, per table.',
      type: 'counter',
      samples: Object.entries(stats.inserted).map(([table, value]) => ({ labels: { table }, value })),
    },
    {
      name: 'tapeline_sink_replayed_total',
      help: 'Records read again whose rows were stored from the same log position (an insert that reached its table and not all of its views), per table that keeps log positions; the views rows they feed were rebuilt.',
      type: 'counter',
      samples: Object.entries(stats.replayed).map(([table, value]) => ({ labels: { table }, value })),
    },
    {
      name: 'tapeline_sink_dead_lettered_total',
      help: 'Records the sink sent to the dead-letter topic (undecodable, unmappable or refused).',
      type: 'counter',
      samples: [{ labels: {}, value: stats.dead_lettered }],
    },
    {
      name: 'tapeline_sink_poison_records_total',
      help: 'Records the analytics store refused for their data, isolated from their batch and dead-lettered.',
      type: 'counter',
      samples: [{ labels: {}, value: stats.poison_records }],
    },
    {
      name: 'tapeline_sink_failed_attempts_total',
      help: 'Batch attempts that failed and were retried (outages included).',
      type: 'counter',
      samples: [{ labels: {}, value: stats.failed_attempts }],
    },
  ];
}

/** Starts the stateful projections' consumer (the position ledger). */
export function startStatefulProjections(
  log: EventLog,
  store: AnalyticsStore,
  logger: Logger,
  groupId = LEDGER_GROUP_ID,
): Promise<SinkService> {
  return startSink(log, store, logger, { name: 'ledger', groupId, projections: STATEFUL_PROJECTIONS });
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
