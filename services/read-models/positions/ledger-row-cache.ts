/**
 * The stored rows of recently changed (wallet, token)s, as a read of position_ledger would return
 * them (the live rows and the highest revision), so that a rewind of such a key reads nothing
 * (docs/POSITIONS.md "The ledger and its consumer").
 */
import type { StoredRows } from './ledger-rows.js';

/** Stored rows per (wallet, token), bounded by their total count of live rows (cleared when it is passed). */
export class RowCache {
  private readonly byKey = new Map<string, StoredRows>();
  private rows = 0;

  constructor(private readonly limit: number) {}

  get(key: string): StoredRows | undefined {
    return this.byKey.get(key);
  }

  set(key: string, rows: StoredRows): void {
    this.delete(key);
    this.byKey.set(key, rows);
    this.rows += rows.live.length;
    if (this.rows > this.limit) this.clear();
  }

  delete(key: string): void {
    this.rows -= this.byKey.get(key)?.live.length ?? 0;
    this.byKey.delete(key);
  }

  clear(): void {
    this.byKey.clear();
    this.rows = 0;
  }
}
