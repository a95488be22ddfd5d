import { retryDelayMs } from '../../services/eventlog/consumer-loop.js';
import { murmur2, partitionForKey } from '../../services/eventlog/partitioner.js';

describe('partitioner', () => {
  test('murmur2 matches Kafka (org.apache.kafka.common.utils.Utils#murmur2)', () => {
    // Reference values produced by the Java client, covering every tail length (0-3 leftover bytes).
    const kafkaHashes: Record<string, number> = {
      '21': -973932308,
      foobar: -790332482,
      abc: 479470107,
      '1': -1993445489,
      '12': 126087238,
      '123': -267702483,
      '1234': -1614185708,
      '12345': -1188365604,
    };
    for (const [key, hash] of Object.entries(kafkaHashes)) expect([key, murmur2(Buffer.from(key))]).toEqual([key, hash]);
  });

  test('a key always maps to the same partition within range', () => {
    for (let i = 0; i < 1000; i++) {
      const key = `0x${i.toString(16)}-market`;
      const partition = partitionForKey(key, 7);
      expect(partition).toBeGreaterThanOrEqual(0);
      expect(partition).toBeLessThan(7);
      expect(partitionForKey(key, 7)).toBe(partition);
    }
  });

  test('keys spread over all partitions', () => {
    const counts = new Array<number>(8).fill(0);
    for (let i = 0; i < 8000; i++) counts[partitionForKey(`market-${i}`, 8)]!++;
    for (const count of counts) expect(count).toBeGreaterThan(800);
  });

  test('multi-byte keys hash their UTF-8 bytes', () => {
    expect(partitionForKey('märkt', 1000)).toBe((murmur2(Buffer.from('märkt', 'utf8')) & 0x7fffffff) % 1000);
  });

  test('a partition count below one is refused', () => {
    expect(() => partitionForKey('k', 0)).toThrow(RangeError);
  });
});

describe('consumer retry back-off', () => {
  test('doubles from 50 ms and caps at 2 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map(retryDelayMs)).toEqual([50, 100, 200, 400, 800, 1600, 2000, 2000]);
  });
});
