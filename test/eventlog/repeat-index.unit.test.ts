/**
 * services/eventlog/repeat-index.ts: a record whose event_id an earlier held record of its partition has
 * is dropped, whatever the order of reads and however many readers ask at once; `held` answers which
 * ids the log holds. Compared with a truth computed here by scanning the log.
 */
import { type LogMessage, OffsetOutOfRangeError } from '../../services/ports/event-log.js';
import { RepeatIndex } from '../../services/eventlog/repeat-index.js';
import type { RecordReader } from '../../services/streams/subscription.js';

const TOPIC = 'tapeline.trades.v1';

/** One partition in memory, answering as the event log's reader does; `start` is where retention left it. */
function memoryLog(ids: Array<string | undefined>) {
  const records = ids.map(
    (id, offset) =>
      ({
        topic: TOPIC,
        partition: 0,
        offset,
        key: '',
        value: Buffer.alloc(0),
        headers: id === undefined ? {} : { event_id: id },
        timestamp: 0,
      }) as LogMessage,
  );
  const state = { start: 0, reads: 0 };
  const read: RecordReader = async (topic, partition, from, _end, max) => {
    state.reads++;
    await Promise.resolve();
    if (from < state.start) throw new OffsetOutOfRangeError(`${topic}/${partition}`, from, state.start);
    const messages = records.filter((m) => m.offset >= from).slice(0, max);
    return { messages, next: messages.length > 0 ? messages.at(-1)!.offset + 1 : from };
  };
  return { read, records, state };
}

/** The truth: offsets from `start` on whose id no earlier record from `start` on has. */
function firstCopies(ids: Array<string | undefined>, start = 0): number[] {
  const seen = new Set<string>();
  const kept: number[] = [];
  ids.forEach((id, offset) => {
    if (offset < start) return;
    if (id === undefined || !seen.has(id)) kept.push(offset);
    if (id !== undefined) seen.add(id);
  });
  return kept;
}

/** Reads the whole partition through the index, `batch` records at a time, from `from`. */
async function readAll(reader: RecordReader, from: number, end: number, batch: number): Promise<number[]> {
  const offsets: number[] = [];
  for (let position = from; position < end; ) {
    const { messages, next } = await reader(TOPIC, 0, position, end, batch);
    offsets.push(...messages.map((m) => m.offset));
    position = next;
  }
  return offsets;
}

/** 5,000 records over 1,500 ids, repeats up to 4,000 records apart, some without an id. */
function feed(): Array<string | undefined> {
  return Array.from({ length: 5000 }, (_, i) => (i % 97 === 0 ? undefined : `trade-${(i * 7919) % 1500}`));
}

test('each trade is sent once, from any position, read in any batch size', async () => {
  const ids = feed();
  const log = memoryLog(ids);
  const index = new RepeatIndex(log.read, async () => log.state.start, new Set([TOPIC]));
  const truth = firstCopies(ids);
  expect(truth.length).toBeLessThan(ids.length / 2);
  expect(await readAll(index.reader, 0, ids.length, 333)).toEqual(truth);
  // A resumed reader (another subscription) gets the same verdicts from the same index.
  expect(await readAll(index.reader, 2500, ids.length, 1000)).toEqual(truth.filter((o) => o >= 2500));
  expect(index.figures.repeats).toBe(ids.length - truth.length);
});

test('a fresh index asked in the middle first indexes the records before: the verdict is the same as from the start', async () => {
  const ids = feed();
  const log = memoryLog(ids);
  const index = new RepeatIndex(log.read, async () => 0, new Set([TOPIC]));
  expect(await readAll(index.reader, 4000, ids.length, 500)).toEqual(firstCopies(ids).filter((o) => o >= 4000));
});

test('readers asking at once share the index: it reads the partition once', async () => {
  const ids = feed();
  const log = memoryLog(ids);
  const index = new RepeatIndex(log.read, async () => 0, new Set([TOPIC]));
  const results = await Promise.all(Array.from({ length: 20 }, () => index.reader(TOPIC, 0, 4900, ids.length, 100)));
  const readsBy20 = log.state.reads;
  const single = memoryLog(ids);
  await new RepeatIndex(single.read, async () => 0, new Set([TOPIC])).reader(TOPIC, 0, 4900, ids.length, 100);
  // Each reader's own read, plus one build of the index (the same reads as a single reader's).
  expect(readsBy20).toBe(single.state.reads + 19);
  for (const result of results) expect(result.messages.map((m) => m.offset)).toEqual(firstCopies(ids).filter((o) => o >= 4900));
});

test('other topics pass through untouched', async () => {
  const ids = ['a', 'a', 'a'];
  const log = memoryLog(ids);
  const index = new RepeatIndex(log.read, async () => 0, new Set(['another.topic']));
  expect(await readAll(index.reader, 0, 3, 10)).toEqual([0, 1, 2]);
});

test('after retention deleted the first copies, a repeat of a deleted record is sent again; the index drops what it deleted', async () => {
  // 260,000 records, ids repeating 150,000 records apart; past PRUNE_EVERY records indexed, the index prunes.
  const ids = Array.from({ length: 260_000 }, (_, i) => `t-${i % 150_000}`);
  const log = memoryLog(ids);
  const index = new RepeatIndex(log.read, async () => log.state.start, new Set([TOPIC]));
  expect(await readAll(index.reader, 0, 100_000, 5_000)).toEqual(firstCopies(ids).filter((o) => o < 100_000));
  log.state.start = 140_000;
  const after = await readAll(index.reader, 140_000, ids.length, 5_000);
  // From offset 150,000 on, ids repeat those of 0..110,000: held from 140,000 on are only 140,000..149,999.
  expect(after).toEqual(firstCopies(ids, 140_000));
  expect(index.ids).toBeLessThanOrEqual(260_000 - 140_000);
});

test('held: the ids some held record of their partition has, after reading the partition to its end', async () => {
  const ids = feed();
  const log = memoryLog(ids);
  const index = new RepeatIndex(log.read, async () => log.state.start, new Set([TOPIC]));
  const asked = ['trade-0', 'trade-1499', 'trade-1500', 'never'].map((id) => ({ partition: 0, id }));
  // trade-1500 is not in the feed (ids run 0..1499): appended later, it is held from then on.
  expect([...(await index.held(TOPIC, asked))].sort()).toEqual(['trade-0', 'trade-1499']);
  log.records.push({ ...log.records[1]!, offset: log.records.length, headers: { event_id: 'trade-1500' } });
  expect([...(await index.held(TOPIC, asked))].sort()).toEqual(['trade-0', 'trade-1499', 'trade-1500']);
  // Retention deleted every record: an index read afterwards (a restarted ingest) finds nothing held.
  log.state.start = log.records.length;
  const restarted = new RepeatIndex(log.read, async () => log.state.start, new Set([TOPIC]));
  expect(await restarted.held(TOPIC, asked)).toEqual(new Set());
});
