/**
 * What the file log cuts and what it keeps: damage followed by valid records is not a torn tail and
 * is never truncated (a record with an intact length keeps its offset and reads back flagged
 * undecodable; a broken length refuses to open); a failed append (disk full) is rolled back before
 * the next one, so the log keeps working without a restart and holds exactly the acknowledged records.
 */
import { open, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { openFileEventLog, type TruncatedTail } from '../../services/eventlog/file-log.js';
import { CorruptLogError } from '../../services/eventlog/partition-file.js';
import { FRAME_HEADER_BYTES } from '../../services/eventlog/record-codec.js';
import { type EventLog, type LogMessage, UNDECODABLE_HEADER } from '../../services/ports/event-log.js';
import { readAll } from './helpers.js';

let directory: string;
const opened: EventLog[] = [];
const truncated: TruncatedTail[] = [];
const corrupt: Array<{ offset: number }> = [];

async function openLog(): Promise<EventLog> {
  const log = await openFileEventLog({
    directory,
    pollIntervalMs: 50,
    onTruncatedTail: (tail) => truncated.push(tail),
    onCorruptRecord: (record) => corrupt.push(record),
  });
  opened.push(log);
  return log;
}
const file = () => join(directory, 'topics', 'trades', '0.log');
const text = (m: LogMessage) => m.value.toString();

/** Writes ten records, returns each frame's start byte. */
async function tenRecords(): Promise<number[]> {
  const log = await openLog();
  await log.createTopics([{ name: 'trades', partitions: 1 }]);
  for (let i = 0; i < 10; i++) await log.produce('trades', [{ key: 'm', value: Buffer.from(`trade-${i}`) }]);
  await log.close();
  const bytes = await readFile(file());
  const starts: number[] = [];
  for (let at = 0; at < bytes.length; at += FRAME_HEADER_BYTES + bytes.readUInt32BE(at)) starts.push(at);
  return starts;
}

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'tapeline-log-damage-'));
  truncated.length = 0;
  corrupt.length = 0;
});
afterEach(async () => {
  jest.restoreAllMocks();
  await Promise.all(opened.splice(0).map((log) => log.close()));
  await rm(directory, { recursive: true, force: true });
});

test('a damaged record followed by valid ones keeps its offset, reads back flagged undecodable, and nothing is cut', async () => {
  const starts = await tenRecords();
  const before = (await stat(file())).size;
  const bytes = await readFile(file());
  bytes[starts[5]! + FRAME_HEADER_BYTES + 3]! ^= 0xff; // one bit-rotted byte inside record 5's payload
  await writeFile(file(), bytes);

  const log = await openLog();
  expect(truncated).toEqual([]);
  expect(corrupt).toMatchObject([{ offset: 5 }]);
  expect((await stat(file())).size).toBe(before);
  const messages = await readAll(log, 'trades');
  expect(messages.map((m) => m.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  expect(messages[5]!.headers[UNDECODABLE_HEADER]).toMatch(/damaged record .* offset 5/);
  expect(messages.filter((m) => m.offset !== 5).map(text)).toEqual([0, 1, 2, 3, 4, 6, 7, 8, 9].map((i) => `trade-${i}`));
  await log.produce('trades', [{ key: 'm', value: Buffer.from('after') }]);
  expect((await readAll(log, 'trades')).at(-1)).toMatchObject({ offset: 10 });
});

test('a damaged length with valid records after it refuses to open, and the file is left as it was', async () => {
  const starts = await tenRecords();
  const bytes = await readFile(file());
  bytes.writeUInt32BE(0x7fff_ffff, starts[4]!);
  await writeFile(file(), bytes);
  await expect(openLog()).rejects.toBeInstanceOf(CorruptLogError);
  await expect(openLog()).rejects.toThrow(/damaged at byte \d+ and holds valid records after/);
  expect(await readFile(file())).toEqual(bytes);
  expect(truncated).toEqual([]);
});

test('a torn tail (nothing valid after it) is still cut, and reported', async () => {
  await tenRecords();
  const before = (await stat(file())).size;
  const handle = await open(file(), 'a');
  await handle.write(Buffer.from([0, 0, 0, 40, 1, 2, 3]));
  await handle.close();
  const log = await openLog();
  expect(truncated).toEqual([{ path: file(), validBytes: before, discardedBytes: 7 }]);
  expect((await readAll(log, 'trades')).map(text)).toEqual(Array.from({ length: 10 }, (_, i) => `trade-${i}`));
});

test('a disk-full append is rolled back before the next append; the log keeps working without a reopen', async () => {
  const log = await openLog();
  await log.createTopics([{ name: 'trades', partitions: 1 }]);
  await log.produce('trades', [{ key: 'm', value: Buffer.from('first') }]);
  const acknowledgedBytes = (await stat(file())).size;
  // The next write puts half its bytes on disk, then the disk is full.
  const probe = await open(join(directory, 'probe'), 'w');
  const prototype = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<{ bytesWritten: number }> };
  await probe.close();
  const realWrite = prototype.write;
  jest.spyOn(prototype, 'write').mockImplementationOnce(async function (this: unknown, ...args: unknown[]) {
    const [buffer, offset, length, position] = args as [Buffer, number, number, number | null];
    await realWrite.call(this, buffer, offset, Math.floor(length / 2), position);
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  });
  await expect(log.produce('trades', [{ key: 'm', value: Buffer.from('lost to a full disk') }])).rejects.toThrow(/ENOSPC/);
  expect((await stat(file())).size).toBeGreaterThan(acknowledgedBytes);

  await log.produce('trades', [{ key: 'm', value: Buffer.from('after the disk had room again') }]);
  expect((await readAll(log, 'trades')).map(text)).toEqual(['first', 'after the disk had room again']);
  await log.close();
  const reopened = await openLog();
  expect(truncated).toEqual([]);
  expect((await readAll(reopened, 'trades')).map((m) => [m.offset, text(m)])).toEqual([
    [0, 'first'],
    [1, 'after the disk had room again'],
  ]);
});
