/**
 * One subscription: a reader of the log with positions of its own. It reads the partitions it needs
 * from its positions, a run of STREAM_READ_BATCH at a time, sends what its filters keep, and waits
 * for the log's end to move when it has caught up. Replay and live are the same loop, so there is no
 * switch where a record could be missed or sent twice; each message's cursor is the positions right
 * after it.
 *
 * Pace: it reads only while its connection has at most STREAM_BUFFER_BYTES waiting to be sent. A
 * buffer that stays over it for STREAM_SLOW_CONSUMER_MS ends the subscription with `slow_consumer`
 * (its cursor is the last message sent): memory per connection stays bounded, and since every
 * subscription reads for itself, a slow one delays no other.
 *
 * Fairness: a run of history (more than STREAM_READ_BATCH records behind the log end) is read under
 * the process's replay limit (STREAM_REPLAY_CONCURRENCY runs at once, the waiting runs taken key by key
 * in turn: replay-queue.ts), so many replays from old cursors share the process one run at a time, a
 * key's many replays do not hold back another key's, and live reads never queue.
 */
import type { StreamError, StreamServerMessage } from '../http/types.generated.js';
import { type EventLog, type LogMessage, OffsetOutOfRangeError, UNDECODABLE_HEADER } from '../ports/event-log.js';
import { type PartitionReader, partitionReader } from '../eventlog/repeat-index.js';
import type { Channel, ChannelMessage, ChannelStream } from './channel.js';
import { encodeCursor, type Positions } from './cursor.js';
import { memo } from './memo.js';
import type { LogEnds } from './log-ends.js';
import type { ReplayQueue } from './replay-queue.js';

export interface StreamSettings {
  heartbeatMs: number;
  bufferBytes: number;
  slowConsumerMs: number;
  readBatch: number;
  pollMs: number;
}

/** Where a subscription's messages go: an SSE response or a WebSocket. */
export interface StreamSink {
  send(message: StreamServerMessage): void;
  /** Bytes accepted by send but not yet handed to the network. */
  bufferedBytes(): number;
  /**
   * Runs `sends` with the connection corked, so a run of messages leaves in one write to the kernel
   * rather than one per message (a write per message was 35-40 % of the time replays took,
   * docs/STREAMING.md, stalled readers).
   */
  batch<T>(sends: () => T): T;
}

/** StreamSink.batch for a Node stream: corked while `sends` runs, one write of all it sent after. */
export function corked<T>(stream: { cork(): void; uncork(): void }, sends: () => T): T {
  stream.cork();
  try {
    return sends();
  } finally {
    stream.uncork();
  }
}

/**
 * Reads up to `max` records of a partition from `from`, below `end` (the end last seen); `next` is
 * the position after what was read. For the log that is the last record's offset + 1; a reader of
 * one account's rows (services/copy/account-events.ts) also moves past the positions of others, and
 * the log reader without repeats (services/eventlog/repeat-index.ts) past the records it dropped.
 * Throws OffsetOutOfRangeError for a position retention deleted.
 */
export type RecordReader = PartitionReader;

/** The reader of the event log. */
export const logReader: (log: EventLog) => RecordReader = partitionReader;

export interface SubscriptionCounters {
  messages: number;
  /** Records skipped because they could not be decoded (the sink's processor dead-letters them). */
  undecodable: number;
}

export interface SubscriptionOptions {
  id: string;
  /** The API key that opened it: its runs of history wait their turn among this key's. */
  keyId: string;
  channel: Channel;
  filters: unknown;
  /** Sent first, with the cursor of the start positions (Channel.initial). */
  initial?: ChannelMessage[];
  positions: Positions;
  /** The (stream, partition) pairs to read. */
  partitions: Array<{ stream: ChannelStream; partition: number }>;
  /** Where the records are read (logReader, or an account's feed), and where their ends are watched. */
  read: RecordReader;
  ends: LogEnds;
  /** The process's limit on runs of history read at once (STREAM_REPLAY_CONCURRENCY), fair per key. */
  replays: ReplayQueue;
  settings: StreamSettings;
  sink: StreamSink;
  counters: SubscriptionCounters;
  /** Told once when the subscription ends on its own (slow consumer, expired cursor, unreadable log). */
  onEnd: (error: StreamError) => void;
}

const UNDECODABLE = Symbol('undecodable');
const DECODED = Symbol('decoded event');

/**
 * A record's event, decoded once: the subscriptions at the log's end share their records (tail-cache.ts).
 * Every stream of a topic decodes it with the topic's codec; channels only read events.
 */
function decoded(stream: ChannelStream, message: LogMessage): unknown {
  return memo(message, DECODED, () => {
    try {
      if (message.headers[UNDECODABLE_HEADER] !== undefined) throw new Error(message.headers[UNDECODABLE_HEADER]);
      return stream.codec.decode(message.value);
    } catch {
      return UNDECODABLE;
    }
  });
}

/** Read failures other than an expired position are retried this many times before `unavailable`. */
const READ_ATTEMPTS = 5;

export class Subscription {
  private stopped = false;
  private wake: (() => void) | null = null;
  private next = 0;
  private lastSentAt = Date.now();
  private finished!: () => void;
  /** Resolves once the subscription stopped reading (ended, stopped, or stopped before it started). */
  readonly done = new Promise<void>((resolve) => (this.finished = resolve));
  private started = false;

  constructor(private readonly options: SubscriptionOptions) {}

  /** Starts reading (after the transport sent `subscribed`, so that comes first). */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.run()
      .catch((error: unknown) => {
        if (!this.stopped) this.end('unavailable', `the event log could not be read: ${(error as Error).message}; resume with the cursor`);
      })
      .finally(() => this.finished());
  }

  get id(): string {
    return this.options.id;
  }

  get cursor(): string {
    return encodeCursor(this.options.positions);
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
    if (!this.started) this.finished();
  }

  /** The `error` message that ends this subscription with `code`, carrying its cursor. */
  errorMessage(code: StreamError['code'], message: string): StreamError {
    return { type: 'error', code, message, parameter: null, subscription: this.options.id, cursor: this.cursor };
  }

  private end(code: StreamError['code'], message: string): void {
    this.stopped = true;
    this.options.onEnd(this.errorMessage(code, message));
  }

  private async run(): Promise<void> {
    const { settings, sink } = this.options;
    for (const message of this.options.initial ?? []) {
      if (this.stopped) return;
      this.send(message);
    }
    while (!this.stopped) {
      if (sink.bufferedBytes() > settings.bufferBytes) {
        if (await this.drained()) continue;
        if (!this.stopped)
          this.end(
            'slow_consumer',
            `the connection's send buffer stayed over ${settings.bufferBytes} bytes for ${settings.slowConsumerMs} ms; reconnect with the cursor and read faster (or filter more)`,
          );
        return;
      }
      const target = this.nextWithBacklog();
      if (!target) {
        const quietFor = Date.now() - this.lastSentAt;
        if (quietFor >= settings.heartbeatMs) {
          this.heartbeat();
          continue;
        }
        await this.sleep(settings.heartbeatMs - quietFor);
        continue;
      }
      const read = await this.read(target.stream.topic, target.partition);
      if (read === 'ended') return;
      if (read === 0) await this.sleep(settings.pollMs);
      if (Date.now() - this.lastSentAt >= settings.heartbeatMs) this.heartbeat();
    }
  }

  /** Reads and sends one run of a partition (a run of history under the replay limit); the positions it moved past, or 'ended'. */
  private read(topic: string, partition: number): Promise<number | 'ended'> {
    const { ends, positions, settings, replays, keyId } = this.options;
    const behind = ends.end(topic, partition) - positions.get(topic)![partition]!;
    if (behind <= settings.readBatch) return this.readRun(topic, partition);
    return replays.run(keyId, () => (this.stopped ? 'ended' : this.readRun(topic, partition)));
  }

  private async readRun(topic: string, partition: number): Promise<number | 'ended'> {
    const { read, ends, positions, settings } = this.options;
    const offsets = positions.get(topic)!;
    const stream = this.options.partitions.find((p) => p.stream.topic === topic)!.stream;
    let messages: LogMessage[] = [];
    const from = offsets[partition]!;
    let next = from;
    for (let attempt = 1; ; attempt++) {
      try {
        ({ messages, next } = await read(topic, partition, offsets[partition]!, ends.end(topic, partition), settings.readBatch));
        break;
      } catch (error) {
        if (error instanceof OffsetOutOfRangeError) {
          this.end(
            'cursor_expired',
            `the log no longer holds this position (retention deleted it up to offset ${error.logStartOffset}); resync from REST, then subscribe without a cursor`,
          );
          return 'ended';
        }
        if (attempt >= READ_ATTEMPTS || this.stopped) throw error;
        await this.sleep(settings.pollMs * 2 ** attempt);
      }
    }
    if (this.options.sink.batch(() => this.sendRun(stream, partition, offsets, messages)) === 'ended') return 'ended';
    // Past positions the reader skipped (another account's rows, repeated trades): the next cursor sent carries it.
    if (!this.stopped) offsets[partition] = Math.max(offsets[partition]!, next);
    // Positions passed, not records sent: a run of only skipped records is progress too, read on at once.
    return offsets[partition]! - from;
  }

  /** Sends what the filters keep of a run read from one partition, moving its position past each record. */
  private sendRun(stream: ChannelStream, partition: number, offsets: number[], messages: LogMessage[]): 'ended' | undefined {
    const { channel, filters, counters } = this.options;
    for (const message of messages) {
      if (this.stopped) return 'ended';
      offsets[partition] = message.offset + 1;
      const event = decoded(stream, message);
      if (event === UNDECODABLE) {
        counters.undecodable++;
        continue;
      }
      let selected: ChannelMessage | null;
      try {
        selected = channel.select(stream, event, filters);
      } catch {
        // A record the channel cannot present (a malformed amount): skipped and counted like an undecodable one.
        counters.undecodable++;
        continue;
      }
      if (selected !== null) this.send(selected);
    }
    return undefined;
  }

  private send({ type, data, ...own }: ChannelMessage): void {
    const { channel, sink, counters } = this.options;
    sink.send({ type, subscription: this.options.id, channel: channel.name, cursor: this.cursor, ...own, data } as StreamServerMessage);
    counters.messages++;
    this.lastSentAt = Date.now();
  }

  private heartbeat(): void {
    this.options.sink.send({ type: 'heartbeat', subscription: this.options.id, cursor: this.cursor, time: new Date().toISOString() });
    this.lastSentAt = Date.now();
  }

  /** Round-robin over the partitions with records past the position, so a busy one starves none. */
  private nextWithBacklog(): { stream: ChannelStream; partition: number } | undefined {
    const { partitions, positions, ends } = this.options;
    for (let step = 0; step < partitions.length; step++) {
      const index = (this.next + step) % partitions.length;
      const target = partitions[index]!;
      if (positions.get(target.stream.topic)![target.partition]! < ends.end(target.stream.topic, target.partition)) {
        this.next = (index + 1) % partitions.length;
        return target;
      }
    }
    return undefined;
  }

  /** Waits for the send buffer to fall to half the bound; false after STREAM_SLOW_CONSUMER_MS or on stop. */
  private async drained(): Promise<boolean> {
    const { settings, sink } = this.options;
    const deadline = Date.now() + settings.slowConsumerMs;
    while (!this.stopped && Date.now() < deadline) {
      if (sink.bufferedBytes() <= settings.bufferBytes / 2) return true;
      await this.sleep(Math.min(settings.pollMs, 50));
    }
    return false;
  }

  /** Sleeps until the log's end moves, `ms` pass or stop. */
  private async sleep(ms: number): Promise<void> {
    if (this.stopped) return;
    const { done, wake } = this.options.ends.changed(ms);
    this.wake = wake;
    await done;
    this.wake = null;
  }
}
