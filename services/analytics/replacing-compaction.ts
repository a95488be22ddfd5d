/**
 * Keeps a ReplacingMergeTree that its reads take FINAL of near one row per key. FINAL merges every row
 * of every part, the replaced ones included, so a ranking over trader_valuation costs in proportion to
 * the rows the table holds, not the wallets it ranks. A full revaluation (a bulk load caught up, the
 * daily curve sweep) writes a second row for every wallet, and the engine's own merges, which pick parts
 * by size, may leave both for a long time, and a leaderboard read over a half-merged second generation
 * was about a third slower than over one row per wallet (measured: docs/POSITIONS.md at 2ee4e77, "The
 * valuation pass").
 *
 * The writer reports each insert; once the rows written since the table was last merged reach a tenth
 * of the rows it held then (and at least `minRows`), the table is merged into one part (OPTIMIZE FINAL).
 * Each merge rewrites the table once, after at least a tenth of it was written: at most eleven rows
 * rewritten per row written, little beside valuing the wallet a row is for (a merge costs a small
 * fraction of the valuation that wrote its rows). The replaced rows a FINAL read merges stay under a tenth of the
 * table (or the minimum). Merging changes no result: it keeps the row FINAL reads.
 */
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { KeptFailure } from './kept-failure.js';

/** Below this many rows written since the last merge the table is left to the engine's merges: FINAL of a small table is cheap. */
const MIN_ROWS = 10_000;

export class ReplacingCompaction {
  private written = 0;
  /** Rows the table held after its last merge (at the first report: what it holds then). */
  private held: number | null = null;
  private readonly failures = new KeptFailure();

  constructor(
    private readonly store: AnalyticsStore,
    private readonly table: string,
    private readonly minRows = MIN_ROWS,
  ) {}

  /**
   * Counts `rows` just inserted; merges the table when they tip it over. Returns whether it merged. A
   * failed merge throws nothing (the rows are stored; only reads of them cost more until a merge): it is
   * kept for `takeError` and tried again after another tenth.
   */
  async wrote(rows: number): Promise<boolean> {
    this.written += rows;
    if (this.written < this.minRows) return false;
    let merged = false;
    const ran = await this.failures.attempt(async () => {
      this.held ??= await this.rows();
      if (this.written < this.held / 10) return;
      // One writer (the valuation pass) and no concurrent merge of its own: if the engine is merging
      // some of the parts, OPTIMIZE does nothing and the count below still holds the replaced rows, so
      // the next merge comes later, never sooner.
      await this.store.command(`OPTIMIZE TABLE ${this.table} FINAL`);
      this.held = await this.rows();
      merged = true;
    });
    if (merged || !ran) this.written = 0;
    return merged;
  }

  /** The last merge's error since the previous call, if one failed. */
  takeError(): unknown {
    return this.failures.take();
  }

  private async rows(): Promise<number> {
    const [row] = await this.store.query<{ n: string }>(`SELECT toString(count()) AS n FROM ${this.table}`);
    return Number(row?.n ?? 0);
  }
}
