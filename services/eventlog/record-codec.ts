/**
 * Binary framing of event-log records.
 *
 * Frame:   [u32 payload length][u32 crc32(payload)][payload]           (big endian)
 * Payload: [u8 format][f64 timestamp][u16 key length][key utf8]
 *          [u16 header count]([u16 name length][name utf8][u32 value length][value utf8])*
 *          [value bytes ... to the end of the payload]
 *
 * The length prefix lets a reader skip from frame to frame without decoding; the crc tells a
 * frame that was fully written from one torn by a crash (or rotted on disk).
 */
import { crc32 } from 'node:zlib';

export const FRAME_HEADER_BYTES = 8;
const PAYLOAD_FORMAT = 1;
/** format + timestamp + key length + header count: the smallest payload that can be valid. */
export const MIN_PAYLOAD_BYTES = 1 + 8 + 2 + 2;
/**
 * Upper bound on a payload (Kafka's default message limit is 1 MiB). Also keeps a garbage length
 * prefix in a torn tail from making the scanner allocate gigabytes.
 */
export const MAX_PAYLOAD_BYTES = 64 * 1024 * 1024;
const MAX_U16 = 0xffff;

export interface StoredRecord {
  key: string;
  timestamp: number;
  headers: Record<string, string>;
  value: Buffer;
}

export interface EncodedFrames {
  /** All frames back to back, ready for a single append. */
  bytes: Buffer;
  /** Byte length of each frame (header included), in order. */
  frameLengths: number[];
}

export class CorruptRecordError extends Error {
  override readonly name = 'CorruptRecordError';
}

interface RecordLayout {
  keyBytes: number;
  headers: Array<[name: string, nameBytes: number, value: string, valueBytes: number]>;
  payloadBytes: number;
}

function layoutOf(record: StoredRecord): RecordLayout {
  const keyBytes = Buffer.byteLength(record.key, 'utf8');
  if (keyBytes > MAX_U16) throw new RangeError(`message key is ${keyBytes} bytes; the limit is ${MAX_U16}`);
  const headers: RecordLayout['headers'] = [];
  let payloadBytes = MIN_PAYLOAD_BYTES + keyBytes + record.value.length;
  for (const [name, value] of Object.entries(record.headers)) {
    const nameBytes = Buffer.byteLength(name, 'utf8');
    const valueBytes = Buffer.byteLength(value, 'utf8');
    if (nameBytes > MAX_U16) throw new RangeError(`header name is ${nameBytes} bytes; the limit is ${MAX_U16}`);
    headers.push([name, nameBytes, value, valueBytes]);
    payloadBytes += 2 + nameBytes + 4 + valueBytes;
  }
  if (headers.length > MAX_U16) throw new RangeError(`a message has ${headers.length} headers; the limit is ${MAX_U16}`);
  if (payloadBytes > MAX_PAYLOAD_BYTES) {
    throw new RangeError(`message of ${payloadBytes} bytes is larger than the ${MAX_PAYLOAD_BYTES}-byte limit`);
  }
  return { keyBytes, headers, payloadBytes };
}

/** Encodes records into one contiguous buffer so a whole produce call becomes one write. */
export function encodeFrames(records: readonly StoredRecord[]): EncodedFrames {
  const layouts = records.map(layoutOf);
  const frameLengths = layouts.map((layout) => FRAME_HEADER_BYTES + layout.payloadBytes);
  const bytes = Buffer.allocUnsafe(frameLengths.reduce((sum, length) => sum + length, 0));
  let frameStart = 0;
  records.forEach((record, index) => {
    const layout = layouts[index]!;
    const payloadStart = frameStart + FRAME_HEADER_BYTES;
    let at = payloadStart;
    at = bytes.writeUInt8(PAYLOAD_FORMAT, at);
    at = bytes.writeDoubleBE(record.timestamp, at);
    at = bytes.writeUInt16BE(layout.keyBytes, at);
    at += bytes.write(record.key, at, 'utf8');
    at = bytes.writeUInt16BE(layout.headers.length, at);
    for (const [name, nameBytes, value, valueBytes] of layout.headers) {
      at = bytes.writeUInt16BE(nameBytes, at);
      at += bytes.write(name, at, 'utf8');
      at = bytes.writeUInt32BE(valueBytes, at);
      at += bytes.write(value, at, 'utf8');
    }
    at += record.value.copy(bytes, at);
    const payloadEnd = payloadStart + layout.payloadBytes;
    bytes.writeUInt32BE(layout.payloadBytes, frameStart);
    bytes.writeUInt32BE(crc32(bytes.subarray(payloadStart, payloadEnd)), frameStart + 4);
    frameStart = payloadEnd;
  });
  return { bytes, frameLengths };
}

export type FrameScan =
  /** Every byte of the buffer belongs to a valid frame. */
  | { stop: 'end'; frameStarts: number[]; validBytes: number }
  /** The buffer ends inside a frame that needs `frameBytes` bytes from `validBytes` on. */
  | { stop: 'incomplete'; frameStarts: number[]; validBytes: number; frameBytes: number }
  /** The frame at `validBytes` is complete but its length or checksum is wrong. */
  | { stop: 'corrupt'; frameStarts: number[]; validBytes: number };

/** Finds the frames at the start of `bytes`, checking every checksum, without decoding payloads. */
export function scanFrames(bytes: Buffer): FrameScan {
  const frameStarts: number[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (bytes.length - at < FRAME_HEADER_BYTES) {
      return { stop: 'incomplete', frameStarts, validBytes: at, frameBytes: FRAME_HEADER_BYTES };
    }
    const payloadBytes = bytes.readUInt32BE(at);
    const frameBytes = FRAME_HEADER_BYTES + payloadBytes;
    if (payloadBytes < MIN_PAYLOAD_BYTES || payloadBytes > MAX_PAYLOAD_BYTES) {
      return { stop: 'corrupt', frameStarts, validBytes: at };
    }
    if (bytes.length - at < frameBytes) return { stop: 'incomplete', frameStarts, validBytes: at, frameBytes };
    const payload = bytes.subarray(at + FRAME_HEADER_BYTES, at + frameBytes);
    if (crc32(payload) !== bytes.readUInt32BE(at + 4)) return { stop: 'corrupt', frameStarts, validBytes: at };
    frameStarts.push(at);
    at += frameBytes;
  }
  return { stop: 'end', frameStarts, validBytes: at };
}

function decodePayload(payload: Buffer): StoredRecord {
  let at = 0;
  const format = payload.readUInt8(at);
  if (format !== PAYLOAD_FORMAT) throw new CorruptRecordError(`unknown record format ${format}`);
  at += 1;
  const timestamp = payload.readDoubleBE(at);
  at += 8;
  const keyBytes = payload.readUInt16BE(at);
  at += 2;
  const key = payload.toString('utf8', at, at + keyBytes);
  at += keyBytes;
  const headerCount = payload.readUInt16BE(at);
  at += 2;
  const headers: Record<string, string> = {};
  for (let index = 0; index < headerCount; index++) {
    const nameBytes = payload.readUInt16BE(at);
    at += 2;
    const name = payload.toString('utf8', at, at + nameBytes);
    at += nameBytes;
    const valueBytes = payload.readUInt32BE(at);
    at += 4;
    headers[name] = payload.toString('utf8', at, at + valueBytes);
    at += valueBytes;
  }
  if (at > payload.length) throw new CorruptRecordError('record fields run past the end of the frame');
  // A view, not a copy: values of one batch share the buffer the batch was read into.
  return { key, timestamp, headers, value: payload.subarray(at) };
}

/**
 * Decodes `count` back-to-back frames. The checksums are verified again because the bytes were
 * re-read from disk after indexing; a mismatch here means the file changed underneath the log.
 */
export function decodeFrames(bytes: Buffer, count: number): StoredRecord[] {
  const records: StoredRecord[] = new Array(count);
  let at = 0;
  for (let index = 0; index < count; index++) {
    if (bytes.length - at < FRAME_HEADER_BYTES) throw new CorruptRecordError('frame header runs past the data read');
    const payloadBytes = bytes.readUInt32BE(at);
    const payloadStart = at + FRAME_HEADER_BYTES;
    const payloadEnd = payloadStart + payloadBytes;
    if (payloadEnd > bytes.length) throw new CorruptRecordError('frame runs past the data read');
    const payload = bytes.subarray(payloadStart, payloadEnd);
    if (crc32(payload) !== bytes.readUInt32BE(at + 4)) throw new CorruptRecordError('frame checksum mismatch');
    try {
      records[index] = decodePayload(payload);
    } catch (error) {
      if (error instanceof CorruptRecordError) throw error;
      throw new CorruptRecordError('frame payload is malformed', { cause: error });
    }
    at = payloadEnd;
  }
  return records;
}
