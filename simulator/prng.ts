/**
 * Seeded randomness for the simulator.
 *
 * Every random decision comes from a stream named by (seed, key...), e.g. (42, 'live', 1774166009).
 * Naming streams by what they generate (rather than drawing everything from one sequence) makes the
 * output independent of call order: advancing 60 s in one call or in sixty 1 s calls yields the same
 * trades, and adding a new random decision in one place does not reshuffle the whole world.
 *
 * sfc32 is used instead of mulberry32 because mulberry32's state is one 32-bit counter: thousands of
 * streams seeded from nearby values overlap after a few hundred draws, which would repeat trade
 * hashes. sfc32 has 128 bits of state, filled from a cyrb128 hash of the stream name.
 */

import { Buffer } from 'node:buffer';

// Math functions bound once: inside Jest's vm sandbox every global lookup (Math, Infinity) is slow.
const { PI, ceil, cos, exp, floor, imul, log, max, round, sin, sqrt } = Math;

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  uint32(): number;
  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  float(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** Standard normal (mean 0, sd 1). */
  normal(): number;
  /** Log-normal with the given median and log-space standard deviation. */
  logNormal(median: number, sigma: number): number;
  poisson(lambda: number): number;
  hex(length: number): string;
  /** Decimal digit string without a leading zero. */
  digits(length: number): string;
}

type StreamKey = readonly (string | number)[];

/** cyrb128: a fast 128-bit string hash, good enough to seed sfc32 (not cryptographic). */
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ imul(h1 ^ k, 597399067);
    h2 = h3 ^ imul(h2 ^ k, 2869860233);
    h3 = h4 ^ imul(h3 ^ k, 951274213);
    h4 = h1 ^ imul(h4 ^ k, 2716044179);
  }
  h1 = imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

const TWO_POW_32 = 4294967296;

/** sfc32 generator with the helpers the simulator needs (a class: no per-stream closures to allocate). */
class Sfc32 implements Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  // A flag next to a plain number field: a number|null field would box every stored double.
  private hasSpareNormal = false;
  private spareNormal = 0;

  constructor([a, b, c, d]: [number, number, number, number]) {
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
    // sfc32's first outputs are correlated with the seed words; the authors recommend discarding ~12.
    for (let i = 0; i < 12; i++) this.uint32();
  }

  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  next(): number {
    return this.uint32() / TWO_POW_32;
  }

  int(min: number, max: number): number {
    return min + floor(this.next() * (max - min + 1));
  }

  float(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[floor(this.next() * items.length)] as T;
  }

  normal(): number {
    if (this.hasSpareNormal) {
      this.hasSpareNormal = false;
      return this.spareNormal;
    }
    // Box-Muller; 1 - next() keeps the logarithm away from 0.
    const radius = sqrt(-2 * log(1 - this.next()));
    const angle = 2 * PI * this.next();
    this.spareNormal = radius * sin(angle);
    this.hasSpareNormal = true;
    return radius * cos(angle);
  }

  logNormal(median: number, sigma: number): number {
    return median * exp(sigma * this.normal());
  }

  poisson(lambda: number): number {
    if (lambda <= 0) return 0;
    if (lambda > 40) return max(0, round(lambda + sqrt(lambda) * this.normal()));
    // Knuth: exact and cheap for the small per-second / per-minute rates used here.
    const limit = exp(-lambda);
    let count = 0;
    let product = this.next();
    while (product > limit) {
      count++;
      product *= this.next();
    }
    return count;
  }

  hex(length: number): string {
    // One buffer per call: concatenating characters would allocate a string per digit.
    const bytes = Buffer.allocUnsafe(ceil(length / 8) * 4);
    for (let offset = 0; offset < bytes.length; offset += 4) bytes.writeUInt32BE(this.uint32(), offset);
    return bytes.toString('hex', 0, ceil(length / 2)).slice(0, length);
  }

  digits(length: number): string {
    let out = String(this.int(1, 9));
    while (out.length < length) out += String(this.int(0, 9));
    return out;
  }
}

export function createRng(seed: number, ...key: StreamKey): Rng {
  return new Sfc32(cyrb128(`${seed}|${key.join('|')}`));
}

/** One uniform draw in [0, 1) for a named decision, e.g. "is this trade rendered malformed?". */
export function unitHash(seed: number, ...key: StreamKey): number {
  return cyrb128(`${seed}|${key.join('|')}`)[0] / TWO_POW_32;
}

/** Pick an index with probability proportional to a precomputed cumulative weight table. */
export function pickCumulative(cumulative: readonly number[], rng: Rng): number {
  const total = cumulative[cumulative.length - 1] ?? 0;
  const target = rng.next() * total;
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((cumulative[mid] ?? 0) > target) high = mid;
    else low = mid + 1;
  }
  return low;
}

export function cumulativeWeights(weights: readonly number[]): number[] {
  let running = 0;
  return weights.map((weight) => (running += weight));
}
