/**
 * Every market known not to be settled yet (active, or closed awaiting resolution), by Gamma id, kept
 * in a checkpoint so a restart still knows them. A market that leaves Gamma's open listing, and every
 * closed one, is looked up again by id until it resolves or is voided, however late: Gamma's
 * `end_date_min` filters on the end date, so a listing by end date never sees a late close.
 */
import type { MarketUpserted } from '../events/types.js';
import { CheckpointFile } from './checkpoint.js';

export interface UnresolvedEntry {
  market_id: string;
  status: 'active' | 'closed';
  /** Re-checks in a row that did not find the market upstream. */
  misses: number;
}

type Stored = Record<string, UnresolvedEntry>;

export class UnresolvedMarkets {
  private readonly checkpoint: CheckpointFile<Stored> | null;
  private readonly entries: Map<string, UnresolvedEntry>;
  private dirty = false;
  /** Round-robin position of the next re-check batch. */
  private cursor = 0;

  constructor(file: string | null) {
    this.checkpoint = file ? new CheckpointFile<Stored>(file, {}) : null;
    this.entries = new Map(Object.entries(this.checkpoint?.read() ?? {}));
  }

  get size(): number {
    return this.entries.size;
  }

  has(gammaId: string): boolean {
    return this.entries.has(gammaId);
  }

  status(gammaId: string): UnresolvedEntry['status'] | undefined {
    return this.entries.get(gammaId)?.status;
  }

  /**
   * Records what a listing or lookup said about a market: settled ones leave, the rest are
   * (re)tracked. True when a closed market started being tracked (worth saving at once: nothing
   * else lists it again until it changes).
   */
  observe(market: Pick<MarketUpserted, 'gamma_id' | 'market_id' | 'status'>): boolean {
    if (market.gamma_id === '') return false;
    const before = this.entries.get(market.gamma_id);
    if (market.status === 'resolved' || market.status === 'voided') {
      if (before) {
        this.entries.delete(market.gamma_id);
        this.dirty = true;
      }
      return false;
    }
    if (!before || before.status !== market.status || before.misses !== 0) {
      this.entries.set(market.gamma_id, { market_id: market.market_id, status: market.status, misses: 0 });
      this.dirty = true;
      return market.status === 'closed' && before?.status !== 'closed';
    }
    return false;
  }

  missed(gammaId: string): void {
    const entry = this.entries.get(gammaId);
    if (!entry) return;
    entry.misses += 1;
    this.dirty = true;
  }

  /**
   * Up to `max` Gamma ids to look up now: every closed market, and every active one the open listing
   * no longer shows (`openNow`). Round-robin, so a large set is covered over several polls.
   */
  dueForRecheck(openNow: ReadonlySet<string>, max: number): string[] {
    const due = [...this.entries].filter(([id, entry]) => entry.status === 'closed' || !openNow.has(id)).map(([id]) => id);
    if (due.length <= max) return due;
    const start = this.cursor % due.length;
    this.cursor = start + max;
    return [...due.slice(start), ...due.slice(0, start)].slice(0, max);
  }

  /** Writes the checkpoint when something changed. */
  save(): void {
    if (!this.dirty || !this.checkpoint) return;
    this.checkpoint.write(Object.fromEntries(this.entries));
    this.dirty = false;
  }
}
