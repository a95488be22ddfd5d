/**
 * Kafka adapter of the event-log port, on kafkajs (kept behind the port so a maintained client can
 * replace it). Same semantics as the embedded file log:
 * - keys -> partitions with the Java-compatible murmur2 partitioner (kafkajs DefaultPartitioner),
 *   the same placement as services/eventlog/partitioner.ts, so a topic keeps its layout when it
 *   moves from the file log to a broker;
 * - `produce` resolves after acks from all in-sync replicas; the producer is idempotent (one
 *   request in flight), so its own retries do not duplicate records;
 * - consumers never auto-commit: a batch's offsets are committed only after its handler resolved,
 *   and a rejected batch is retried in place until it succeeds or the consumer stops.
 * Topics listed in `schemas` carry Avro in the Confluent wire format (confluent-avro.ts).
 */
import { Kafka, logLevel, Partitioners, type Admin, type Consumer, type Producer, type KafkaMessage } from 'kafkajs';
import type {
  ConsumerOptions,
  EventLog,
  LogMessage,
  MessageBatch,
  OutgoingMessage,
  PartitionOffsets,
  PartitionPosition,
  RunningConsumer,
  TopicSpec,
} from '../../ports/event-log.js';
import { OffsetOutOfRangeError, UNDECODABLE_HEADER } from '../../ports/event-log.js';
import { type BackoffPolicy, backoffMs } from '../../shared/backoff.js';
import { ConfluentAvroCodec, type COMPATIBILITY, RegistryUnavailableError, type TopicSchema } from './confluent-avro.js';
import { TopicReader } from './partition-reader.js';
import { whileRetriable } from './retriable.js';
import { KAFKA_TOPIC_CONFIG } from './topic-config.js';

export interface KafkaEventLogOptions {
  brokers: string[];
  clientId?: string;
  /** Confluent-compatible registry; required when `schemas` is not empty. */
  schemaRegistryUrl?: string;
  schemaCompatibility?: COMPATIBILITY;
  /** Each registry call fails (and is retried) after this long without an answer. Default 10 s. */
  schemaRegistryTimeoutMs?: number;
  /** Topics whose values are Avro of these schemas, registered at open. */
  schemas?: TopicSchema[];
  /**
   * Namespace on a shared cluster: every topic and consumer group is `<prefix><name>` on the
   * broker, while the port keeps the plain names (e.g. one prefix per environment or per test).
   */
  namespace?: string;
  /** Consumer session timeout: how long a crashed member holds its partitions. Default 10 s. */
  sessionTimeoutMs?: number;
  /** Called for client-level problems (kafkajs log lines at WARN and above). */
  onLog?: (level: 'error' | 'warn', message: string, extra: Record<string, unknown>) => void;
}

/** Rejoining the group and retrying a failing batch: 100 ms doubling to 5 s. */
const RETRY_BACKOFF: BackoffPolicy = { baseMs: 100, maxMs: 5_000, jitter: 'none' };

/** Offsets lookups retried on a retriable broker error: about 30 s of waits with RETRY_BACKOFF. */
const OFFSETS_ATTEMPTS = 12;

export async function openKafkaEventLog(options: KafkaEventLogOptions): Promise<EventLog> {
  const kafka = new Kafka({
    clientId: options.clientId ?? 'tapeline',
    brokers: options.brokers,
    logLevel: logLevel.WARN,
    logCreator: () => (entry) => {
      const level = entry.level === logLevel.ERROR ? 'error' : 'warn';
      const { message, ...extra } = entry.log;
      options.onLog?.(level, String(message), extra);
    },
    // A broker restart takes seconds; keep retrying for about a minute before a call rejects.
    retry: { initialRetryTime: 200, maxRetryTime: 5_000, retries: 12 },
  });
  const namespace = options.namespace ?? '';
  const codec = new ConfluentAvroCodec({
    registryUrl: options.schemaRegistryUrl ?? '',
    compatibility: options.schemaCompatibility,
    timeoutMs: options.schemaRegistryTimeoutMs,
    onRetry: (subject, attempt, error) =>
      options.onLog?.('warn', `schema registry: registering ${subject} failed (attempt ${attempt}), retrying`, { error: error.message }),
  });
  if (options.schemas?.length) {
    if (!options.schemaRegistryUrl) throw new Error('schemaRegistryUrl is required for Avro topics');
    await codec.register(options.schemas.map((entry) => ({ ...entry, topic: namespace + entry.topic })));
  }
  const admin = kafka.admin();
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await admin.connect();
  await producer.connect();
  return new KafkaEventLog(kafka, admin, producer, codec, options.sessionTimeoutMs ?? 10_000, namespace);
}

class KafkaEventLog implements EventLog {
  private readonly running = new Set<RunningConsumer>();
  /** Topics seen to exist, so produce can refuse an unknown topic at once instead of retrying metadata. */
  private readonly knownTopics = new Set<string>();
  /** Group-less readers (`read`), one per topic read so far. */
  private readonly readers = new Map<string, TopicReader>();
  private closed = false;

  constructor(
    private readonly kafka: Kafka,
    private readonly admin: Admin,
    private readonly producer: Producer,
    private readonly codec: ConfluentAvroCodec,
    private readonly sessionTimeoutMs: number,
    private readonly namespace: string,
  ) {}

  private onBroker(name: string): string {
    return this.namespace + name;
  }

  async createTopics(specs: TopicSpec[]): Promise<void> {
    this.assertOpen();
    const existing = new Set(await this.admin.listTopics());
    const missing = specs.map((spec) => ({ ...spec, name: this.onBroker(spec.name) })).filter((spec) => !existing.has(spec.name));
    if (missing.length === 0) return;
    try {
      await this.admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((spec) => ({
          topic: spec.name,
          numPartitions: spec.partitions,
          replicationFactor: KAFKA_TOPIC_CONFIG.replicationFactor,
          configEntries: Object.entries(KAFKA_TOPIC_CONFIG.configEntries).map(([name, value]) => ({ name, value })),
        })),
      });
    } catch (error) {
      // Another process may have created them between listTopics and createTopics.
      const now = new Set(await this.admin.listTopics());
      if (!missing.every((spec) => now.has(spec.name))) throw error;
    }
  }

  async produce(portTopic: string, messages: OutgoingMessage[]): Promise<void> {
    this.assertOpen();
    const topic = this.onBroker(portTopic);
    if (messages.length === 0) return;
    if (!this.knownTopics.has(topic)) {
      if (!(await this.admin.listTopics()).includes(topic))
        throw new Error(`unknown topic ${portTopic}: create it first (auto-creation is off)`);
      this.knownTopics.add(topic);
    }
    await this.producer.send({
      topic,
      acks: -1,
      messages: messages.map((message) => ({
        key: message.key,
        value: this.codec.encode(topic, message.value),
        headers: message.headers,
        timestamp: message.timestamp === undefined ? undefined : String(message.timestamp),
      })),
    });
  }

  async runConsumer(options: ConsumerOptions): Promise<RunningConsumer> {
    this.assertOpen();
    if (options.topics.length === 0) throw new Error(`runConsumer(${options.groupId}): subscribe to at least one topic`);
    const state = { stopping: false };
    // The batch being handled or committed: stop() lets it finish before leaving the group, so a
    // handled batch is committed instead of being redelivered to the next member.
    const inFlight = { current: Promise.resolve() };
    let member = await this.startMember(options, state, inFlight, () => restart());
    let restarting: Promise<void> | null = null;
    // kafkajs gives up on errors it deems non-retriable (e.g. "coordinator is not aware of this
    // member" after a broker restart) and leaves the consumer stopped. A sink must not stop
    // because a broker bounced: rejoin with a new member until stop() is called.
    const restart = () => {
      if (state.stopping || restarting) return;
      restarting = (async () => {
        for (let attempt = 1; !state.stopping; attempt++) {
          await sleepUnless(backoffMs(RETRY_BACKOFF, attempt + 1), state);
          if (state.stopping) return;
          await member.disconnect().catch(() => undefined);
          try {
            member = await this.startMember(options, state, inFlight, () => restart());
            return;
          } catch {
            // Broker still unreachable: try again after the back-off.
          }
        }
      })().finally(() => (restarting = null));
    };
    let stopping: Promise<void> | null = null;
    const running: RunningConsumer = {
      stop: () =>
        (stopping ??= (async () => {
          state.stopping = true;
          await inFlight.current;
          await restarting;
          await member.disconnect();
          this.running.delete(running);
        })()),
    };
    this.running.add(running);
    return running;
  }

  private async startMember(
    options: ConsumerOptions,
    state: { stopping: boolean },
    inFlight: { current: Promise<void> },
    onGaveUp: () => void,
  ): Promise<Consumer> {
    const consumer = this.kafka.consumer({
      groupId: this.onBroker(options.groupId),
      sessionTimeout: this.sessionTimeoutMs,
      heartbeatInterval: Math.max(500, Math.floor(this.sessionTimeoutMs / 5)),
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: 250,
    });
    consumer.on(consumer.events.CRASH, (event) => {
      if (!event.payload.restart) onGaveUp();
    });
    await consumer.connect();
    for (const topic of new Set(options.topics))
      await consumer.subscribe({ topic: this.onBroker(topic), fromBeginning: options.fromBeginning ?? true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: ({ batch, heartbeat, isRunning, isStale, resolveOffset }) => {
        const work = (async () => {
          const maxBatchSize = options.maxBatchSize ?? 1000;
          for (let start = 0; start < batch.messages.length; start += maxBatchSize) {
            if (state.stopping || !isRunning() || isStale()) return;
            const chunk = batch.messages.slice(start, start + maxBatchSize);
            const portBatch = await this.toPortBatch(batch.topic, batch.partition, chunk);
            const handled = await this.retryUntilHandled(options, portBatch, state, heartbeat, () => isRunning() && !isStale());
            if (!handled) return;
            const next = String(portBatch.lastOffset + 1);
            // Commit first, then move the in-memory position: a failed commit redelivers the batch.
            await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: next }]);
            resolveOffset(chunk.at(-1)!.offset);
            await heartbeat();
          }
        })();
        inFlight.current = work.catch(() => undefined);
        return work;
      },
    });
    return consumer;
  }

  async positions(groupId: string, topic: string): Promise<PartitionPosition[]> {
    this.assertOpen();
    const [ends, committed] = await Promise.all([
      this.topicOffsets(this.onBroker(topic)),
      whileRetriable(
        () => this.admin.fetchOffsets({ groupId: this.onBroker(groupId), topics: [this.onBroker(topic)] }),
        RETRY_BACKOFF,
        OFFSETS_ATTEMPTS,
        () => this.closed,
      ),
    ]);
    // The broker answers -1 for a partition the group never committed on.
    const committedByPartition = new Map(
      (committed[0]?.partitions ?? []).filter((p) => Number(p.offset) >= 0).map((p) => [p.partition, Number(p.offset)]),
    );
    return ends
      .map((end) => ({
        topic,
        partition: end.partition,
        endOffset: Number(end.high),
        // From the first retained record (the log start), as the group reading from the beginning would.
        committedOffset: Math.max(committedByPartition.get(end.partition) ?? Number(end.low), Number(end.low)),
      }))
      .sort((a, b) => a.partition - b.partition);
  }

  /** End and start offsets per partition; kafkajs's own call bails on a leader still settling (see retriable.ts). */
  private topicOffsets(brokerTopic: string): ReturnType<Admin['fetchTopicOffsets']> {
    return whileRetriable(
      () => this.admin.fetchTopicOffsets(brokerTopic),
      RETRY_BACKOFF,
      OFFSETS_ATTEMPTS,
      () => this.closed,
    );
  }

  async partitionOffsets(topic: string): Promise<PartitionOffsets[]> {
    this.assertOpen();
    const ends = await this.topicOffsets(this.onBroker(topic));
    return ends
      .map((end) => ({ partition: end.partition, startOffset: Number(end.low), endOffset: Number(end.high) }))
      .sort((a, b) => a.partition - b.partition);
  }

  async read(topic: string, partition: number, fromOffset: number, maxMessages: number): Promise<LogMessage[]> {
    this.assertOpen();
    if (!(Number.isSafeInteger(fromOffset) && fromOffset >= 0))
      throw new RangeError(`read: fromOffset must be an offset, got ${fromOffset}`);
    if (!(Number.isSafeInteger(maxMessages) && maxMessages > 0))
      throw new RangeError(`read: maxMessages must be positive, got ${maxMessages}`);
    const held = (await this.partitionOffsets(topic)).find((p) => p.partition === partition);
    if (!held) throw new RangeError(`read: ${topic} has no partition ${partition}`);
    if (fromOffset < held.startOffset) throw new OffsetOutOfRangeError(`${topic}/${partition}`, fromOffset, held.startOffset);
    if (fromOffset >= held.endOffset) return [];
    const brokerTopic = this.onBroker(topic);
    let reader = this.readers.get(brokerTopic);
    if (!reader) {
      reader = new TopicReader(this.kafka, brokerTopic, this.namespace);
      this.readers.set(brokerTopic, reader);
    }
    const messages = await reader.read(partition, fromOffset, maxMessages);
    return (await this.toPortBatch(brokerTopic, partition, messages)).messages;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.readers.values()].map((reader) => reader.close()));
    await Promise.all([...this.running].map((consumer) => consumer.stop()));
    await this.producer.disconnect();
    await this.admin.disconnect();
  }

  /** Retries the handler on the same batch with back-off; false when the consumer stopped first. */
  private async retryUntilHandled(
    options: ConsumerOptions,
    batch: MessageBatch,
    state: { stopping: boolean },
    heartbeat: () => Promise<void>,
    stillAssigned: () => boolean,
  ): Promise<boolean> {
    for (let failures = 0; ; ) {
      if (state.stopping || !stillAssigned()) return false;
      try {
        await options.handleBatch(batch);
        return true;
      } catch (error) {
        failures++;
        try {
          options.onError?.(error, batch);
        } catch {
          // A throwing error callback must not break delivery.
        }
        const delay = backoffMs(RETRY_BACKOFF, failures);
        await sleepUnless(delay, state);
        // Long outages must not cost the partition: keep the group session alive while retrying.
        await heartbeat().catch(() => undefined);
      }
    }
  }

  private async toPortBatch(brokerTopic: string, partition: number, messages: KafkaMessage[]): Promise<MessageBatch> {
    const topic = brokerTopic.slice(this.namespace.length);
    const converted: LogMessage[] = [];
    for (const message of messages) {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(message.headers ?? {})) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? String(value[0]) : value.toString();
      }
      const raw = message.value ?? Buffer.alloc(0);
      let value: Buffer = raw;
      try {
        value = await this.codec.decode(brokerTopic, raw);
      } catch (error) {
        // The registry could not be asked: the value may be fine. The batch fails before the handler
        // sees it and kafkajs delivers it again, instead of dead-lettering a readable value.
        if (error instanceof RegistryUnavailableError) throw error;
        // Poison: keep the raw bytes and say why, so the consumer can dead-letter it and move on.
        headers[UNDECODABLE_HEADER] = (error as Error).message;
      }
      converted.push({
        topic,
        partition,
        offset: Number(message.offset),
        key: message.key?.toString() ?? '',
        value,
        headers,
        timestamp: Number(message.timestamp),
      });
    }
    return {
      topic,
      partition,
      messages: converted,
      firstOffset: converted[0]!.offset,
      lastOffset: converted.at(-1)!.offset,
    };
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event log is closed');
  }
}

function sleepUnless(ms: number, state: { stopping: boolean }): Promise<void> {
  return new Promise((resolve) => {
    const started = Date.now();
    const tick = () => {
      if (state.stopping || Date.now() - started >= ms) resolve();
      else setTimeout(tick, Math.min(50, ms));
    };
    tick();
  });
}
