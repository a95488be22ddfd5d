/**
 * One runner for everything that consumes the event log (the sink, the position ledger, lifecycle,
 * signals, copy, sandbox): a processor declares its name, consumer group and streams and handles
 * decoded batches; the runner does the rest the same way for all of them:
 * - decodes each record once, into the stream's current schema;
 * - dead-letters a record the log flagged undecodable (UNDECODABLE_HEADER) or whose value does not
 *   decode (counted per processor, the raw bytes and coordinates kept), so its partition carries on;
 * - batches (the log hands out runs of one partition, at most `maxBatchSize`), and the log commits a
 *   batch's offsets only after `handle` resolves: a failure redelivers the batch (at-least-once);
 * - stops after the batch in flight settles, or gives up (uncommitted) where its handler checks `signal`;
 * - counts records, batches, dead letters and failed attempts, times batches, and reports each
 *   partition's lag (services/processors/processor-metrics.ts).
 */
import type { DeadLetter } from '../events/dead-letters.js';
import { EventPublisher } from '../events/publisher.js';
import type { Stream } from '../events/stream.js';
import type { Logger } from '../logger.js';
import { type EventLog, type LogMessage, type MessageBatch, UNDECODABLE_HEADER } from '../ports/event-log.js';
import { processorInstruments, trackLag } from './processor-metrics.js';

/** A processor's name: the `stage` of its dead letters and the `processor` label of its metrics. */
type ProcessorName = Exclude<DeadLetter['stage'], 'ingest'>;

export interface ProcessorRecord<E> {
  event: E;
  message: LogMessage;
}

/** A run of one partition's records, decoded; the undecodable ones are dead-lettered already. */
export interface ProcessorBatch {
  stream: Stream;
  topic: string;
  partition: number;
  firstOffset: number;
  lastOffset: number;
  /** The decoded records, in log order. */
  records: ProcessorRecord<unknown>[];
  /** Records of this batch the runner dead-lettered (undecodable). */
  deadLettered: number;
}

export interface ProcessorContext {
  /** Dead-letters records the handler cannot use (same policy and counter as undecodable ones). */
  deadLetter(entries: Array<{ message: LogMessage; reason: string }>): Promise<void>;
  /**
   * Aborted when the processor is asked to stop. A handler with several steps may give up between
   * them (throw): the batch is then not committed and comes again on the next start, which every
   * handler already survives (at-least-once), so a stop need not wait for a long batch to finish.
   */
  signal: AbortSignal;
}

export interface ProcessorDefinition {
  name: ProcessorName;
  /** Consumer group: its committed offsets are the processor's checkpoint. */
  group: string;
  /** One stream per topic. */
  streams: readonly Stream[];
  /** Upper bound on records per batch. */
  maxBatchSize: number;
  /** Where a group with no committed offset starts: the log's beginning (default) or its end. */
  fromBeginning?: boolean;
  /** Handles a batch; resolving commits it, rejecting redelivers it. */
  handle(batch: ProcessorBatch, context: ProcessorContext): Promise<void>;
  /** Told about each failed attempt before the batch is retried (the runner logs and counts it). */
  onError?(error: unknown, batch: MessageBatch): void;
}

interface ProcessorStats {
  batches: number;
  records: number;
  dead_lettered: number;
  failed_attempts: number;
}

export interface RunningProcessor {
  readonly stats: ProcessorStats;
  /** Stops after the batch in flight (if any) settles: committed, or given up by its handler on `signal`. */
  stop(): Promise<void>;
}

export function defineProcessor(definition: ProcessorDefinition): ProcessorDefinition {
  const topics = definition.streams.map((stream) => stream.topic);
  if (new Set(topics).size !== topics.length) throw new Error(`processor ${definition.name}: one stream per topic`);
  if (topics.length === 0) throw new Error(`processor ${definition.name}: no streams`);
  return definition;
}

/** The records of `stream` in the batch: none when the batch is of another stream. */
export function recordsOf<E>(batch: ProcessorBatch, stream: Stream<E>): ProcessorRecord<E>[] {
  return batch.stream.topic === stream.topic ? (batch.records as ProcessorRecord<E>[]) : [];
}

/** The events of `stream` in the batch: none when the batch is of another stream. */
export function eventsOf<E>(batch: ProcessorBatch, stream: Stream<E>): E[] {
  return recordsOf(batch, stream).map((record) => record.event);
}

export async function runProcessor(log: EventLog, definition: ProcessorDefinition, logger: Logger): Promise<RunningProcessor> {
  const { name } = definition;
  const streams = new Map(definition.streams.map((stream) => [stream.topic, stream]));
  const publisher = new EventPublisher(log);
  const instruments = processorInstruments();
  const stats: ProcessorStats = { batches: 0, records: 0, dead_lettered: 0, failed_attempts: 0 };

  const deadLetter = async (entries: Array<{ message: LogMessage; reason: string }>) => {
    if (entries.length === 0) return;
    await publisher.deadLetter(entries.map(({ message, reason }) => deadLetterOf(name, message, reason)));
    stats.dead_lettered += entries.length;
    instruments.deadLettered.inc({ processor: name }, entries.length);
  };
  const stopRequested = new AbortController();
  const context: ProcessorContext = { deadLetter, signal: stopRequested.signal };

  const handleBatch = async (batch: MessageBatch) => {
    const stream = streams.get(batch.topic);
    if (!stream) throw new Error(`processor ${name}: no stream for topic ${batch.topic}`);
    const stopTimer = instruments.batchDuration.startTimer({ processor: name });
    const records: ProcessorRecord<unknown>[] = [];
    const undecodable: Array<{ message: LogMessage; reason: string }> = [];
    for (const message of batch.messages) {
      try {
        // The adapter flags values it could not bring into the current schema (wire format, unknown writer schema).
        const flagged = message.headers[UNDECODABLE_HEADER];
        if (flagged !== undefined) throw new Error(flagged);
        records.push({ event: stream.codec.decode(message.value), message });
      } catch (error) {
        undecodable.push({ message, reason: `undecodable ${stream.name} event: ${(error as Error).message}` });
      }
    }
    await deadLetter(undecodable);
    await definition.handle(
      {
        stream,
        topic: batch.topic,
        partition: batch.partition,
        firstOffset: batch.firstOffset,
        lastOffset: batch.lastOffset,
        records,
        deadLettered: undecodable.length,
      },
      context,
    );
    stopTimer();
    stats.batches += 1;
    stats.records += batch.messages.length;
    instruments.batches.inc({ processor: name });
    instruments.records.inc({ processor: name }, batch.messages.length);
  };

  const consumer = await log.runConsumer({
    groupId: definition.group,
    topics: [...streams.keys()],
    maxBatchSize: definition.maxBatchSize,
    fromBeginning: definition.fromBeginning ?? true,
    handleBatch,
    onError: (error, batch) => {
      // A handler that gave up on its batch because of the stop: not a failure, the batch comes again.
      if (stopRequested.signal.aborted && error === stopRequested.signal.reason) return;
      if ((error as Error | null)?.name === 'OffsetOutOfRangeError') {
        // The file log's hard cap removed records this group had not read; it goes on from the log start.
        logger.error(
          { err: error, topic: batch.topic, partition: batch.partition },
          `${name} lost unread records to the event log's hard cap`,
        );
        definition.onError?.(error, batch);
        return;
      }
      stats.failed_attempts += 1;
      instruments.failedAttempts.inc({ processor: name });
      logger.warn(
        { err: error, topic: batch.topic, partition: batch.partition, offset: batch.firstOffset },
        `${name} batch failed; retrying`,
      );
      definition.onError?.(error, batch);
    },
  });
  const untrack = trackLag(name, log, definition.group, [...streams.keys()]);
  let stopping: Promise<void> | null = null;
  return {
    stats,
    stop: () =>
      (stopping ??= (async () => {
        untrack();
        stopRequested.abort();
        await consumer.stop();
      })()),
  };
}

function deadLetterOf(stage: ProcessorName, message: LogMessage, reason: string): DeadLetter {
  return {
    stage,
    source: message.headers.source ?? 'unknown',
    origin: `${message.topic}/${message.partition}/${message.offset}`,
    reason,
    raw: message.value.toString('base64'),
    at_ms: Date.now(),
  };
}
