/**
 * Every stored row of recently changed (wallet, token)s, as a read of position_ledger would return
 * them, so that a rewind of such a key reads nothing (docs/POSITIONS.md "The ledger and its consumer").
 */
import type { LedgerRow } from './ledger-rows.js';

/** Stored rows per (wallet, token), bounded by their total count (cleared when it is passed). */
export class RowCache {
  private readonly byKey = new Map<string, LedgerRow[]>();
  private rows = 0;

  constructor(private readonly limit: number) {}

  get(key: string): LedgerRow[] | undefined {
    return this.byKey.get(key);
  }

  set(key: string, rows: LedgerRow[]): void {
    this.delete(key);
    this.byKey.set(key, rows);
    this.rows += rows.length;
    if (this.rows > this.limit) this.clear();
  }

  delete(key: string): void {
    this.rows -= this.byKey.get(key)?.length ?? 0;
    this.byKey.delete(key);
  }

  clear(): void {
    this.byKey.clear();
    this.rows = 0;
  }
}
