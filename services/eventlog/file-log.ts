/**
 * Embedded adapter of the event-log port: a durable in-process stand-in for Kafka with topics,
 * keyed partitions, consumer groups and committed offsets, all in one directory:
 *
 *   <directory>/topics/<topic>/meta.json        {name, partitions}
 *   <directory>/topics/<topic>/<partition>.log  framed records (record-codec.ts), the first segment;
 *   <directory>/topics/<topic>/<partition>.<base>.log  later segments (partition-log.ts)
 *   <directory>/groups/<groupId>.json           committed offsets (offset-store.ts)
 *   <directory>/schemas/<fingerprint>.avsc      writer schemas of Avro topics (schema-store.ts)
 *
 * Guarantees: `produce` resolves after the records are fsynced, so they survive kill -9 and power
 * loss; offsets are committed after the batch handler resolves (at-least-once); opening repairs a
 * torn tail left by a crash (and only a tail: damage followed by valid records is kept or refused,
 * see partition-file.ts); a failed append (disk full) is rolled back before the next one. Topics given a schema resolve schema evolution like Kafka with a
 * registry: consumers see every value in the current schema, whatever schema wrote it.
 *
 * Retention (retention.ts) deletes whole segments past `retentionMs` or over `retentionBytes` per
 * partition, checked every `retentionCheckMs`, but only those every consumer group that committed
 * on the partition has read, unless the partition is over `hardCapBytes`; a group then finds its
 * position gone (OffsetOutOfRangeError, reported through onError) and goes on from the first record
 * still held. A new group reading from the beginning starts at the first record held.
 *
 * Limits (documented differences from Kafka):
 * - one consumer-group member per process: a second runConsumer with a group already running in
 *   this log is rejected (there is no rebalancing). Running the same group in two processes at
 *   once is not detected and not supported.
 * - other processes may produce into and consume from the same directory (their appends are
 *   picked up every pollIntervalMs), but none may be appending while a process opens the log,
 *   because opening truncates what looks like a torn tail.
 * - a consumer with fromBeginning: false and no committed offset starts at the log end at start
 *   time, and (as in Kafka) that position is not committed until it handles a batch.
 */
import { getOrInsert } from '../shared/collections.js';
import { EventEmitter } from 'node:events';
import { mkdir, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  ConsumerOptions,
  EventLog,
  EventLogStorage,
  LogMessage,
  OutgoingMessage,
  PartitionOffsets,
  PartitionPosition,
  RunningConsumer,
  TopicSpec,
} from '../ports/event-log.js';
import { fsyncDirectory } from './atomic-file.js';
import { ConsumerLoop, type Assignment } from './consumer-loop.js';
import { OffsetStore } from './offset-store.js';
import type { TruncatedTail } from './partition-file.js';
import { lastWrittenMs } from './partition-log.js';
import { partitionForKey } from './partitioner.js';
import { type RetentionPolicy, segmentsToDelete } from './retention.js';
import { encodeFrames, type StoredRecord } from './record-codec.js';
import { FileSchemaStore, type TopicSchema } from './schema-store.js';
import { TopicRegistry } from './topic-registry.js';
export { OffsetOutOfRangeError } from './partition-log.js';
export type { TruncatedTail } from './partition-file.js';

export interface FileEventLogOptions {
  directory: string;
  /** Timestamp for messages produced without one. Default Date.now. */
  clock?: () => number;
  /** How often consumers look for records appended by other processes. Default 200 ms. */
  pollIntervalMs?: number;
  /** Default true. false skips every fsync: fast, but a machine crash can lose acknowledged records. */
  fsync?: boolean;
  /** Told when opening a partition cut off a torn tail (for logging). */
  onTruncatedTail?: (tail: TruncatedTail) => void;
  /** Told about a damaged record kept at its offset (read back flagged undecodable, then dead-lettered). */
  onCorruptRecord?: (record: { path: string; offset: number; position: number }) => void;
  /** Topics whose values are Avro of these (current) schemas. */
  schemas?: readonly TopicSchema[];
  /** A partition's segment this large (bytes) takes no more appends. Default 64 MiB. */
  segmentBytes?: number;
  /** Default: 7 days, no size bound, no hard cap (Kafka's defaults, plus the committed-offset rule). */
  retention?: Partial<RetentionPolicy>;
  /** How often retention runs (0: only when enforceRetention is called). Default 60 s. */
  retentionCheckMs?: number;
  /** Told when the hard cap deleted records a group had not read. */
  onRecordsLost?: (loss: { topic: string; partition: number; group: string; records: number }) => void;
}

const DEFAULT_POLL_INTERVAL_MS = 200;
const DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;
const DEFAULT_RETENTION_MS = 7 * 24 * 3_600_000;
const DEFAULT_RETENTION_CHECK_MS = 60_000;

/** The file log's own operations beyond the port. */
export interface FileEventLog extends EventLog {
  /** Runs retention once over every partition (also run every retentionCheckMs). */
  enforceRetention(): Promise<void>;
  onAppended(listener: (topic: string) => void): () => void;
  storage(): Promise<EventLogStorage>;
}

export async function openFileEventLog(options: FileEventLogOptions): Promise<FileEventLog> {
  const fsync = options.fsync ?? true;
  const segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
  if (!(Number.isSafeInteger(segmentBytes) && segmentBytes > 0))
    throw new RangeError(`segmentBytes must be a positive integer, got ${segmentBytes}`);
  const retention: RetentionPolicy = {
    retentionMs: options.retention?.retentionMs === undefined ? DEFAULT_RETENTION_MS : options.retention.retentionMs,
    retentionBytes: options.retention?.retentionBytes ?? null,
    hardCapBytes: options.retention?.hardCapBytes ?? null,
  };
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  if (!(pollIntervalMs > 0)) throw new RangeError(`pollIntervalMs must be positive, got ${pollIntervalMs}`);
  const topicsDirectory = join(options.directory, 'topics');
  const groupsDirectory = join(options.directory, 'groups');
  await mkdir(topicsDirectory, { recursive: true });
  await mkdir(groupsDirectory, { recursive: true });
  if (fsync) await fsyncDirectory(options.directory);
  const schemas = await FileSchemaStore.open(join(options.directory, 'schemas'), options.schemas ?? [], { fsync });
  const topics = new TopicRegistry(topicsDirectory, {
    fsync,
    segmentBytes,
    onTruncatedTail: options.onTruncatedTail,
    onCorruptRecord: options.onCorruptRecord,
  });
  try {
    await topics.loadAll();
  } catch (error) {
    await topics.close();
    throw error;
  }
  const log = new FileLog(topics, schemas, new OffsetStore(groupsDirectory, { fsync }), options.clock ?? Date.now, pollIntervalMs, {
    directory: options.directory,
    segmentBytes,
    policy: retention,
    onRecordsLost: options.onRecordsLost,
  });
  const checkMs = options.retentionCheckMs ?? DEFAULT_RETENTION_CHECK_MS;
  if (checkMs > 0) log.scheduleRetention(checkMs);
  return log;
}

interface RetentionSettings {
  directory: string;
  segmentBytes: number;
  policy: RetentionPolicy;
  onRecordsLost?: FileEventLogOptions['onRecordsLost'];
}

class FileLog implements FileEventLog {
  /** Emits the topic name after records of that topic became readable. */
  private readonly appended = new EventEmitter().setMaxListeners(0);
  private readonly runningGroups = new Map<string, RunningConsumer>();
  private closing: Promise<void> | null = null;
  private retentionTimer: NodeJS.Timeout | undefined;
  /** One retention pass at a time. */
  private retentionRun: Promise<void> | null = null;
  private readonly retentionFigures = { deletedSegments: 0, deletedBytes: 0, lostRecordsByGroup: {} as Record<string, number> };

  constructor(
    private readonly topics: TopicRegistry,
    private readonly schemas: FileSchemaStore,
    private readonly offsets: OffsetStore,
    private readonly clock: () => number,
    private readonly pollIntervalMs: number,
    private readonly retention: RetentionSettings,
  ) {}

  scheduleRetention(everyMs: number): void {
    this.retentionTimer = setInterval(() => {
      // A failed pass (a file busy, a disk error) is tried again at the next tick.
      if (!this.closing) this.enforceRetention().catch(() => undefined);
    }, everyMs);
    this.retentionTimer.unref();
  }

  enforceRetention(): Promise<void> {
    this.assertOpen();
    this.retentionRun ??= this.runRetention().finally(() => {
      this.retentionRun = null;
    });
    return this.retentionRun;
  }

  async storage(): Promise<EventLogStorage> {
    this.assertOpen();
    const topics = this.topics.list().map((topic) => ({
      topic: topic.name,
      partitions: topic.partitions.length,
      bytes: topic.partitions.reduce((sum, p) => sum + p.sizeBytes, 0),
      segments: topic.partitions.reduce((sum, p) => sum + p.segmentList.length, 0),
      startOffset: Math.min(...topic.partitions.map((p) => p.startOffset)),
      endOffset: Math.max(...topic.partitions.map((p) => p.endOffset)),
    }));
    const fs = await statfs(this.retention.directory);
    return {
      bytes: topics.reduce((sum, t) => sum + t.bytes, 0),
      freeBytes: Number(fs.bavail) * Number(fs.bsize),
      segmentBytes: this.retention.segmentBytes,
      ...this.retention.policy,
      deletedSegments: this.retentionFigures.deletedSegments,
      deletedBytes: this.retentionFigures.deletedBytes,
      lostRecordsByGroup: { ...this.retentionFigures.lostRecordsByGroup },
      topics,
    };
  }

  private async runRetention(): Promise<void> {
    const groups = await this.offsets.loadAll();
    const now = this.clock();
    for (const topic of this.topics.list()) {
      for (const [partition, log] of topic.partitions.entries()) {
        await log.refresh();
        const committed = new Map<string, number>();
        for (const group of groups) {
          const next = group.get(topic.name, partition);
          if (next !== undefined) committed.set(group.groupId, next);
        }
        const segments = await Promise.all(
          log.segmentList.map(async (segment, index, all) => ({
            baseOffset: segment.baseOffset,
            endOffset: index + 1 < all.length ? all[index + 1]!.baseOffset : segment.baseOffset + segment.file.endOffset,
            bytes: segment.file.sizeBytes,
            lastWrittenMs: await lastWrittenMs(segment),
          })),
        );
        const decision = segmentsToDelete(segments, this.retention.policy, now, committed);
        if (decision.count === 0) continue;
        const removed = await log.deleteOldest(decision.count);
        this.retentionFigures.deletedSegments += removed.length;
        this.retentionFigures.deletedBytes += segments.slice(0, removed.length).reduce((sum, s) => sum + s.bytes, 0);
        for (const [group, records] of decision.lostByGroup) {
          this.retentionFigures.lostRecordsByGroup[group] = (this.retentionFigures.lostRecordsByGroup[group] ?? 0) + records;
          this.retention.onRecordsLost?.({ topic: topic.name, partition, group, records });
        }
      }
    }
  }

  async createTopics(specs: TopicSpec[]): Promise<void> {
    this.assertOpen();
    for (const spec of specs) await this.topics.create(spec);
  }

  async produce(topicName: string, messages: OutgoingMessage[]): Promise<void> {
    this.assertOpen();
    const topic = await this.topics.require(topicName);
    const recordsByPartition = new Map<number, StoredRecord[]>();
    const schemaHeaders = this.schemas.headersFor(topicName);
    for (const message of messages) {
      const record = this.toStoredRecord(schemaHeaders ? { ...message, headers: { ...message.headers, ...schemaHeaders } } : message);
      const partition = partitionForKey(record.key, topic.partitions.length);
      getOrInsert(recordsByPartition, partition, () => []).push(record);
    }
    // Encode everything first so an invalid message fails the call before anything is written.
    const appends = [...recordsByPartition].map(([partition, records]) => ({
      file: topic.partitions[partition]!,
      frames: encodeFrames(records),
    }));
    // Partitions are independent files (as in Kafka, a failure can leave some of them appended;
    // the producer's retry then duplicates those, which at-least-once consumers tolerate).
    await Promise.all(
      appends.map(async ({ file, frames }) => {
        await file.append(frames);
        this.appended.emit('appended', topicName);
      }),
    );
  }

  async runConsumer(options: ConsumerOptions): Promise<RunningConsumer> {
    this.assertOpen();
    const { groupId } = options;
    if (!groupId) throw new Error('runConsumer: groupId is required');
    if (options.topics.length === 0) throw new Error(`runConsumer(${groupId}): subscribe to at least one topic`);
    if (options.maxBatchSize !== undefined && !(Number.isInteger(options.maxBatchSize) && options.maxBatchSize > 0)) {
      throw new Error(`runConsumer(${groupId}): maxBatchSize must be a positive integer`);
    }
    if (this.runningGroups.has(groupId)) {
      throw new Error(`consumer group "${groupId}" already has a member in this process; stop it first`);
    }
    // Reserve the group before the first await so two concurrent calls cannot both pass the check.
    const reservation: RunningConsumer = { stop: async () => undefined };
    this.runningGroups.set(groupId, reservation);
    try {
      const consumer = await this.startConsumer(options);
      if (this.closing) {
        await consumer.stop();
        throw new Error('event log is closed');
      }
      this.runningGroups.set(groupId, consumer);
      return consumer;
    } catch (error) {
      this.runningGroups.delete(groupId);
      throw error;
    }
  }

  async positions(groupId: string, topicName: string): Promise<PartitionPosition[]> {
    this.assertOpen();
    const topic = await this.topics.require(topicName);
    const committed = await this.offsets.load(groupId);
    return Promise.all(
      topic.partitions.map(async (file, partition) => {
        await file.refresh();
        // What the group would read next: a group that never committed here starts at the first record
        // retention left, and one whose position the hard cap deleted goes on from there too, so
        // neither is counted lag for records that no longer exist.
        const next = committed.get(topicName, partition);
        return {
          topic: topicName,
          partition,
          endOffset: file.endOffset,
          committedOffset: Math.max(next ?? file.startOffset, file.startOffset),
        };
      }),
    );
  }

  async partitionOffsets(topicName: string): Promise<PartitionOffsets[]> {
    this.assertOpen();
    const topic = await this.topics.require(topicName);
    return Promise.all(
      topic.partitions.map(async (file, partition) => {
        await file.refresh();
        return { partition, startOffset: file.startOffset, endOffset: file.endOffset };
      }),
    );
  }

  async read(topicName: string, partition: number, fromOffset: number, maxMessages: number): Promise<LogMessage[]> {
    this.assertOpen();
    if (!(Number.isSafeInteger(fromOffset) && fromOffset >= 0))
      throw new RangeError(`read: fromOffset must be an offset, got ${fromOffset}`);
    if (!(Number.isSafeInteger(maxMessages) && maxMessages > 0))
      throw new RangeError(`read: maxMessages must be positive, got ${maxMessages}`);
    const topic = await this.topics.require(topicName);
    const file = topic.partitions[partition];
    if (!file) throw new RangeError(`read: ${topicName} has no partition ${partition}`);
    // Appends by other processes become visible on refresh; this process's own are indexed already.
    if (fromOffset >= file.endOffset) await file.refresh();
    const records = await file.read(fromOffset, maxMessages);
    return Promise.all(
      records.map((record, index) => this.schemas.toReader({ topic: topicName, partition, offset: fromOffset + index, ...record })),
    );
  }

  onAppended(listener: (topic: string) => void): () => void {
    this.appended.on('appended', listener);
    return () => this.appended.off('appended', listener);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.retentionTimer);
      await this.retentionRun?.catch(() => undefined);
      await Promise.all([...this.runningGroups.values()].map((consumer) => consumer.stop()));
      await this.topics.close();
    })();
    return this.closing;
  }

  private async startConsumer(options: ConsumerOptions): Promise<RunningConsumer> {
    const subscribed = [...new Set(options.topics)];
    const topics = await Promise.all(subscribed.map((name) => this.topics.require(name)));
    const committed = await this.offsets.load(options.groupId);
    const assignments: Assignment[] = [];
    for (const topic of topics) {
      for (const [partition, file] of topic.partitions.entries()) {
        await file.refresh();
        const startOffset = options.fromBeginning === false ? file.endOffset : file.startOffset;
        assignments.push({
          topic: topic.name,
          partition,
          file,
          nextOffset: committed.get(topic.name, partition) ?? startOffset,
        });
      }
    }
    // Values reach the handler in the current schema of their topic.
    const handleBatch = options.handleBatch;
    const toReader = async (batch: Parameters<typeof handleBatch>[0]) =>
      handleBatch({ ...batch, messages: await Promise.all(batch.messages.map((message) => this.schemas.toReader(message))) });
    const loop = new ConsumerLoop({
      options: { ...options, handleBatch: toReader },
      assignments,
      offsets: committed,
      saveOffsets: (offsets) => this.offsets.save(offsets),
      pollIntervalMs: this.pollIntervalMs,
    });
    const onAppended = (topicName: string) => {
      if (subscribed.includes(topicName)) loop.notifyAppended();
    };
    this.appended.on('appended', onAppended);
    let stopping: Promise<void> | null = null;
    return {
      stop: () =>
        (stopping ??= (async () => {
          await loop.stop();
          this.appended.off('appended', onAppended);
          this.runningGroups.delete(options.groupId);
        })()),
    };
  }

  private toStoredRecord(message: OutgoingMessage): StoredRecord {
    if (typeof message.key !== 'string') throw new TypeError('message key must be a string');
    if (!(message.value instanceof Uint8Array)) throw new TypeError('message value must be a Buffer');
    const timestamp = message.timestamp ?? this.clock();
    if (!Number.isFinite(timestamp)) throw new TypeError(`message timestamp must be a finite number, got ${timestamp}`);
    const headers = message.headers ?? {};
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== 'string') throw new TypeError(`header "${name}" must be a string`);
    }
    // Plain Uint8Arrays (e.g. from TextEncoder) are accepted too, wrapped without a copy.
    const raw: Uint8Array = message.value;
    const value = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    return { key: message.key, timestamp, headers, value };
  }

  private assertOpen(): void {
    if (this.closing) throw new Error('event log is closed');
  }
}
