/**
 * Which (wallet, token) keys may have a stored state, so the ledger can skip the state lookup of keys
 * that certainly have none. Most fills open a (wallet, token) the wallet never held (in bench:scale
 * over nine in ten), and without this every one of them costs a point lookup in position_state that
 * finds nothing: over a third of the ledger's time.
 *
 * A Bloom filter over every key in position_state: `mightHave(key) === false` means certainly not
 * stored; true may be a false positive (about 1 %, then the lookup runs as before). It is only ever
 * a superset of the stored keys: loaded from the table, and every key the ledger writes is added
 * before its insert (an insert that fails halfway leaves no stored key outside the filter). Like the
 * ledger's state cache it assumes it is the only writer of position_state (one ledger consumer).
 *
 * Both hashes are CRC-32 (zlib's, which ClickHouse's CRC32 is too), of "wallet|token" and
 * "token|wallet", so the table's keys are hashed where they are stored and only two numbers per key
 * cross over when loading. Sized for twice the keys it holds; past that it is reloaded at twice the
 * size, so reloads cost amortized O(1) per key. Past `maxKeys` it switches off (memory stays bounded:
 * 10 bits per key, 62.5 MB at the default 50 million) and every key is looked up.
 */
import { crc32 } from 'node:zlib';
import type { AnalyticsStore } from '../../ports/analytics-store.js';

const BITS_PER_KEY = 10;
const HASHES = 7;
const MIN_CAPACITY = 1 << 20;
/** Wallet ranges loaded one at a time (each a range of the table's primary key), so no answer is huge. */
const RANGES = ['0x1', '0x2', '0x3', '0x4', '0x5', '0x6', '0x7', '0x8', '0x9', '0xa', '0xb', '0xc', '0xd', '0xe', '0xf'];

export interface KeyFilterStats {
  /** Keys the filter answered (no lookup needed). */
  skipped_lookups: number;
  loads: number;
  load_ms: number;
}

export class KeyFilter {
  readonly stats: KeyFilterStats = { skipped_lookups: 0, loads: 0, load_ms: 0 };
  private bits: Uint32Array | null = null;
  private capacity = 0;
  private count = 0;

  constructor(
    private readonly store: AnalyticsStore,
    private readonly maxKeys = 50_000_000,
  ) {}

  /** Loads the filter the first time and whenever it is over capacity; off past maxKeys. */
  async ready(): Promise<void> {
    if (this.bits !== null && this.count <= this.capacity) return;
    if (this.bits === null && this.capacity > 0) return; // switched off
    const started = performance.now();
    const [row] = await this.store.query<{ n: string }>('SELECT count() AS n FROM position_state');
    const stored = Number(row?.n ?? 0);
    if (stored > this.maxKeys) {
      this.bits = null;
      this.capacity = this.maxKeys;
      return;
    }
    this.capacity = Math.min(this.maxKeys, Math.max(MIN_CAPACITY, 2 * stored));
    this.bits = new Uint32Array(Math.ceil((this.capacity * BITS_PER_KEY) / 32));
    this.count = 0;
    const bounds = ['', ...RANGES, null];
    for (let i = 0; i + 1 < bounds.length; i++) {
      const [hashes] = await this.store.query<{ a: number[]; b: number[] }>(
        `SELECT groupArray(CRC32(concat(wallet, '|', asset_id))) AS a, groupArray(CRC32(concat(asset_id, '|', wallet))) AS b
           FROM position_state WHERE wallet >= {lo:String} ${bounds[i + 1] === null ? '' : 'AND wallet < {hi:String}'}`,
        { lo: bounds[i], hi: bounds[i + 1] ?? '' },
      );
      const a = hashes?.a ?? [];
      const b = hashes?.b ?? [];
      for (let j = 0; j < a.length; j++) this.set(Number(a[j]), Number(b[j]));
    }
    this.stats.loads += 1;
    this.stats.load_ms += performance.now() - started;
  }

  /** False: the key certainly has no stored state. */
  mightHave(key: string): boolean {
    if (this.bits === null) return true;
    const [h1, h2] = hashesOf(key);
    const m = this.bits.length * 32;
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + i * h2) % m;
      if (((this.bits[bit >>> 5] ?? 0) & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }

  add(key: string): void {
    if (this.bits === null) return;
    const [h1, h2] = hashesOf(key);
    this.set(h1, h2);
  }

  /** Sets the key's bits; counts it only if one was unset (a key added again does not fill the filter). */
  private set(h1: number, h2: number): void {
    const bits = this.bits!;
    const m = bits.length * 32;
    let added = false;
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + i * h2) % m;
      const word = bits[bit >>> 5] ?? 0;
      const mask = 1 << (bit & 31);
      if ((word & mask) === 0) {
        bits[bit >>> 5] = word | mask;
        added = true;
      }
    }
    if (added) this.count += 1;
  }
}

/** The two hashes of "wallet|token": CRC-32 of it and of "token|wallet", as ClickHouse computes them when loading. */
function hashesOf(key: string): [number, number] {
  const bar = key.indexOf('|');
  return [crc32(key), crc32(`${key.slice(bar + 1)}|${key.slice(0, bar)}`)];
}
