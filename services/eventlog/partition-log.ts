/**
 * One topic-partition as a run of segment files, each a PartitionFile holding consecutive offsets:
 *
 *   <topic>/<partition>.log                     the first segment (base offset 0; the whole partition
 *                                               in logs written before segments existed, read as is)
 *   <topic>/<partition>.<base offset>.log       later segments, the base offset 20 digits wide
 *
 * Appends go to the newest segment; once it holds `segmentBytes` a new one starts at the current end
 * offset (the segment may overshoot by one group of appends). Retention deletes whole segments from
 * the oldest, never the newest, so offsets never move: a record keeps its offset for as long as it
 * exists, and reading below the first kept offset is an OffsetOutOfRangeError naming where the log
 * now starts.
 *
 * Segments roll in the process appending to the partition; the service holds DATA_DIR's lock, so it
 * is the only one. A second process reading the same directory finds segments it has not seen on
 * `refresh()`.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fsyncDirectory } from './atomic-file.js';
import { PartitionFile, type PartitionFileOptions } from './partition-file.js';
import type { EncodedFrames, StoredRecord } from './record-codec.js';
import { OffsetOutOfRangeError } from '../ports/event-log.js';

/** A read below the first offset the partition still holds (retention deleted it): the port's error. */
export { OffsetOutOfRangeError };

export interface Segment {
  baseOffset: number;
  file: PartitionFile;
}

export interface PartitionLogOptions extends PartitionFileOptions {
  /** A segment this large (bytes) is closed to appends and a new one started. */
  segmentBytes: number;
}

const SEGMENT_NAME = /^(\d+)\.(\d{20})\.log$/;

export class PartitionLog {
  private segments: Segment[];
  private rolling: Promise<void> | null = null;
  private closed = false;

  private constructor(
    /** The first segment's path (`<partition>.log`), the partition's name in messages. */
    readonly path: string,
    private readonly partition: number,
    segments: Segment[],
    private readonly options: PartitionLogOptions,
  ) {
    this.segments = segments;
  }

  /** Opens every segment of the partition (creating the first when there is none), repairing torn tails. */
  static async open(directory: string, partition: number, options: PartitionLogOptions): Promise<PartitionLog> {
    const firstPath = join(directory, `${partition}.log`);
    const bases = await segmentBases(directory, partition);
    const segments: Segment[] = [];
    try {
      // The first segment exists until retention deletes it; a partition with no later segment needs it.
      if (bases.length === 0 || (await exists(firstPath))) {
        segments.push({ baseOffset: 0, file: await PartitionFile.open(firstPath, options) });
      }
      for (const base of bases)
        segments.push({ baseOffset: base, file: await PartitionFile.open(segmentPath(directory, partition, base), options) });
    } catch (error) {
      await Promise.all(segments.map((s) => s.file.close()));
      throw error;
    }
    return new PartitionLog(firstPath, partition, segments, options);
  }

  /** The first offset still held. */
  get startOffset(): number {
    return this.segments[0]!.baseOffset;
  }

  /** The offset the next appended record gets, as far as this process has indexed. */
  get endOffset(): number {
    const active = this.active;
    return active.baseOffset + active.file.endOffset;
  }

  /** Bytes held by every segment. */
  get sizeBytes(): number {
    return this.segments.reduce((sum, s) => sum + s.file.sizeBytes, 0);
  }

  /** The segments, oldest first (the last one takes appends). */
  get segmentList(): readonly Segment[] {
    return this.segments;
  }

  append(frames: EncodedFrames): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`partition ${this.path} is closed`));
    if (this.rolling) return this.rolling.then(() => this.append(frames));
    const active = this.active;
    if (active.file.sizeBytes >= this.options.segmentBytes && active.file.endOffset > 0) {
      this.rolling = this.roll().finally(() => {
        this.rolling = null;
      });
      return this.rolling.then(() => this.append(frames));
    }
    return active.file.append(frames);
  }

  /** Indexes what other processes appended, including segments they started. */
  async refresh(): Promise<void> {
    if (this.closed) return;
    // A roll in progress has created its file but not listed it yet: wait, so it is not taken for another process's.
    while (this.rolling) await this.rolling;
    const directory = dirname(this.path);
    for (const base of await segmentBases(directory, this.partition)) {
      if (base > this.active.baseOffset && !this.segments.some((s) => s.baseOffset === base)) {
        await this.active.file.refresh();
        await this.adopt(base, await PartitionFile.open(segmentPath(directory, this.partition, base), this.options));
      }
    }
    await this.active.file.refresh();
  }

  /** Up to `maxCount` consecutive records from `fromOffset`, within the segment holding it. */
  async read(fromOffset: number, maxCount: number): Promise<StoredRecord[]> {
    if (fromOffset < this.startOffset) throw new OffsetOutOfRangeError(this.path, fromOffset, this.startOffset);
    for (let i = this.segments.length - 1; i >= 0; i--) {
      const segment = this.segments[i]!;
      if (fromOffset >= segment.baseOffset) return segment.file.read(fromOffset - segment.baseOffset, maxCount);
    }
    return [];
  }

  /**
   * Deletes the `count` oldest segments (never the one taking appends). The caller decides which
   * may go (services/eventlog/retention.ts).
   */
  async deleteOldest(count: number): Promise<Segment[]> {
    const removable = Math.min(count, this.segments.length - 1);
    if (removable <= 0) return [];
    const removed = this.segments.slice(0, removable);
    // Readers see the new start before the files go, so none reads a closed handle.
    this.segments = this.segments.slice(removable);
    for (const segment of removed) {
      await segment.file.close();
      await rm(segment.file.path, { force: true });
    }
    if (this.options.fsync) await fsyncDirectory(dirname(this.path));
    return removed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.rolling) await this.rolling;
    await Promise.all(this.segments.map((s) => s.file.close()));
  }

  private get active(): Segment {
    return this.segments.at(-1)!;
  }

  private async roll(): Promise<void> {
    const active = this.active;
    await active.file.idle();
    const base = active.baseOffset + active.file.endOffset;
    const path = segmentPath(dirname(this.path), this.partition, base);
    const file = await PartitionFile.open(path, this.options);
    if (this.options.fsync) await fsyncDirectory(dirname(this.path));
    await this.adopt(base, file);
  }

  /** Lists a segment once, however many paths found it (a handle opened twice is closed). */
  private async adopt(base: number, file: PartitionFile): Promise<void> {
    if (this.segments.some((s) => s.baseOffset === base) || base <= this.active.baseOffset) {
      await file.close();
      return;
    }
    this.segments.push({ baseOffset: base, file });
  }
}

/** When a segment was last appended to (its newest record is at most this old). */
export async function lastWrittenMs(segment: Segment): Promise<number> {
  return (await stat(segment.file.path)).mtimeMs;
}

function segmentPath(directory: string, partition: number, base: number): string {
  return join(directory, `${partition}.${String(base).padStart(20, '0')}.log`);
}

async function segmentBases(directory: string, partition: number): Promise<number[]> {
  const bases: number[] = [];
  for (const name of await readdir(directory)) {
    const match = SEGMENT_NAME.exec(basename(name));
    if (match && Number(match[1]) === partition) bases.push(Number(match[2]));
  }
  return bases.sort((a, b) => a - b);
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
