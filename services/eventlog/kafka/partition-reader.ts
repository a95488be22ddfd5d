/**
 * Group-less reads for the Kafka adapter (`EventLog.read`): kafkajs only fetches through a consumer
 * group, so one reader consumer per topic joins a group of its own (a unique id, never committed),
 * keeps every partition paused, and serves each read by seeking the partition, resuming it until the
 * first batch from that offset arrives, and pausing it again. Reads of a topic are served one at a
 * time; readers that keep up ask only when `offsets` shows more, so the broker sees a read per
 * new run of records rather than a poll per reader.
 */
import { randomUUID } from 'node:crypto';
import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';

interface PendingRead {
  partition: number;
  fromOffset: number;
  maxMessages: number;
  resolve: (messages: KafkaMessage[]) => void;
  reject: (error: unknown) => void;
}

/** How long a read waits for its batch before it fails (the caller retries or reports it). */
const READ_TIMEOUT_MS = 15_000;

export class TopicReader {
  private consumer: Consumer | null = null;
  private starting: Promise<Consumer> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private pending: PendingRead | null = null;

  constructor(
    private readonly kafka: Kafka,
    /** The topic's name on the broker. */
    private readonly topic: string,
    private readonly groupPrefix: string,
  ) {}

  /** Messages from `fromOffset` (the caller checked that the partition holds it and has more). */
  read(partition: number, fromOffset: number, maxMessages: number): Promise<KafkaMessage[]> {
    const run = this.queue.then(() => this.readNow(partition, fromOffset, maxMessages));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    const consumer = this.consumer ?? (await this.starting?.catch(() => null));
    this.consumer = null;
    await consumer?.disconnect();
  }

  private async readNow(partition: number, fromOffset: number, maxMessages: number): Promise<KafkaMessage[]> {
    const consumer = await this.started();
    return new Promise<KafkaMessage[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending = null;
        consumer.pause([{ topic: this.topic, partitions: [partition] }]);
        reject(new Error(`read of ${this.topic}/${partition} from ${fromOffset} timed out after ${READ_TIMEOUT_MS} ms`));
      }, READ_TIMEOUT_MS);
      this.pending = {
        partition,
        fromOffset,
        maxMessages,
        resolve: (messages) => {
          clearTimeout(timer);
          resolve(messages);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      consumer.seek({ topic: this.topic, partition, offset: String(fromOffset) });
      consumer.resume([{ topic: this.topic, partitions: [partition] }]);
    });
  }

  private started(): Promise<Consumer> {
    if (this.consumer) return Promise.resolve(this.consumer);
    this.starting ??= this.start().then((consumer) => {
      this.consumer = consumer;
      return consumer;
    });
    return this.starting;
  }

  private async start(): Promise<Consumer> {
    const consumer = this.kafka.consumer({
      groupId: `${this.groupPrefix}tapeline-reader-${randomUUID()}`,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: 100,
    });
    await consumer.connect();
    await consumer.subscribe({ topic: this.topic, fromBeginning: true });
    let joined!: () => void;
    const join = new Promise<void>((resolve) => (joined = resolve));
    consumer.on(consumer.events.GROUP_JOIN, () => joined());
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch }) => {
        const pending = this.pending;
        // Batches fetched before a pause or for another read's position are dropped, never handed out.
        if (!pending || batch.partition !== pending.partition) return;
        const messages = batch.messages.filter((m) => Number(m.offset) >= pending.fromOffset).slice(0, pending.maxMessages);
        if (messages.length === 0 || Number(messages[0]!.offset) !== pending.fromOffset) return;
        this.pending = null;
        consumer.pause([{ topic: this.topic, partitions: [batch.partition] }]);
        pending.resolve(messages);
      },
    });
    // Until a read asks, nothing is fetched.
    consumer.pause([{ topic: this.topic }]);
    await join;
    consumer.pause([{ topic: this.topic }]);
    return consumer;
  }
}
