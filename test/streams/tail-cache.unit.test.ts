/**
 * services/streams/tail-cache.ts: the newest records shared by the subscriptions at the log's end. Whatever
 * the order of appends and reads, every read answers what the log holds from its position on, skipping and adding nothing (the log
 * here is an array with gaps in its positions, as a Kafka partition has at transaction markers), and
 * reads at the end go to the log once however many subscriptions ask.
 */
import type { LogMessage } from '../../services/ports/event-log.js';
import type { RecordReader } from '../../services/streams/subscription.js';
import { TailCache } from '../../services/streams/tail-cache.js';

/** A partition in memory; `read` answers as the event log's reader does (subscription.ts, logReader). */
function memoryLog() {
  const records: LogMessage[] = [];
  let end = 0;
  let reads = 0;
  const read: RecordReader = async (_topic, _partition, from, _end, max) => {
    reads++;
    await Promise.resolve();
    const messages = records.filter((m) => m.offset >= from).slice(0, max);
    return { messages, next: messages.length > 0 ? messages.at(-1)!.offset + 1 : from };
  };
  const append = (count: number, gap: number) => {
    end += gap;
    for (let i = 0; i < count; i++) {
      records.push({
        topic: 't',
        partition: 0,
        offset: end,
        key: null,
        value: Buffer.from(String(end)),
        headers: {},
        timestamp: end,
      } as unknown as LogMessage);
      end++;
    }
  };
  const between = (from: number, to: number) => records.filter((m) => m.offset >= from && m.offset < to);
  return { read, append, between, end: () => end, reads: () => reads };
}

/** A seeded generator (mulberry32), so a failure replays. */
function random(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

test.each([1, 2, 3, 4, 5])(
  'seed %i: 2,000 random appends and reads (subscribers at the end, behind it, replaying) answer what the log holds',
  async (seed) => {
    const log = memoryLog();
    const cache = new TailCache(log.read, 16);
    const next = random(seed);
    const subscribers = Array.from({ length: 6 }, () => 0);
    for (let step = 0; step < 2000; step++) {
      if (next(8) === 0) log.append(1 + next(6), next(4) === 0 ? 1 + next(2) : 0);
      const who = next(subscribers.length);
      // Now and then a subscriber replays from an old position (a resumed cursor).
      if (next(40) === 0) subscribers[who] = Math.max(0, log.end() - next(60));
      const from = subscribers[who]!;
      // A subscription reads only when the log's end is past it (subscription.ts, nextWithBacklog).
      if (from >= log.end()) continue;
      const max = 1 + next(8);
      const cached = await cache.read('t', 0, from, log.end(), max);
      // What the log holds in [from, next) is exactly what was answered: nothing skipped, nothing added.
      expect(cached.messages).toEqual(log.between(from, cached.next));
      expect(cached.messages.length).toBeLessThanOrEqual(max);
      // It moves whenever the log has a record past `from` (a read from the window may end at the window's end).
      if (log.between(from, log.end()).length > 0) expect(cached.messages.length).toBeGreaterThan(0);
      subscribers[who] = cached.next;
    }
    // Most subscribers read what the first at the end read already.
    expect(cache.figures.fromMemory).toBeGreaterThan(cache.figures.fromLog / 2);
  },
);

test('200 subscriptions asking for the same position at once read the log once; the next reads come from memory', async () => {
  const log = memoryLog();
  log.append(5, 0);
  const cache = new TailCache(log.read, 100);
  const before = log.reads();
  const answers = await Promise.all(Array.from({ length: 200 }, () => cache.read('t', 0, 0, 5, 500)));
  expect(log.reads() - before).toBe(1);
  for (const answer of answers) expect(answer.messages.map((m) => m.offset)).toEqual([0, 1, 2, 3, 4]);
  expect(await cache.read('t', 0, 3, 5, 500)).toEqual({ messages: answers[0]!.messages.slice(3), next: 5 });
  expect(log.reads() - before).toBe(1);
  // Past the window's end is a new read of the log, once.
  log.append(2, 0);
  await Promise.all(Array.from({ length: 50 }, () => cache.read('t', 0, 5, 7, 500)));
  expect(log.reads() - before).toBe(2);
});

test('only the newest `capacity` records are kept: a position older than them is read from the log', async () => {
  const log = memoryLog();
  const cache = new TailCache(log.read, 10);
  for (let i = 0; i < 5; i++) {
    log.append(10, 0);
    await cache.read('t', 0, i * 10, log.end(), 500);
  }
  const reads = log.reads();
  expect((await cache.read('t', 0, 45, 50, 500)).messages.map((m) => m.offset)).toEqual([45, 46, 47, 48, 49]);
  expect(log.reads()).toBe(reads);
  expect((await cache.read('t', 0, 35, 50, 3)).messages.map((m) => m.offset)).toEqual([35, 36, 37]);
  expect(log.reads()).toBe(reads + 1);
});
