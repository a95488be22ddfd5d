/**
 * Key -> partition, the same way Kafka's Java client (and kafkajs' DefaultPartitioner) does it:
 * `toPositive(murmur2(utf8(key))) % partitions`. Matching Kafka means a topic keeps its
 * key placement when the pipeline moves from the embedded log to a broker.
 */

const SEED = 0x9747b28c;
const M = 0x5bd1e995;
const R = 24;

/** Kafka's murmur2 (org.apache.kafka.common.utils.Utils#murmur2), as a signed 32-bit int. */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = (SEED ^ length) | 0;
  const wholeWords = length >>> 2;
  for (let word = 0; word < wholeWords; word++) {
    const i = word * 4;
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, M);
    k ^= k >>> R;
    k = Math.imul(k, M);
    h = Math.imul(h, M);
    h ^= k;
  }
  const tail = length & ~3;
  // Kafka's murmur2 mixes the 1-3 trailing bytes with a falling-through switch; the same as ifs.
  const rest = length & 3;
  if (rest >= 3) h ^= data[tail + 2]! << 16;
  if (rest >= 2) h ^= data[tail + 1]! << 8;
  if (rest >= 1) {
    h ^= data[tail]!;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

export function partitionForKey(key: string, partitionCount: number): number {
  if (!Number.isInteger(partitionCount) || partitionCount < 1) {
    throw new RangeError(`partition count must be a positive integer, got ${partitionCount}`);
  }
  // Kafka's toPositive masks the sign bit rather than taking Math.abs (which overflows on MIN_VALUE).
  return (murmur2(Buffer.from(key, 'utf8')) & 0x7fffffff) % partitionCount;
}
