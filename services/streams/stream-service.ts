/**
 * Live streams in one API process: opens subscriptions (cursor checked against the log, per-key caps
 * taken), keeps the log's ends watched while any subscription reads, and closes every connection on
 * shutdown. The transports (sse.ts, websocket.ts) carry the same messages. Each API process reads the
 * log itself, so streams scale with API processes and need no consumer group.
 */
import { ApiError } from '../http/errors.js';
import type { StreamError } from '../http/types.generated.js';
import type { AccountEventFeed } from '../copy/account-events.js';
import type { Logger } from '../logger.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { EventLog, PartitionOffsets } from '../ports/event-log.js';
import { partitionForKey } from '../eventlog/partitioner.js';
import type { Channel, ChannelMessage } from './channel.js';
import { decodeCursor, type Positions } from './cursor.js';
import { KeyLimits } from './key-limits.js';
import { LogEnds } from './log-ends.js';
import { ReplayQueue } from './replay-queue.js';
import { logStartOffset, RepeatIndex } from '../eventlog/repeat-index.js';
import { TailCache } from './tail-cache.js';
import { trades } from '../read-models/trades/index.js';
import { signals } from '../signals/signal-stream.js';
import {
  logReader,
  type RecordReader,
  type StreamSettings,
  type StreamSink,
  Subscription,
  type SubscriptionCounters,
} from './subscription.js';

export interface StreamServiceSettings extends StreamSettings {
  replayConcurrency: number;
  idleTimeoutMs: number;
  authTimeoutMs: number;
  connectionsPerKey: number;
  subscriptionsPerKey: number;
}

export interface OpenSubscription {
  keyId: string;
  /** The key's account: an account channel (copy, strategy) reads only its events. */
  accountId: string;
  id: string;
  channel: Channel;
  /** Parsed by the channel. */
  filters: unknown;
  cursor: string | undefined;
  /** Names the cursor in errors: `cursor` (SSE query, WebSocket message) or `Last-Event-ID`. */
  cursorParameter: string;
  sink: StreamSink;
  onEnd: (error: StreamError) => void;
}

export interface StreamFigures extends SubscriptionCounters {
  connections: number;
  subscriptions: number;
  slowConsumers: number;
  expiredCursors: number;
  /** Runs of history reading the log now, and those waiting for one of the process's slots. */
  replaysRunning: number;
  replaysWaiting: number;
  /** Subscriptions' reads of the log, by where they were answered (tail-cache.ts). */
  reads: { fromMemory: number; fromLog: number };
  /** Trade records found to repeat an earlier one (not sent), and the ids the index holds (services/eventlog/repeat-index.ts). */
  repeats: { found: number; ids: number };
}

/**
 * Records kept per partition for the subscriptions at the log's end (tail-cache.ts): a live subscription
 * is a few records behind at most, and one further behind reads the log as a replay does. It bounds the
 * cache at this many records per partition streamed.
 */
const TAIL_RECORDS = 128;

export class StreamService {
  readonly limits: KeyLimits;
  private readonly ends: LogEnds;
  /** The ends of the account feed (the copy and strategy channels), watched only while one reads it. */
  private readonly accountEnds: LogEnds;
  private readonly readLog: RecordReader;
  private readonly tail: TailCache;
  private readonly repeats: RepeatIndex;
  /** Runs of history read at once, over every subscription of the process, in turn per key (subscription.ts, "Fairness"). */
  private readonly replays: ReplayQueue;
  private readonly counters: SubscriptionCounters = { messages: 0, undecodable: 0 };
  private slowConsumers = 0;
  private expiredCursors = 0;
  /** Closers of every open connection, for shutdown. */
  private readonly connections = new Set<() => void>();

  constructor(
    private readonly log: EventLog,
    readonly store: AnalyticsStore,
    readonly settings: StreamServiceSettings,
    logger: Logger,
    /** The control store's feed of account events (the copy and strategy channels). */
    private readonly accountFeed: AccountEventFeed,
  ) {
    this.limits = new KeyLimits(settings);
    this.replays = new ReplayQueue(settings.replayConcurrency);
    this.ends = new LogEnds(log, settings.pollMs, (error) => logger.warn({ err: error }, 'stream: reading the log ends failed; retrying'));
    this.accountEnds = new LogEnds(accountFeed, settings.pollMs, (error) =>
      logger.warn({ err: error }, 'stream: reading the account feed ends failed; retrying'),
    );
    this.tail = new TailCache(logReader(log), TAIL_RECORDS);
    // The trade feed's publishers overlap (services/eventlog/repeat-index.ts): every channel reading it (trades, signals) skips the
    // repeats, and the signals a repeated trade decided again (the same ids; webhooks deliver each id once).
    this.repeats = new RepeatIndex(this.tail.read, logStartOffset(log), new Set([trades.topic, signals.topic]));
    this.readLog = this.repeats.reader;
  }

  /** Registers a connection's closer; the returned function unregisters it. */
  track(close: () => void): () => void {
    this.connections.add(close);
    return () => this.connections.delete(close);
  }

  /**
   * Starts a subscription at the cursor (or the log's end, or where the channel's initial messages
   * say). Throws ApiError: 400 naming the cursor
   * parameter, 410 reason cursor_expired, 429 reason account_limit.
   */
  async open(request: OpenSubscription): Promise<Subscription> {
    const releaseSlot = this.limits.openSubscription(request.keyId);
    const watches: Array<{ offsets: PartitionOffsets[]; release: () => void }> = [];
    const release = () => {
      releaseSlot();
      for (const watch of watches) watch.release();
    };
    try {
      const { channel } = request;
      const { ends, read } = this.sourceOf(request);
      for (const stream of channel.streams) watches.push(await ends.watch(stream.topic));
      const held = new Map(channel.streams.map((stream, i) => [stream.topic, watches[i]!.offsets]));
      const key = channel.partitionKey(request.filters);
      const partitions = channel.streams.flatMap((stream) => {
        const count = held.get(stream.topic)!.length;
        // The stream's key is the market: its records are all in this one partition, in order.
        const only = key === undefined ? undefined : partitionForKey(key, count);
        return Array.from({ length: count }, (_, partition) => partition)
          .filter((partition) => only === undefined || partition === only)
          .map((partition) => ({ stream, partition }));
      });
      let positions = request.cursor === undefined ? endsOf(held) : this.checkedCursor(request, held, partitions);
      let filters = request.filters;
      let initial: ChannelMessage[] = [];
      // A resumed subscription already holds what the initial messages would give; it replays only.
      if (request.cursor === undefined && channel.initial) {
        const start = await channel.initial(filters, { store: this.store, log: this.log, ends: positions });
        ({ positions, filters } = start);
        initial = start.messages;
      }
      const subscription = new Subscription({
        id: request.id,
        keyId: request.keyId,
        channel,
        filters,
        initial,
        positions,
        partitions,
        read,
        ends,
        replays: this.replays,
        settings: this.settings,
        sink: request.sink,
        counters: this.counters,
        onEnd: (error) => {
          if (error.code === 'slow_consumer') this.slowConsumers++;
          if (error.code === 'cursor_expired') this.expiredCursors++;
          request.onEnd(error);
        },
      });
      void subscription.done.finally(release);
      return subscription;
    } catch (error) {
      release();
      throw error;
    }
  }

  figures(): StreamFigures {
    const totals = this.limits.totals;
    return {
      ...this.counters,
      ...totals,
      slowConsumers: this.slowConsumers,
      expiredCursors: this.expiredCursors,
      replaysRunning: this.replays.active,
      replaysWaiting: this.replays.pending,
      reads: { ...this.tail.figures },
      repeats: { found: this.repeats.figures.repeats, ids: this.repeats.ids },
    };
  }

  close(): void {
    for (const close of [...this.connections]) close();
    this.ends.close();
    this.accountEnds.close();
  }

  /** Where the subscription's records are read and their ends watched: the log, or its account's feed. */
  private sourceOf(request: OpenSubscription): { ends: LogEnds; read: RecordReader } {
    if (request.channel.source !== 'account') return { ends: this.ends, read: this.readLog };
    const { accountFeed: feed } = this;
    const { accountId } = request;
    return {
      ends: this.accountEnds,
      read: (topic, _partition, from, end, max) => feed.read(accountId, topic, from, end, max),
    };
  }

  private checkedCursor(
    request: OpenSubscription,
    held: Map<string, PartitionOffsets[]>,
    partitions: Array<{ stream: { topic: string }; partition: number }>,
  ): Positions {
    const name = request.cursorParameter;
    const positions = decodeCursor(request.cursor!);
    if (!positions) throw ApiError.badRequest(`${name}: not a stream cursor (send back a message's cursor as it came)`);
    const topics = [...held.keys()];
    if (positions.size !== topics.length || !topics.every((topic) => positions.has(topic)))
      throw ApiError.badRequest(`${name}: a cursor of another channel (this is ${request.channel.name})`);
    for (const [topic, offsets] of held) {
      const given = positions.get(topic)!;
      if (given.length !== offsets.length) throw ApiError.badRequest(`${name}: does not match this event log (partition count)`);
      if (given.some((offset, partition) => offset > offsets[partition]!.endOffset))
        throw ApiError.badRequest(`${name}: ahead of this event log (a cursor of another deployment?)`);
    }
    const expired = partitions.filter(
      ({ stream, partition }) => positions.get(stream.topic)![partition]! < held.get(stream.topic)![partition]!.startOffset,
    );
    if (expired.length > 0) {
      this.expiredCursors++;
      throw new ApiError(
        410,
        'GONE',
        `${name}: the event log no longer holds the records after this cursor (retention deleted them): resync from REST (${request.channel.resyncFrom}), then subscribe without a cursor`,
        { reason: 'cursor_expired' },
      );
    }
    return positions;
  }
}

function endsOf(held: Map<string, PartitionOffsets[]>): Positions {
  return new Map([...held].map(([topic, offsets]) => [topic, offsets.map((p) => p.endOffset)]));
}
