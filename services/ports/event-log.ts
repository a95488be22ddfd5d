/**
 * Event log port: the Kafka-shaped contract every pipeline stage talks to.
 * Adapters: the embedded durable file log (services/eventlog/file-log) and, with
 * "Real engines", Kafka. Both must pass test/contracts/event-log.contract.ts.
 *
 * Semantics (the same as a Kafka consumer with autoCommit off):
 * - messages with the same key land in the same partition, in produce order;
 * - `produce` resolves only when the messages are durable (they survive kill -9);
 * - a consumer group's offsets are committed only after its batch handler resolves,
 *   so delivery is at-least-once: a crash between handling and commit redelivers the batch.
 */
/**
 * Header an adapter sets on a consumed message whose value it could not bring into the reader's
 * schema (not in the wire format, an unknown writer schema, ...): the value is the raw bytes and the
 * header says why, so the consumer can dead-letter it and move on.
 */
export const UNDECODABLE_HEADER = 'tapeline-undecodable';

export interface TopicSpec {
  name: string;
  partitions: number;
}

export interface OutgoingMessage {
  /** Partitioning key (market id for per-market order). */
  key: string;
  value: Buffer;
  headers?: Record<string, string>;
  /** Milliseconds since epoch; defaults to the log's clock at produce time. */
  timestamp?: number;
}

export interface LogMessage extends Required<Omit<OutgoingMessage, 'headers'>> {
  headers: Record<string, string>;
  topic: string;
  partition: number;
  offset: number;
}

/** A run of consecutive messages from one topic-partition, handed to a consumer at once. */
export interface MessageBatch {
  topic: string;
  partition: number;
  messages: LogMessage[];
  firstOffset: number;
  lastOffset: number;
}

export interface ConsumerOptions {
  groupId: string;
  topics: string[];
  /** Upper bound on messages per batch. */
  maxBatchSize?: number;
  /** Called for every batch; offsets are committed after it resolves. If it rejects, the batch is retried. */
  handleBatch: (batch: MessageBatch) => Promise<void>;
  /** Called when handleBatch rejects, before the retry (for logging and metrics). */
  onError?: (error: unknown, batch: MessageBatch) => void;
  /** Where a group with no committed offset starts. Default 'earliest'. */
  fromBeginning?: boolean;
}

export interface RunningConsumer {
  /** Stops after the batch in flight (if any) settles. */
  stop(): Promise<void>;
}

export interface PartitionPosition {
  topic: string;
  partition: number;
  /** Offset the next produced message will get (the log end). */
  endOffset: number;
  /** Next offset the group will read: its committed offset, or the partition's first retained offset when it has none or retention deleted it. */
  committedOffset: number;
}

/** Disk use of an embedded log and what its retention did (the file log; Kafka's brokers report their own). */
export interface EventLogStorage {
  /** Bytes of every partition's segments. */
  bytes: number;
  /** Free bytes on the file system holding the log. */
  freeBytes: number;
  segmentBytes: number;
  retentionMs: number | null;
  /** Per partition, as Kafka's retention.bytes. */
  retentionBytes: number | null;
  /** Per partition: over it, segments go even if a group has not read them. */
  hardCapBytes: number | null;
  deletedSegments: number;
  deletedBytes: number;
  /** Records the hard cap deleted before the group read them, per consumer group. */
  lostRecordsByGroup: Record<string, number>;
  topics: Array<{ topic: string; partitions: number; bytes: number; segments: number; startOffset: number; endOffset: number }>;
}

/** What a partition holds now: offsets startOffset..endOffset-1 can be read. */
export interface PartitionOffsets {
  partition: number;
  /** The first offset still held (retention deletes from the oldest). */
  startOffset: number;
  /** The offset the next produced message will get. */
  endOffset: number;
}

/**
 * A read below the first offset a partition still holds: retention deleted it. Both adapters throw
 * it from `read`, so a reader holding a position (a stream's cursor) can tell "gone" from "failed".
 */
export class OffsetOutOfRangeError extends Error {
  override readonly name = 'OffsetOutOfRangeError';
  constructor(
    /** The partition, as the adapter names it (a file path, or topic/partition). */
    readonly path: string,
    readonly requestedOffset: number,
    /** The first offset still held; reading can resume there. */
    readonly logStartOffset: number,
  ) {
    super(
      `offset ${requestedOffset} of ${path} is no longer held (retention deleted it); the partition now starts at offset ${logStartOffset}: resync from the source of truth`,
    );
  }
}

export interface EventLog {
  /** Admin step: creates topics that do not exist yet (idempotent). */
  createTopics(topics: TopicSpec[]): Promise<void>;
  produce(topic: string, messages: OutgoingMessage[]): Promise<void>;
  runConsumer(options: ConsumerOptions): Promise<RunningConsumer>;
  /** Per-partition end and committed offsets of a group, for lag and readiness checks. */
  positions(groupId: string, topic: string): Promise<PartitionPosition[]>;
  /** Every partition's first held and end offsets, in partition order (for readers that keep their own positions). */
  partitionOffsets(topic: string): Promise<PartitionOffsets[]>;
  /**
   * Up to `maxMessages` consecutive messages of one partition from `fromOffset`, values in the topic's
   * current schema (as consumers get them), without any consumer group: nothing is committed, and
   * any number of readers may read anywhere. Fewer (or none) when the partition ends sooner; an
   * offset below the partition's start is an OffsetOutOfRangeError.
   */
  read(topic: string, partition: number, fromOffset: number, maxMessages: number): Promise<LogMessage[]>;
  /**
   * Calls `listener` with the topic's name after this process appended to it (optional: the file log,
   * whose producers and readers share the process in `npm start`, has it; readers elsewhere poll
   * `partitionOffsets`). Returns the function that stops it.
   */
  onAppended?(listener: (topic: string) => void): () => void;
  /** Disk use and retention figures, where the adapter keeps the data itself. */
  storage?(): Promise<EventLogStorage>;
  close(): Promise<void>;
}
