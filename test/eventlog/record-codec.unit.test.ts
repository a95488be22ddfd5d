import {
  CorruptRecordError,
  decodeFrames,
  encodeFrames,
  FRAME_HEADER_BYTES,
  MAX_PAYLOAD_BYTES,
  scanFrames,
  type StoredRecord,
} from '../../services/eventlog/record-codec.js';

const records: StoredRecord[] = [
  { key: 'market-1', timestamp: 1_700_000_000_123, headers: { type: 'trade', 'x-ünï': 'välue ✓' }, value: Buffer.from('{"p":0.5}') },
  { key: '', timestamp: 0, headers: {}, value: Buffer.alloc(0) },
  { key: 'bïnary', timestamp: -5.25, headers: { empty: '' }, value: Buffer.from([0, 255, 1, 254, 0]) },
];

describe('record framing', () => {
  test('encoded frames decode to the same records', () => {
    const { bytes, frameLengths } = encodeFrames(records);
    expect(frameLengths.reduce((a, b) => a + b, 0)).toBe(bytes.length);
    const decoded = decodeFrames(bytes, records.length);
    expect(decoded.map((r) => ({ ...r, value: [...r.value] }))).toEqual(records.map((r) => ({ ...r, value: [...r.value] })));
  });

  test('a scan finds every frame start of intact data', () => {
    const { bytes, frameLengths } = encodeFrames(records);
    const scan = scanFrames(bytes);
    expect(scan).toEqual({ stop: 'end', frameStarts: [0, frameLengths[0], frameLengths[0]! + frameLengths[1]!], validBytes: bytes.length });
  });

  test('data cut anywhere inside the last frame scans as incomplete, keeping the frames before it', () => {
    const { bytes, frameLengths } = encodeFrames(records);
    const lastStart = bytes.length - frameLengths[2]!;
    for (let cut = lastStart + 1; cut < bytes.length; cut++) {
      const scan = scanFrames(bytes.subarray(0, cut));
      expect(scan).toMatchObject({ stop: 'incomplete', validBytes: lastStart, frameStarts: [0, frameLengths[0]] });
      if (scan.stop === 'incomplete' && cut >= lastStart + FRAME_HEADER_BYTES) expect(scan.frameBytes).toBe(frameLengths[2]);
    }
  });

  test('any flipped bit in a payload is detected by the checksum', () => {
    const { bytes, frameLengths } = encodeFrames(records.slice(0, 1));
    for (let at = FRAME_HEADER_BYTES; at < frameLengths[0]!; at++) {
      const damaged = Buffer.from(bytes);
      damaged[at]! ^= 1 << (at % 8);
      expect(scanFrames(damaged)).toEqual({ stop: 'corrupt', frameStarts: [], validBytes: 0 });
      expect(() => decodeFrames(damaged, 1)).toThrow(CorruptRecordError);
    }
  });

  test('impossible length prefixes are corrupt rather than waited for', () => {
    const tooShort = Buffer.alloc(32);
    expect(scanFrames(tooShort).stop).toBe('corrupt');
    const tooLong = Buffer.alloc(32);
    tooLong.writeUInt32BE(MAX_PAYLOAD_BYTES + 1, 0);
    expect(scanFrames(tooLong).stop).toBe('corrupt');
  });

  test('keys longer than the u16 length field are refused at encode time', () => {
    expect(() => encodeFrames([{ key: 'k'.repeat(65_536), timestamp: 0, headers: {}, value: Buffer.alloc(0) }])).toThrow(RangeError);
  });
});
