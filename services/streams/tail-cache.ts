/**
 * The log's newest records, read once for every subscription of the process. After an append, every
 * subscription at the end asks for the same position; reading the log and decoding the record for each
 * of them made a fan-out to N subscribers N log reads and N decodes per record (docs/STREAMING.md,
 * "Fan-out").
 *
 * A read from a position inside a partition's window is answered from memory; reads from the same
 * position at the same time share one read of the log, whose records then join the window; a read
 * elsewhere (a replay from an old cursor) goes to the log as before, its records kept where they touch
 * the window. Records never change once written, so a kept record answers exactly what the log would.
 * Each partition keeps its newest `capacity` records.
 */
import type { LogMessage } from '../ports/event-log.js';
import { share } from './memo.js';
import type { RecordReader } from './subscription.js';

type Read = { messages: LogMessage[]; next: number };

/** Exactly the records at positions [from, next), in order (positions without a record hold none). */
interface Window {
  from: number;
  next: number;
  messages: LogMessage[];
}

export class TailCache {
  private readonly windows = new Map<string, Window>();
  private readonly reading = new Map<string, Promise<Read>>();
  /** Reads answered from a window, and reads that went to the log (shared reads counted once). */
  readonly figures = { fromMemory: 0, fromLog: 0 };

  constructor(
    private readonly source: RecordReader,
    private readonly capacity: number,
  ) {}

  readonly read: RecordReader = (topic, partition, from, end, max) => {
    const key = `${topic}\u0000${partition}`;
    const window = this.windows.get(key);
    if (window && from >= window.from && from < window.next) {
      this.figures.fromMemory++;
      return Promise.resolve(slice(window, from, max));
    }
    const readKey = `${key}\u0000${from}\u0000${max}`;
    const shared = this.reading.get(readKey);
    if (shared) {
      this.figures.fromMemory++;
      return shared;
    }
    this.figures.fromLog++;
    const read = this.source(topic, partition, from, end, max)
      .then((result) => {
        this.keep(key, from, result);
        return result;
      })
      .finally(() => this.reading.delete(readKey));
    this.reading.set(readKey, read);
    return read;
  };

  /** Adds a read's records to the partition's window where they touch it; a newer run apart from it replaces it. */
  private keep(key: string, from: number, { messages, next }: Read): void {
    let window = this.windows.get(key);
    if (!window || from > window.next) {
      window = { from, next, messages: [...messages] };
      this.windows.set(key, window);
    } else if (next >= window.from) {
      const { from: keptFrom, next: keptNext } = window;
      window.messages = [
        ...messages.filter((m) => m.offset < keptFrom),
        ...window.messages,
        ...messages.filter((m) => m.offset >= keptNext),
      ];
      window.from = Math.min(from, keptFrom);
      window.next = Math.max(next, keptNext);
    } else return;
    if (window.messages.length > this.capacity) {
      window.messages = window.messages.slice(-this.capacity);
      window.from = window.messages[0]!.offset;
    }
    // What the window holds is read by many: its decoding and presentation are done once (memo.ts).
    for (const message of window.messages) share(message);
  }
}

/** Up to `max` of the window's records from `from` on, and the position after them. */
function slice(window: Window, from: number, max: number): Read {
  const { messages } = window;
  let low = 0;
  let high = messages.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (messages[middle]!.offset < from) low = middle + 1;
    else high = middle;
  }
  const taken = messages.slice(low, low + max);
  return { messages: taken, next: taken.length === max ? taken.at(-1)!.offset + 1 : window.next };
}
