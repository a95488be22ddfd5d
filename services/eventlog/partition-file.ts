/**
 * One topic-partition: an append-only file of frames (see record-codec) plus an in-memory index of
 * the byte position of every offset. The offset of a record is its ordinal in the file.
 *
 * Concurrency model:
 * - in this process, appends are queued and written in groups (one write + one fsync for every
 *   produce call that arrived while the previous group was being flushed);
 * - other processes may append to the same file: every append is a single O_APPEND write, and
 *   `refresh()` indexes frames that appeared on disk, stopping at a frame that is not complete yet;
 * - only `open` repairs a torn tail (truncates it), so a directory must not be opened while another
 *   process is in the middle of appending. After a crash that is exactly the case to repair.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { DurabilityOptions } from './atomic-file.js';
import { decodeFrames, scanFrames, type EncodedFrames, type StoredRecord } from './record-codec.js';

/** Bytes read per step while indexing; a frame larger than this is read in one larger step. */
const SCAN_CHUNK_BYTES = 4 * 1024 * 1024;
/** Cap on the bytes of one read batch (like Kafka's max.partition.fetch.bytes); at least one record is returned. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;

export interface TruncatedTail {
  path: string;
  /** Bytes kept: the end of the last intact frame. */
  validBytes: number;
  /** Bytes of torn or corrupt data cut off the end. */
  discardedBytes: number;
}

export interface PartitionFileOptions extends DurabilityOptions {
  onTruncatedTail?: (tail: TruncatedTail) => void;
}

interface PendingAppend {
  frames: EncodedFrames;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class PartitionFile {
  /** Byte position of each offset's frame. */
  private readonly frameStarts: number[] = [];
  /** End of the last indexed frame; everything before it is valid and durable. */
  private indexedBytes = 0;
  private pendingAppends: PendingAppend[] = [];
  private flushing: Promise<void> | null = null;
  /** Set when a write or fsync failed: the file may hold a torn frame, so no further append is safe until reopened. */
  private failure: Error | null = null;
  /** Serializes everything that moves `indexedBytes` (appends and refreshes). */
  private indexMutation: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    private readonly options: PartitionFileOptions,
  ) {}

  /** Opens (creating if missing) and indexes the file, truncating a torn or corrupt tail. */
  static async open(path: string, options: PartitionFileOptions): Promise<PartitionFile> {
    // a+: appends always go to the end (O_APPEND) while positional reads still work.
    const handle = await open(path, 'a+');
    try {
      const file = new PartitionFile(path, handle, options);
      const { size } = await handle.stat();
      await file.indexUpTo(size);
      if (file.indexedBytes < size) {
        await handle.truncate(file.indexedBytes);
        if (options.fsync) await handle.sync();
        options.onTruncatedTail?.({ path, validBytes: file.indexedBytes, discardedBytes: size - file.indexedBytes });
      }
      return file;
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** The offset the next appended record gets, as far as this process has indexed. */
  get endOffset(): number {
    return this.frameStarts.length;
  }

  /** Resolves once the frames are written and (unless fsync is off) flushed to disk. */
  append(frames: EncodedFrames): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`partition file ${this.path} is closed`));
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pendingAppends.push({ frames, resolve, reject });
      this.flushing ??= this.flushPendingAppends();
    });
  }

  /** Indexes frames other processes appended since the last look. Never truncates. */
  refresh(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return this.mutateIndex(async () => {
      const { size } = await this.handle.stat();
      if (size > this.indexedBytes) await this.indexUpTo(size);
    });
  }

  /** Reads up to `maxCount` consecutive records from `fromOffset` with a single file read. */
  async read(fromOffset: number, maxCount: number): Promise<StoredRecord[]> {
    const available = this.frameStarts.length;
    if (fromOffset < 0 || fromOffset >= available || maxCount < 1) return [];
    const startByte = this.frameStarts[fromOffset]!;
    const byteAfter = (offset: number) => (offset < available ? this.frameStarts[offset]! : this.indexedBytes);
    let endOffset = Math.min(available, fromOffset + maxCount);
    // Shrink to the byte cap, keeping at least one record (a single huge record must still be readable).
    while (endOffset > fromOffset + 1 && byteAfter(endOffset) - startByte > MAX_BATCH_BYTES) {
      endOffset = Math.max(fromOffset + 1, Math.floor((fromOffset + endOffset) / 2));
    }
    const bytes = await this.readBytes(startByte, byteAfter(endOffset) - startByte);
    return decodeFrames(bytes, endOffset - fromOffset);
  }

  /** Waits for queued appends, then releases the file handle. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.flushing) await this.flushing;
    await this.indexMutation;
    await this.handle.close();
  }

  private async flushPendingAppends(): Promise<void> {
    while (this.pendingAppends.length > 0) {
      const group = this.pendingAppends;
      this.pendingAppends = [];
      try {
        await this.mutateIndex(() => this.writeGroup(group.map((pending) => pending.frames)));
        for (const pending of group) pending.resolve();
      } catch (error) {
        for (const pending of group) pending.reject(error);
      }
    }
    // No await between the loop test and here, so no append can slip in unflushed.
    this.flushing = null;
  }

  private async writeGroup(groupFrames: EncodedFrames[]): Promise<void> {
    if (this.failure) throw this.failure;
    const bytes = groupFrames.length === 1 ? groupFrames[0]!.bytes : Buffer.concat(groupFrames.map((f) => f.bytes));
    try {
      // One write call: with O_APPEND the kernel places it atomically after other writers' appends.
      const { bytesWritten } = await this.handle.write(bytes, 0, bytes.length, null);
      if (bytesWritten !== bytes.length) throw new Error(`short write: ${bytesWritten} of ${bytes.length} bytes`);
      if (this.options.fsync) await this.handle.datasync();
    } catch (error) {
      this.failure = new Error(`append to ${this.path} failed; reopen the log to repair the file`, { cause: error });
      throw this.failure;
    }
    const { size } = await this.handle.stat();
    if (size === this.indexedBytes + bytes.length) {
      // Nobody else appended: our frames sit right after the indexed end.
      let position = this.indexedBytes;
      for (const frames of groupFrames) {
        for (const frameLength of frames.frameLengths) {
          this.frameStarts.push(position);
          position += frameLength;
        }
      }
      this.indexedBytes = position;
    } else {
      // Another process appended around our write; re-derive positions from the file.
      await this.indexUpTo(size);
    }
  }

  private mutateIndex<T>(task: () => Promise<T>): Promise<T> {
    const run = this.indexMutation.then(task);
    this.indexMutation = run.catch(() => undefined);
    return run;
  }

  /** Indexes complete, checksum-valid frames from `indexedBytes` up to at most `fileSize`. */
  private async indexUpTo(fileSize: number): Promise<void> {
    let chunkBytes = SCAN_CHUNK_BYTES;
    while (this.indexedBytes < fileSize) {
      const chunk = await this.readBytes(this.indexedBytes, Math.min(chunkBytes, fileSize - this.indexedBytes));
      const scan = scanFrames(chunk);
      for (const start of scan.frameStarts) this.frameStarts.push(this.indexedBytes + start);
      this.indexedBytes += scan.validBytes;
      if (scan.stop === 'corrupt' || chunk.length === 0) return;
      if (scan.stop === 'incomplete') {
        // Either a frame still being written / torn by a crash (it reaches past the file end)...
        if (this.indexedBytes + scan.frameBytes > fileSize) return;
        // ...or just one that straddles the chunk boundary or is larger than a chunk.
        chunkBytes = Math.max(chunkBytes, scan.frameBytes);
      }
    }
  }

  private async readBytes(position: number, length: number): Promise<Buffer> {
    const buffer = Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await this.handle.read(buffer, filled, length - filled, position + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return filled === length ? buffer : buffer.subarray(0, filled);
  }
}
