/**
 * The 30-day window of the leaderboards ranked by realized PnL or volume. The valuation pass sums the
 * window's closed days once per wallet into today's rows of trader_recent_days (closed_*, migration
 * 0056), where the view adds today's figures as they happen, so a request merges one sorted key range
 * with FINAL: one row per wallet, in wallet order, no hashing. The sums stay as fresh as the ledger;
 * the boards built from them (board-pages.ts) are as fresh as their last build.
 *
 * When the closed sums are served: today's stamp equals the ledger rows now dated on the window's closed
 * days (both kept in trader_window_counts, migration 0057). The stamp is the sum of every wallet's
 * closed_changes, and each refresh leaves every wallet's closed sums equal to its closed days' sums as
 * read in one snapshot, so the two counts are equal only while no row dated on a closed day has been
 * added since. Rows are only ever added (a late fill, a rewind's cancellation and replay, a reorg's
 * retraction all add rows), so any such change raises the count; a new day starts with a stamp of 0
 * and closed sums of 0. Otherwise the request sums every day of the window itself until the pass sums
 * again (at most once a minute, so a stream of late changes cannot make it rewrite the window on every
 * pass). After a summing the table is merged (`merge`), so the request's FINAL merges one row per
 * wallet plus those the view wrote since, not one per wallet and summing.
 *
 * One writer of the closed columns at a time (the valuation pass runs in one process). A pass that stops
 * between its two steps leaves the old stamp, which no longer matches. Two writers that both read before
 * either wrote would add a difference twice: the stamp each writes after counts the doubled changes, so it
 * no longer matches either, and the next refresh, adding the difference to what is stored, repairs it.
 */
import { KeptFailure } from '../../analytics/kept-failure.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { DAY_MS, startOfUtcDay } from '../../shared/time.js';

/** The window's last day (today) and first day as UTC midnights in Unix seconds: the SQL's {today} and {from30}. */
export function windowBounds(nowMs: number): { today: number; from30: number } {
  const today = startOfUtcDay(nowMs);
  return { today: today / 1000, from30: (today - 29 * DAY_MS) / 1000 };
}

const TODAY = "toDate({today:Int64}, 'UTC')";
const FROM30 = "toDate({from30:Int64}, 'UTC')";

/**
 * Whether today's closed sums are served (as WITH entries; `served` is the answer): today's stamp and
 * the closed days' row count, one row per day of trader_window_counts (migration 0057).
 */
const SERVED = `
  (SELECT (toInt64(sumIf(closed_changes, day = ${TODAY})), toInt64(sumIf(changes, day < ${TODAY})))
     FROM trader_window_counts WHERE day >= ${FROM30} AND day <= ${TODAY}) AS counts,
  tupleElement(counts, 1) = tupleElement(counts, 2) AS served`;

/**
 * (wallet, ...): each wallet's figures summed over the window, one column per entry of `columns` (named
 * by its key). Params: windowBounds.
 */
function windowSumsSql(columns: Record<string, 'realized' | 'volume'>): string {
  const closed = (column: 'realized' | 'volume') => (column === 'realized' ? 'closed_realized' : 'closed_volume');
  const names = Object.keys(columns);
  // Only one branch reads: `served` is a constant of the statement.
  return `WITH ${SERVED}
    SELECT wallet, ${names.join(', ')} FROM (
      SELECT wallet, ${names.map((n) => `${columns[n]} + ${closed(columns[n]!)} AS ${n}`).join(', ')}
        FROM trader_recent_days FINAL WHERE served AND day = ${TODAY} AND wallet != ''
      UNION ALL
      SELECT wallet, ${names.map((n) => `sum(${columns[n]}) AS ${n}`).join(', ')}
        FROM trader_recent_days WHERE NOT served AND day >= ${FROM30} AND wallet != '' GROUP BY wallet
    )`;
}

/** (wallet, v): the wallet's `column` summed over the window, for the 30-day boards. Params: windowBounds. */
export function windowRankingSql(column: 'realized' | 'volume'): string {
  return windowSumsSql({ v: column });
}

/** (wallet, window_realized, window_volume): both figures of the 30-day boards (board-pages.ts). Params: windowBounds. */
export function windowFiguresSql(): string {
  return windowSumsSql({ window_realized: 'realized', window_volume: 'volume' });
}

/** A minute between summings. */
const MIN_INTERVAL_MS = 60_000;

export class TraderWindow {
  private lastSummedMs = Number.NEGATIVE_INFINITY;
  private readonly mergeFailures = new KeptFailure();

  constructor(
    private readonly store: AnalyticsStore,
    private readonly minIntervalMs = MIN_INTERVAL_MS,
  ) {}

  /** Whether requests for `nowMs` are served today's closed sums now (otherwise they sum the window live). */
  async served(nowMs: number): Promise<boolean> {
    const [row] = await this.store.query<{ held: number }>(`WITH ${SERVED} SELECT toUInt8(served) AS held`, windowBounds(nowMs));
    return Number(row?.held) === 1;
  }

  /**
   * Sums the window's closed days into today's rows when they are not served for `nowMs` and the last
   * summing is at least a minute old, then merges the table; returns whether it summed.
   */
  async refresh(nowMs: number): Promise<boolean> {
    if ((await this.served(nowMs)) || Date.now() - this.lastSummedMs < this.minIntervalMs) return false;
    this.lastSummedMs = Date.now();
    await this.addDifferences(nowMs);
    await this.stamp(nowMs);
    await this.merge();
    return true;
  }

  /**
   * Refresh's last step: merges trader_recent_days into one part, so today's key range, which the
   * boards read with FINAL, holds one row per wallet again. A summing writes a row for every wallet
   * whose closed sums changed (every wallet on a new day or after a backfill into the window), in a
   * part of its own, and the engine's merges, which pick parts by size, can leave it beside the
   * earlier sums for hours: every request then merges two rows per wallet, and the board's cost
   * would depend on when the engine happened to merge.
   * It runs only after a summing (at most once a minute) and rewrites the window's rows, never the
   * history. A failed merge throws nothing (the sums are stored and served; only reads cost more
   * until the next summing merges): it is kept for `takeError`.
   */
  async merge(): Promise<void> {
    await this.mergeFailures.attempt(() => this.store.command('OPTIMIZE TABLE trader_recent_days FINAL'));
  }

  /** The last merge's error since the previous call, if one failed. */
  takeError(): unknown {
    return this.mergeFailures.take();
  }

  /**
   * Refresh's first step: adds to today's rows the difference between each wallet's closed-day sums
   * and what its row holds, where any part of it is not 0 - both read in one pass over the table.
   */
  async addDifferences(nowMs: number): Promise<void> {
    await this.store.command(
      `INSERT INTO trader_recent_days (day, wallet, realized, volume, changes, closed_realized, closed_volume, closed_changes)
       SELECT ${TODAY}, wallet, 0, 0, 0, r, v, c FROM (
         SELECT wallet,
                sumIf(realized, day < ${TODAY}) - sumIf(closed_realized, day = ${TODAY}) AS r,
                sumIf(volume, day < ${TODAY}) - sumIf(closed_volume, day = ${TODAY}) AS v,
                toInt64(sumIf(changes, day < ${TODAY})) - sumIf(closed_changes, day = ${TODAY}) AS c
           FROM trader_recent_days WHERE day >= ${FROM30} AND wallet != '' GROUP BY wallet)
        WHERE r != 0 OR v != 0 OR c != 0`,
      windowBounds(nowMs),
    );
  }

  /**
   * Refresh's second step, after every difference is written: makes today's stamp (closed_changes of
   * today's trader_window_counts row) the sum of every wallet's closed_changes, read from the rows.
   */
  async stamp(nowMs: number): Promise<void> {
    await this.store.command(
      `INSERT INTO trader_window_counts (day, changes, closed_changes)
       SELECT ${TODAY}, 0, d FROM (
         SELECT (SELECT sum(closed_changes) FROM trader_recent_days WHERE day = ${TODAY} AND wallet != '')
              - (SELECT sum(closed_changes) FROM trader_window_counts WHERE day = ${TODAY}) AS d)
        WHERE d != 0`,
      windowBounds(nowMs),
    );
  }
}
