/**
 * The 30-day window of the leaderboards ranked by realized PnL or volume: the window's closed days
 * summed once per wallet by the valuation pass (a generation of trader_window), and today's rows added
 * on every request, so a request reads one row per wallet in the window instead of one per wallet and
 * day (migration 0054). The board stays as fresh as the ledger: today's rows are read live, and the
 * closed days are served only while they are what was summed.
 *
 * When a generation is served: its stamp names today as its day, and the ledger rows it sums (the
 * sum of its changes) equal the rows now dated on the window's closed days (the day totals of
 * trader_recent_days). Rows are only ever added (a late fill, a rewind's cancellation and replay, a
 * reorg's retraction all add rows), so any change dated on a closed day raises that count; a new day
 * finds no stamp. Otherwise the request sums every day of the window itself, as before, until the
 * pass sums the new window (at most once a minute, so a stream of late changes cannot make it rewrite
 * the window on every pass).
 */
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
 * The generation to serve for {today}, or 0: the newest one stamped for today, if the ledger rows dated
 * on the window's closed days are still the ones it summed (as WITH entries; `served` is the answer).
 */
const SERVED = `
  (SELECT argMax(tuple(generation, changes), generation) FROM trader_window WHERE wallet = '' AND to_day = ${TODAY}) AS stamp,
  (SELECT sum(changes) FROM trader_recent_days WHERE wallet = '' AND day >= ${FROM30} AND day < ${TODAY}) AS closed_rows,
  if(stamp.1 > 0 AND stamp.2 = closed_rows, stamp.1, toUInt64(0)) AS served`;

/** (wallet, v): the wallet's `column` summed over the window, for the 30-day boards. Params: windowBounds. */
export function windowRankingSql(column: 'realized' | 'volume'): string {
  return `WITH ${SERVED}
    SELECT wallet, sum(v) AS v FROM (
      SELECT wallet, ${column} AS v FROM trader_window WHERE generation = served AND served > 0 AND wallet != ''
      UNION ALL
      SELECT wallet, ${column} AS v FROM trader_recent_days WHERE day >= if(served > 0, ${TODAY}, ${FROM30}) AND wallet != ''
    ) GROUP BY wallet`;
}

/** A minute between summings: a superseded generation stays readable that long (statements stop at 5 s). */
const MIN_INTERVAL_MS = 60_000;

export class TraderWindow {
  private lastSummedMs = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: AnalyticsStore,
    private readonly minIntervalMs = MIN_INTERVAL_MS,
  ) {}

  /** The generation served for `nowMs` now (0: none holds; requests sum the window live). */
  async served(nowMs: number): Promise<number> {
    const [row] = await this.store.query<{ generation: string }>(
      `WITH ${SERVED} SELECT toString(served) AS generation`,
      windowBounds(nowMs),
    );
    return Number(row?.generation ?? 0);
  }

  /**
   * Sums the window's closed days again when no generation holds for `nowMs` and the last summing is
   * at least a minute old; returns the new generation, or null when nothing was summed.
   */
  async refresh(nowMs: number): Promise<number | null> {
    const bounds = windowBounds(nowMs);
    const [state] = await this.store.query<{ generation: string; newest: string }>(
      `WITH ${SERVED} SELECT toString(served) AS generation, toString((SELECT max(generation) FROM trader_window WHERE wallet = '')) AS newest`,
      bounds,
    );
    if (Number(state?.generation ?? 0) > 0 || Date.now() - this.lastSummedMs < this.minIntervalMs) return null;
    this.lastSummedMs = Date.now();
    const generation = Math.max(Date.now(), Number(state?.newest ?? 0) + 1);
    const params = { ...bounds, generation };
    await this.store.command(
      `INSERT INTO trader_window (generation, to_day, wallet, realized, volume, changes)
       SELECT {generation:UInt64}, ${TODAY}, wallet, sum(realized), sum(volume), sum(changes) FROM trader_recent_days
        WHERE day >= ${FROM30} AND day < ${TODAY} AND wallet != '' GROUP BY wallet`,
      params,
    );
    // The stamp counts what the generation sums, read from its own rows (one snapshot by construction).
    await this.store.command(
      `INSERT INTO trader_window (generation, to_day, wallet, realized, volume, changes)
       SELECT {generation:UInt64}, ${TODAY}, '', 0, 0, sum(changes) FROM trader_window WHERE generation = {generation:UInt64}`,
      params,
    );
    await this.dropSuperseded(generation);
    return generation;
  }

  /** Drops generations (rows and stamp) older than the one before `newest`: superseded at least a summing interval ago. */
  private async dropSuperseded(newest: number): Promise<void> {
    const parts = await this.store.query<{ id: string }>(
      `SELECT DISTINCT partition_id AS id FROM system.parts
        WHERE database = currentDatabase() AND table = 'trader_window' AND active AND toUInt64OrZero(partition_id) < {newest:UInt64}
        ORDER BY toUInt64OrZero(partition_id) DESC`,
      { newest },
    );
    for (const { id } of parts.slice(1)) {
      if (/^\d+$/.test(id)) await this.store.command(`ALTER TABLE trader_window DROP PARTITION ID '${id}'`);
    }
  }
}
