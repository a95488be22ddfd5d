/**
 * Retention of the embedded file log (issue 59 M3): partitions roll into segments, whole segments
 * past the retention go once every consumer group has committed past them, a group that has not is
 * only overtaken past the hard byte cap (and told), a log written as one file per partition is still
 * read, and a restart neither loses nor repeats a record.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FileEventLog, type FileEventLogOptions, OffsetOutOfRangeError, openFileEventLog } from '../../services/eventlog/file-log.js';
import { eventLogFigures } from '../../api/routes/health.js';
import { encodeFrames } from '../../services/eventlog/record-codec.js';
import { sinkLag } from '../../services/sink/sink-service.js';
import { type LogMessage, OffsetOutOfRangeError as PortOffsetOutOfRangeError } from '../../services/ports/event-log.js';
import { waitFor } from './helpers.js';

const TOPIC = 'retained';
let directory: string;
const opened: FileEventLog[] = [];

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'tapeline-retention-'));
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((log) => log.close()));
  await rm(directory, { recursive: true, force: true });
});

async function open(options: Partial<FileEventLogOptions> = {}): Promise<FileEventLog> {
  const log = await openFileEventLog({ directory, fsync: false, pollIntervalMs: 20, retentionCheckMs: 0, segmentBytes: 4_096, ...options });
  opened.push(log);
  return log;
}

const message = (i: number) => ({
  key: 'k',
  value: Buffer.from(`record-${String(i).padStart(5, '0')}-${'x'.repeat(150)}`),
  timestamp: 1_000 + i,
});

async function produce(log: FileEventLog, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i += 10) {
    await log.produce(
      TOPIC,
      Array.from({ length: Math.min(10, to - i) }, (_, j) => message(i + j)),
    );
  }
}

const ENOUGH = new Error('enough for this test');

/** Consumes with `groupId` until `count` messages arrived (a batch past them is refused, so not committed), then stops. */
async function consume(log: FileEventLog, groupId: string, count: number, errors: unknown[] = []): Promise<LogMessage[]> {
  const seen: LogMessage[] = [];
  const consumer = await log.runConsumer({
    groupId,
    topics: [TOPIC],
    maxBatchSize: 10,
    handleBatch: async (batch) => {
      if (seen.length >= count) throw ENOUGH;
      seen.push(...batch.messages);
    },
    onError: (error) => {
      if (error !== ENOUGH) errors.push(error);
    },
  });
  await waitFor(`${count} messages for ${groupId}`, () => seen.length >= count, 10_000);
  await consumer.stop();
  return seen;
}

const indexOf = (m: LogMessage) => Number(m.value.toString('utf8').slice('record-'.length, 'record-'.length + 5));

async function segmentFiles(): Promise<string[]> {
  return (await readdir(join(directory, 'topics', TOPIC))).filter((name) => name.endsWith('.log')).sort();
}

test('a partition rolls into segments; retention deletes only what every group committed past; a restart loses and repeats nothing', async () => {
  let log = await open({ retention: { retentionMs: 0 } });
  await log.createTopics([{ name: TOPIC, partitions: 1 }]);
  await produce(log, 0, 300);
  expect((await segmentFiles()).length).toBeGreaterThan(5);

  const fast = await consume(log, 'fast', 300);
  const slow = await consume(log, 'slow', 100);
  expect(fast.map(indexOf)).toEqual(Array.from({ length: 300 }, (_, i) => i));
  expect(slow.map(indexOf)).toEqual(Array.from({ length: 100 }, (_, i) => i));

  const before = await segmentFiles();
  await log.enforceRetention();
  const storage = await log.storage();
  const [topic] = storage.topics.filter((t) => t.topic === TOPIC);
  // Everything is past retention.ms = 0, but the slow group has read only offsets 0-99.
  expect(topic!.startOffset).toBeGreaterThan(0);
  expect(topic!.startOffset).toBeLessThanOrEqual(100);
  expect(storage.deletedSegments).toBeGreaterThan(0);
  expect(storage.lostRecordsByGroup).toEqual({});
  expect((await segmentFiles()).length).toBe(before.length - storage.deletedSegments);
  expect(before).toContain('0.log');
  expect(await segmentFiles()).not.toContain('0.log');

  // Restart: the slow group goes on exactly where it committed.
  await log.close();
  log = await open({ retention: { retentionMs: 0 } });
  await produce(log, 300, 320);
  const rest = await consume(log, 'slow', 220);
  expect(rest.map(indexOf)).toEqual(Array.from({ length: 220 }, (_, i) => 100 + i));
  expect(rest.map((m) => m.offset)).toEqual(Array.from({ length: 220 }, (_, i) => 100 + i));

  // With every group caught up, only the segment taking appends is left after another pass.
  await consume(log, 'fast', 20);
  await log.enforceRetention();
  expect((await log.storage()).topics.find((t) => t.topic === TOPIC)!.startOffset).toBeGreaterThan(100);
  // A new group reading from the beginning starts at the first record still held.
  const fresh = await consume(log, 'fresh', 1);
  expect(fresh[0]!.offset).toBe((await log.storage()).topics.find((t) => t.topic === TOPIC)!.startOffset);
});

test('segments within retention stay; retention.bytes bounds the partition once groups have read it', async () => {
  const log = await open({ retention: { retentionMs: 3_600_000, retentionBytes: 10_000 } });
  await log.createTopics([{ name: TOPIC, partitions: 1 }]);
  await produce(log, 0, 300);
  await log.enforceRetention();
  // Nobody committed yet, but no group reads it either: retention.bytes alone decides.
  const bytes = (await log.storage()).topics.find((t) => t.topic === TOPIC)!.bytes;
  expect(bytes).toBeLessThanOrEqual(10_000 + 4_096 + 2_000);
  expect(bytes).toBeGreaterThan(0);
});

test('over the hard cap a group that has not read a segment loses it, is told, counted, and resumes at the log start', async () => {
  const lost: unknown[] = [];
  const log = await open({ retention: { retentionMs: null, hardCapBytes: 8_192 }, onRecordsLost: (loss) => lost.push(loss) });
  await log.createTopics([{ name: TOPIC, partitions: 1 }]);
  await produce(log, 0, 200);
  await consume(log, 'stuck', 10);
  await log.enforceRetention();
  const storage = await log.storage();
  const start = storage.topics.find((t) => t.topic === TOPIC)!.startOffset;
  expect(start).toBeGreaterThan(10);
  expect(storage.lostRecordsByGroup).toEqual({ stuck: start - 10 });
  expect(lost).toEqual([{ topic: TOPIC, partition: 0, group: 'stuck', records: start - 10 }]);
  // /v1/health shows the loss and the room left under the cap.
  const health = eventLogFigures(storage);
  expect(health).toMatchObject({ lost_records: { stuck: start - 10 }, hard_cap_bytes: 8_192, retention_ms: null });
  expect(health.headroom_bytes).toBe(Math.max(0, Math.min(storage.freeBytes, 8_192 - storage.bytes)));

  const errors: unknown[] = [];
  const resumed = await consume(log, 'stuck', 200 - start, errors);
  expect(errors[0]).toBeInstanceOf(OffsetOutOfRangeError);
  expect(errors[0]).toMatchObject({ requestedOffset: 10, logStartOffset: start });
  expect(resumed.map((m) => m.offset)).toEqual(Array.from({ length: 200 - start }, (_, i) => start + i));
});

test('lag counts from the first retained record: a group that never committed, or whose position the hard cap deleted, is not owed deleted records', async () => {
  const log = await open({ retention: { retentionMs: null, hardCapBytes: 8_192 } });
  await log.createTopics([{ name: TOPIC, partitions: 1 }]);
  await produce(log, 0, 200);
  await consume(log, 'stuck', 10);
  await log.enforceRetention();
  const start = (await log.storage()).topics.find((t) => t.topic === TOPIC)!.startOffset;
  expect(start).toBeGreaterThan(10);
  // What each group would read next, and the lag /v1/health and /metrics derive from it.
  for (const group of ['never-committed', 'stuck']) {
    expect(await log.positions(group, TOPIC)).toEqual([{ topic: TOPIC, partition: 0, endOffset: 200, committedOffset: start }]);
    expect(await sinkLag(log, [TOPIC], group)).toEqual({ [TOPIC]: 200 - start });
  }
  // A group that never committed and reads from the beginning indeed starts there.
  expect((await consume(log, 'never-committed', 1))[0]!.offset).toBe(start);
});

test('a log written as one file per partition (before segments) is read as is, then rolls on', async () => {
  // What the log wrote before segments: meta.json and one <partition>.log of frames.
  const topicDirectory = join(directory, 'topics', TOPIC);
  await mkdir(topicDirectory, { recursive: true });
  await mkdir(join(directory, 'groups'), { recursive: true });
  await writeFile(
    join(topicDirectory, '0.log'),
    encodeFrames(Array.from({ length: 100 }, (_, i) => ({ ...message(i), headers: {} }))).bytes,
  );
  await writeFile(join(topicDirectory, 'meta.json'), JSON.stringify({ name: TOPIC, partitions: 1 }));
  const log = await open({ retention: { retentionMs: null } });
  await produce(log, 100, 150);
  expect((await segmentFiles()).length).toBeGreaterThan(1);
  const all = await consume(log, 'reader', 150);
  expect(all.map(indexOf)).toEqual(Array.from({ length: 150 }, (_, i) => i));
  expect(all.map((m) => m.offset)).toEqual(Array.from({ length: 150 }, (_, i) => i));
});

test('a consumer refreshing while segments roll lists each segment once (retention then deletes each file once)', async () => {
  const log = await open({ pollIntervalMs: 1, segmentBytes: 2_048, retention: { retentionMs: 0 } });
  await log.createTopics([{ name: TOPIC, partitions: 1 }]);
  const reading = consume(log, 'reader', 600);
  for (let i = 0; i < 600; i += 10) await produce(log, i, i + 10);
  await reading;
  const { segments } = (await log.storage()).topics.find((t) => t.topic === TOPIC)!;
  expect(segments).toBe((await segmentFiles()).length);
  await expect(log.enforceRetention()).resolves.toBeUndefined();
  expect((await log.storage()).topics.find((t) => t.topic === TOPIC)!.segments).toBe((await segmentFiles()).length);
});

test("a group-less read below the first retained offset is the port's OffsetOutOfRangeError naming the new start; from there it reads on", async () => {
  const log = await open({ retention: { retentionMs: null, hardCapBytes: 8_192 } });
  await log.createTopics([{ name: TOPIC, partitions: 1 }]);
  await produce(log, 0, 200);
  await log.enforceRetention();
  const [held] = await log.partitionOffsets(TOPIC);
  expect(held!.startOffset).toBeGreaterThan(0);
  expect(held!.endOffset).toBe(200);
  const error = await log.read(TOPIC, 0, 0, 10).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PortOffsetOutOfRangeError);
  expect(error).toMatchObject({ requestedOffset: 0, logStartOffset: held!.startOffset });
  const first = await log.read(TOPIC, 0, held!.startOffset, 1);
  expect(first.map((m) => m.value.toString().slice(0, 12))).toEqual([`record-${String(held!.startOffset).padStart(5, '0')}`]);
});
