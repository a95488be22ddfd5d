/**
 * Records that repeat an earlier one. The trade feed's publishers overlap: a market's history read
 * (TRADES_BACKFILL_MARKETS), a gap's backfill and the history backfill read trades the live poll
 * published already (the demo's log, before the trade poller asked this index: 32,756 trade records
 * for 23,247 trades, a repeat up to 7,437 records after its first copy in the same partition). The sink
 * keys on the trade id, so REST serves each trade once; a stream sending every record would not.
 *
 * The rule is a function of the log alone, so every reader of it agrees: a record whose `event_id`
 * header an earlier record of the same partition, still held, has is a repeat. A trade's copies share
 * a partition (the stream is keyed by market). The trade poller publishes only the trades no held
 * record has (`held`), which keeps repeats out of the log across restarts too (the index is read back
 * from the log); the streams drop any repeat that still reaches it (`reader`: a history backfill run
 * at the same time as the poller, or an older log).
 *
 * Per partition: each id's first offset, keyed by 128 bits of the id's SHA-1 (about 80 bytes an id;
 * two of ten million ids share a key with a probability near 1e-25, so the answers are exact in
 * practice without reading any record back), and the offsets found to repeat. It reads a partition
 * from its start the first time it is asked about it, and then as far as it is asked. Entries of
 * records retention deleted are dropped every PRUNE_EVERY records indexed and when a read finds them
 * gone; until then such an id still counts as held. A repeat of a record retention deleted before the index read it is new to
 * that index (a process started later sends it; its first copy is older than any cursor).
 */
import { createHash } from 'node:crypto';
import { type EventLog, type LogMessage, OffsetOutOfRangeError } from '../ports/event-log.js';

/**
 * Reads up to `max` records of a partition from `from` (`end`: the end the caller last saw); `next` is
 * the position after what was read. Throws OffsetOutOfRangeError for a position retention deleted.
 * (The streams' RecordReader, services/streams/subscription.ts, is this type.)
 */
export type PartitionReader = (
  topic: string,
  partition: number,
  from: number,
  end: number,
  max: number,
) => Promise<{ messages: LogMessage[]; next: number }>;

const INDEX_BATCH = 2_000;
const PRUNE_EVERY = 100_000;

interface PartitionIndex {
  /** Indexed: the records below it. null until the first read found the partition's start. */
  next: number | null;
  first: Map<string, number>;
  repeats: Set<number>;
  sincePrune: number;
  /** The read extending the index now; callers wait for it rather than read the same records. */
  building: Promise<void> | null;
}

/** The partition's first held offset, for pruning. */
export type StartOffset = (topic: string, partition: number) => Promise<number>;

export class RepeatIndex {
  private readonly partitions = new Map<string, PartitionIndex>();
  /** Repeats found (each once per process), for /metrics. */
  readonly figures = { repeats: 0 };

  constructor(
    private readonly read: PartitionReader,
    private readonly startOffset: StartOffset,
    /** The topics whose repeats are dropped; the others pass through. */
    private readonly topics: ReadonlySet<string>,
  ) {}

  /** Ids indexed, over every partition (for /metrics). */
  get ids(): number {
    let ids = 0;
    for (const index of this.partitions.values()) ids += index.first.size;
    return ids;
  }

  /** `read`, without the records that repeat an earlier one; `next` is still the position after all it read. */
  readonly reader: PartitionReader = async (topic, partition, from, end, max) => {
    const result = await this.read(topic, partition, from, end, max);
    if (!this.topics.has(topic) || result.messages.length === 0) return result;
    const index = await this.indexedTo(topic, partition, result.next);
    return { messages: result.messages.filter((m) => !index.repeats.has(m.offset)), next: result.next };
  };

  /** Of `ids` (each with its partition), those a record the log holds now has: the index reads each partition to its end first. */
  async held(topic: string, ids: ReadonlyArray<{ partition: number; id: string }>): Promise<Set<string>> {
    const held = new Set<string>();
    for (const partition of new Set(ids.map((entry) => entry.partition))) {
      const index = await this.indexedTo(topic, partition, 'end');
      for (const { id } of ids.filter((entry) => entry.partition === partition)) if (index.first.has(keyOf(id))) held.add(id);
    }
    return held;
  }

  private indexOf(topic: string, partition: number): PartitionIndex {
    const key = `${topic}\u0000${partition}`;
    let index = this.partitions.get(key);
    if (!index) {
      index = { next: null, first: new Map(), repeats: new Set(), sincePrune: 0, building: null };
      this.partitions.set(key, index);
    }
    return index;
  }

  /** The partition's index, read up to `upTo` (a position a reader just read past) or to the partition's end. */
  private async indexedTo(topic: string, partition: number, upTo: number | 'end'): Promise<PartitionIndex> {
    const index = this.indexOf(topic, partition);
    for (;;) {
      if (upTo !== 'end' && index.next !== null && index.next >= upTo) return index;
      if (index.building) {
        await index.building;
        continue;
      }
      const extension = this.extend(topic, partition, index);
      index.building = extension.then(
        () => undefined,
        () => undefined,
      );
      let read: number;
      try {
        read = await extension;
      } finally {
        index.building = null;
      }
      if (read > 0) continue;
      if (upTo === 'end') return index;
      // A reader found records up to `upTo` a moment ago; none there now means retention took them.
      index.next = Math.max(index.next ?? 0, upTo);
    }
  }

  /** Indexes the next run of the partition; the number of records read. */
  private async extend(topic: string, partition: number, index: PartitionIndex): Promise<number> {
    let from = index.next ?? 0;
    let messages: LogMessage[];
    let next: number;
    try {
      ({ messages, next } = await this.read(topic, partition, from, from + INDEX_BATCH, INDEX_BATCH));
    } catch (error) {
      if (!(error instanceof OffsetOutOfRangeError)) throw error;
      // Retention deleted the records from here: the partition now starts later, and what it deleted goes.
      from = error.logStartOffset;
      this.forget(index, from);
      ({ messages, next } = await this.read(topic, partition, from, from + INDEX_BATCH, INDEX_BATCH));
    }
    for (const message of messages) this.add(index, message);
    index.next = Math.max(next, from);
    index.sincePrune += messages.length;
    if (index.sincePrune >= PRUNE_EVERY) await this.prune(topic, partition, index);
    return messages.length;
  }

  private add(index: PartitionIndex, message: LogMessage): void {
    const id = message.headers.event_id;
    if (id === undefined) return;
    const key = keyOf(id);
    if (!index.first.has(key)) index.first.set(key, message.offset);
    else {
      index.repeats.add(message.offset);
      this.figures.repeats++;
    }
  }

  private async prune(topic: string, partition: number, index: PartitionIndex): Promise<void> {
    index.sincePrune = 0;
    this.forget(index, await this.startOffset(topic, partition));
  }

  /** Drops the entries of the records below `start` (retention deleted them). */
  private forget(index: PartitionIndex, start: number): void {
    for (const [key, offset] of index.first) if (offset < start) index.first.delete(key);
    for (const offset of index.repeats) if (offset < start) index.repeats.delete(offset);
  }
}

/** 128 bits of the id's SHA-1, as a 16-character one-byte string. */
function keyOf(id: string): string {
  return createHash('sha1').update(id).digest('latin1').slice(0, 16);
}

/** The event log as a PartitionReader. */
export function partitionReader(log: EventLog): PartitionReader {
  return async (topic, partition, from, _end, max) => {
    const messages = await log.read(topic, partition, from, max);
    return { messages, next: messages.length > 0 ? messages.at(-1)!.offset + 1 : from };
  };
}

/** The event log's first held offset of a partition. */
export function logStartOffset(log: EventLog): StartOffset {
  return async (topic, partition) => (await log.partitionOffsets(topic))[partition]?.startOffset ?? 0;
}
