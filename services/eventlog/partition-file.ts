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
 *
 * What opening cuts, and what it does not:
 * - a torn tail (a frame that is incomplete or fails its checksum, with no valid frame after it) is
 *   what an interrupted append leaves: it was never acknowledged, so it is cut and reported;
 * - a bad frame with valid frames after it is damage, not a tail: nothing is cut. When its length is
 *   intact (the next frame starts where it says it ends) it keeps its offset and is read as a record
 *   flagged undecodable (UNDECODABLE_HEADER), which consumers dead-letter; when even its length is
 *   wrong, offsets after it cannot be known and opening refuses (CorruptLogError) rather than guess.
 * A failed append (disk full, I/O error) is repaired before the next one: bytes of the failed write
 * are cut again, so the file holds exactly the acknowledged records and later appends work once
 * there is space.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { UNDECODABLE_HEADER } from '../ports/event-log.js';
import type { DurabilityOptions } from './atomic-file.js';
import {
  decodeFrames,
  FRAME_HEADER_BYTES,
  MAX_PAYLOAD_BYTES,
  MIN_PAYLOAD_BYTES,
  scanFrames,
  type EncodedFrames,
  type StoredRecord,
} from './record-codec.js';

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
  /** Told about a damaged record kept in place (read back flagged undecodable). */
  onCorruptRecord?: (record: { path: string; offset: number; position: number }) => void;
}

/** The file is damaged in a way that leaves the offsets after the damage unknown; it is not opened. */
export class CorruptLogError extends Error {
  override readonly name = 'CorruptLogError';
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
  /** The bytes of a write that failed (or whose fsync failed): cut from the file before the next append. */
  private failedWrite: Buffer | null = null;
  /** Offsets whose frame is damaged but whose length is intact (read back flagged undecodable). */
  private readonly corrupt = new Set<number>();
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
      await file.indexRepairing(size);
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

  /** Bytes of indexed (acknowledged) frames. */
  get sizeBytes(): number {
    return this.indexedBytes;
  }

  /** Resolves once every append queued so far has been written (or has failed). */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Resolves once the frames are written and (unless fsync is off) flushed to disk. */
  append(frames: EncodedFrames): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`partition file ${this.path} is closed`));
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
    if (this.corrupt.size === 0) return decodeFrames(bytes, endOffset - fromOffset);
    const records: StoredRecord[] = [];
    for (let offset = fromOffset; offset < endOffset; offset++) {
      const frame = bytes.subarray(this.frameStarts[offset]! - startByte, byteAfter(offset + 1) - startByte);
      records.push(
        this.corrupt.has(offset)
          ? {
              key: '',
              timestamp: 0,
              headers: { [UNDECODABLE_HEADER]: `damaged record in ${this.path} at offset ${offset} (checksum mismatch)` },
              value: frame.subarray(FRAME_HEADER_BYTES),
            }
          : decodeFrames(frame, 1)[0]!,
      );
    }
    return records;
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
    if (this.failedWrite) await this.repairFailedWrite();
    const bytes = groupFrames.length === 1 ? groupFrames[0]!.bytes : Buffer.concat(groupFrames.map((f) => f.bytes));
    try {
      // One write call: with O_APPEND the kernel places it atomically after other writers' appends.
      const { bytesWritten } = await this.handle.write(bytes, 0, bytes.length, null);
      if (bytesWritten !== bytes.length) throw new Error(`short write: ${bytesWritten} of ${bytes.length} bytes`);
      if (this.options.fsync) await this.handle.datasync();
    } catch (error) {
      // Nothing of this write is acknowledged: it is cut before the next append (or at the next open).
      this.failedWrite = bytes;
      const code = (error as NodeJS.ErrnoException).code;
      throw new Error(`append to ${this.path} failed${code ? ` (${code})` : ''}; it is rolled back before the next append`, {
        cause: error,
      });
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

  /**
   * Cuts what a failed write left after the indexed end. When the extra bytes are (a prefix of) that
   * write, nobody else appended: they go. Otherwise other writers' frames are indexed, and only a
   * torn tail after them is cut. Throws (keeping the failure) when the disk still refuses.
   */
  private async repairFailedWrite(): Promise<void> {
    const failed = this.failedWrite!;
    const { size } = await this.handle.stat();
    if (size > this.indexedBytes) {
      const extra = await this.readBytes(this.indexedBytes, size - this.indexedBytes);
      if (extra.length <= failed.length && failed.subarray(0, extra.length).equals(extra)) {
        await this.handle.truncate(this.indexedBytes);
        if (this.options.fsync) await this.handle.sync();
      } else {
        await this.indexRepairing(size);
      }
    }
    this.failedWrite = null;
  }

  /**
   * Indexes up to `size`; a bad frame with nothing valid after it is a torn tail and is cut; a bad
   * frame with valid frames after it is kept (intact length) or refused (see the file comment).
   */
  private async indexRepairing(size: number): Promise<void> {
    for (;;) {
      await this.indexUpTo(size);
      if (this.indexedBytes >= size) return;
      const bad = this.indexedBytes;
      const next = await this.findValidFrame(bad + 1, size);
      if (next === null) {
        await this.handle.truncate(bad);
        if (this.options.fsync) await this.handle.sync();
        this.options.onTruncatedTail?.({ path: this.path, validBytes: bad, discardedBytes: size - bad });
        return;
      }
      const header = await this.readBytes(bad, FRAME_HEADER_BYTES);
      const declaredEnd = header.length === FRAME_HEADER_BYTES ? bad + FRAME_HEADER_BYTES + header.readUInt32BE(0) : -1;
      if (declaredEnd !== next) {
        throw new CorruptLogError(
          `${this.path} is damaged at byte ${bad} and holds valid records after byte ${next}; the offsets in between are unknown, ` +
            'so it is not opened (restore it from a backup, or move it aside to start the partition over)',
        );
      }
      const offset = this.frameStarts.length;
      this.frameStarts.push(bad);
      this.corrupt.add(offset);
      this.indexedBytes = next;
      this.options.onCorruptRecord?.({ path: this.path, offset, position: bad });
    }
  }

  /** The first position in [from, size) where a complete, checksum-valid frame starts, or null (read in chunks). */
  private async findValidFrame(from: number, size: number): Promise<number | null> {
    for (let chunkStart = from; chunkStart + FRAME_HEADER_BYTES + MIN_PAYLOAD_BYTES <= size; chunkStart += SCAN_CHUNK_BYTES) {
      const chunk = await this.readBytes(chunkStart, Math.min(SCAN_CHUNK_BYTES + FRAME_HEADER_BYTES, size - chunkStart));
      const positions = Math.min(SCAN_CHUNK_BYTES, chunk.length - FRAME_HEADER_BYTES + 1);
      for (let at = 0; at < positions; at++) {
        const payloadBytes = chunk.readUInt32BE(at);
        if (payloadBytes < MIN_PAYLOAD_BYTES || payloadBytes > MAX_PAYLOAD_BYTES) continue;
        const start = chunkStart + at;
        const end = start + FRAME_HEADER_BYTES + payloadBytes;
        if (end > size) continue;
        const payload =
          end - chunkStart <= chunk.length
            ? chunk.subarray(at + FRAME_HEADER_BYTES, end - chunkStart)
            : await this.readBytes(start + FRAME_HEADER_BYTES, payloadBytes);
        if (crc32(payload) === chunk.readUInt32BE(at + 4)) return start;
      }
    }
    return null;
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
