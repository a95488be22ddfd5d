/**
 * Embedded adapter of the event-log port: a durable in-process stand-in for Kafka with topics,
 * keyed partitions, consumer groups and committed offsets, all in one directory:
 *
 *   <directory>/topics/<topic>/meta.json        {name, partitions}
 *   <directory>/topics/<topic>/<partition>.log  framed records (record-codec.ts)
 *   <directory>/groups/<groupId>.json           committed offsets (offset-store.ts)
 *   <directory>/schemas/<fingerprint>.avsc      writer schemas of Avro topics (schema-store.ts)
 *
 * Guarantees: `produce` resolves after the records are fsynced, so they survive kill -9 and power
 * loss; offsets are committed after the batch handler resolves (at-least-once); opening repairs a
 * torn tail left by a crash (and only a tail: damage followed by valid records is kept or refused,
 * see partition-file.ts); a failed append (disk full) is rolled back before the next one. Topics given a schema resolve schema evolution like Kafka with a
 * registry: consumers see every value in the current schema, whatever schema wrote it.
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
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConsumerOptions, EventLog, OutgoingMessage, PartitionPosition, RunningConsumer, TopicSpec } from '../ports/event-log.js';
import { fsyncDirectory } from './atomic-file.js';
import { ConsumerLoop, type Assignment } from './consumer-loop.js';
import { OffsetStore } from './offset-store.js';
import type { TruncatedTail } from './partition-file.js';
import { partitionForKey } from './partitioner.js';
import { encodeFrames, type StoredRecord } from './record-codec.js';
import { FileSchemaStore, type TopicSchema } from './schema-store.js';
import { TopicRegistry } from './topic-registry.js';

export { UnknownTopicError } from './topic-registry.js';
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
}

const DEFAULT_POLL_INTERVAL_MS = 200;

export async function openFileEventLog(options: FileEventLogOptions): Promise<EventLog> {
  const fsync = options.fsync ?? true;
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
    onTruncatedTail: options.onTruncatedTail,
    onCorruptRecord: options.onCorruptRecord,
  });
  try {
    await topics.loadAll();
  } catch (error) {
    await topics.close();
    throw error;
  }
  return new FileEventLog(topics, schemas, new OffsetStore(groupsDirectory, { fsync }), options.clock ?? Date.now, pollIntervalMs);
}

class FileEventLog implements EventLog {
  /** Emits the topic name after records of that topic became readable. */
  private readonly appended = new EventEmitter().setMaxListeners(0);
  private readonly runningGroups = new Map<string, RunningConsumer>();
  private closing: Promise<void> | null = null;

  constructor(
    private readonly topics: TopicRegistry,
    private readonly schemas: FileSchemaStore,
    private readonly offsets: OffsetStore,
    private readonly clock: () => number,
    private readonly pollIntervalMs: number,
  ) {}

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
        return {
          topic: topicName,
          partition,
          endOffset: file.endOffset,
          committedOffset: committed.get(topicName, partition) ?? 0,
        };
      }),
    );
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
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
        const startOffset = options.fromBeginning === false ? file.endOffset : 0;
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
