/**
 * Which (wallet, token) keys may have a stored state, so the ledger can skip the state lookup of keys
 * that certainly have none. Most fills open a (wallet, token) the wallet never held, and without this
 * every one of them costs a point lookup that finds nothing; even a point get from position_head (0060)
 * costs far more than hashing the key here.
 *
 * A Bloom filter over every key in position_state: `mightHave(key) === false` means certainly not
 * stored; true may be a false positive (about 1 %, then the lookup runs as before). It is only ever
 * a superset of the stored keys: loaded from the table, and every key the ledger writes is added
 * before its insert (an insert that fails halfway leaves no stored key outside the filter). Like the
 * ledger's state cache it assumes it is the only writer of position_state (one ledger consumer).
 *
 * Both hashes are CRC-32 (zlib's, which ClickHouse's CRC32 is too), of "wallet|token" and
 * "token|wallet", so the table's keys are hashed where they are stored and only two numbers per key
 * cross over when loading. Loads run in the background while the ledger goes on (a key written
 * meanwhile goes into the filter being loaded too). Sized for twice the keys it holds; past that it
 * is reloaded at twice the size, so reloads cost amortized O(1) per key. Past `maxKeys` it switches
 * off (memory stays bounded: 10 bits per key, 62.5 MB at the default 50 million) and every key is
 * looked up.
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
  /** The filter that answers; null until the first load completes (every key is then looked up). */
  private bits: Uint32Array | null = null;
  private capacity = 0;
  private count = 0;
  /** The filter being loaded: keys added meanwhile go into it too, so it is complete when it takes over. */
  private building: { bits: Uint32Array; capacity: number; count: number } | null = null;
  /** Keys added after a load started but before its filter could be sized (the count query). */
  private pending: Array<[number, number]> | null = null;
  private loading: Promise<void> | null = null;
  private off = false;

  constructor(
    private readonly store: AnalyticsStore,
    private readonly maxKeys = 50_000_000,
  ) {}

  /**
   * Starts loading (in the background) when there is no filter yet or it is over capacity. The ledger
   * does not wait: until the load completes, the previous filter (or none) answers, so a restart is
   * not held up by reading millions of keys.
   */
  refresh(): Promise<void> {
    if (this.off || this.loading) return this.loading ?? Promise.resolve();
    if (this.bits !== null && this.count <= this.capacity) return Promise.resolve();
    // From this moment every added key is kept for the new filter: none written while it loads is missed.
    this.pending = [];
    this.loading = this.load()
      .catch(() => {
        this.building = null; // tried again at the next batch
        this.pending = null;
      })
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }

  private async load(): Promise<void> {
    const started = performance.now();
    const [row] = await this.store.query<{ n: string }>('SELECT count() AS n FROM position_state');
    const stored = Number(row?.n ?? 0);
    if (stored > this.maxKeys) {
      this.off = true;
      this.bits = null;
      this.pending = null;
      return;
    }
    const capacity = Math.min(this.maxKeys, Math.max(MIN_CAPACITY, 2 * stored));
    const building = { bits: new Uint32Array(Math.ceil((capacity * BITS_PER_KEY) / 32)), capacity, count: 0 };
    for (const [h1, h2] of this.pending ?? []) building.count += set(building.bits, h1, h2);
    this.pending = null;
    this.building = building;
    const bounds = ['', ...RANGES, null];
    for (let i = 0; i + 1 < bounds.length; i++) {
      const [hashes] = await this.store.query<{ a: number[]; b: number[] }>(
        `SELECT groupArray(CRC32(concat(wallet, '|', asset_id))) AS a, groupArray(CRC32(concat(asset_id, '|', wallet))) AS b
           FROM position_state WHERE wallet >= {lo:String} ${bounds[i + 1] === null ? '' : 'AND wallet < {hi:String}'}`,
        { lo: bounds[i], hi: bounds[i + 1] ?? '' },
      );
      const a = hashes?.a ?? [];
      const b = hashes?.b ?? [];
      for (let j = 0; j < a.length; j++) building.count += set(building.bits, Number(a[j]), Number(b[j]));
    }
    this.bits = building.bits;
    this.capacity = building.capacity;
    this.count = building.count;
    this.building = null;
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
    if (this.bits === null && this.building === null && this.pending === null) return;
    const [h1, h2] = hashesOf(key);
    if (this.bits !== null) this.count += set(this.bits, h1, h2);
    if (this.building !== null) this.building.count += set(this.building.bits, h1, h2);
    else this.pending?.push([h1, h2]);
  }
}

/** Sets a key's bits; 1 if one was unset (a key added again does not count towards the capacity). */
function set(bits: Uint32Array, h1: number, h2: number): number {
  const m = bits.length * 32;
  let added = 0;
  for (let i = 0; i < HASHES; i++) {
    const bit = (h1 + i * h2) % m;
    const word = bits[bit >>> 5] ?? 0;
    const mask = 1 << (bit & 31);
    if ((word & mask) === 0) {
      bits[bit >>> 5] = word | mask;
      added = 1;
    }
  }
  return added;
}

/** The two hashes of "wallet|token": CRC-32 of it and of "token|wallet", as ClickHouse computes them when loading. */
function hashesOf(key: string): [number, number] {
  const bar = key.indexOf('|');
  return [crc32(key), crc32(`${key.slice(bar + 1)}|${key.slice(0, bar)}`)];
}
