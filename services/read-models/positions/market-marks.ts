/**
 * The marks refresher: keeps market_marks (migration 0065), what the wallet reads value positions
 * with, one value per market read by key (market-data.ts), equal to what the three tables it is built
 * from (markets, market_closes, book_tops) hold. Views note every write to them in market_touches; a
 * run rebuilds the value of every market touched since the previous run began, less OVERLAP_MS, so a
 * write whose touch became visible after that run read the touches (an insert's views stamp the touch
 * before the insert is done) is still picked up by the next run. Its cost follows what was written,
 * never the history. The previous run's start is stored (market_marks_progress), so a restarted
 * refresher goes on from there; one stopped for over half the day touches are kept rebuilds every
 * market once. One refresher per store runs at a time (marksOf): the valuation pass refreshes
 * before it values (it must value with the marks it saw move), the job every MARKET_MARKS_INTERVAL_MS.
 */
import type { Logger } from '../../logger.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { runPeriodically } from '../../shared/periodic.js';
import { DAY_MS } from '../../shared/time.js';

/** How far back each run reads the touches from the previous run's start. */
export const OVERLAP_MS = 5_000;
/** How long market_touches keeps a touch (its TTL, migration 0065). */
export const TOUCHES_KEPT_MS = DAY_MS;
/** Markets rebuilt per statement. */
const CHUNK = 1_000;

/**
 * The values of the markets {ids:Array(String)} from the three tables, each read by key, every market
 * of the set (a market none of them holds gets an empty value). The days of market_closes from {from_day}
 * (a UTC day number) on are kept one by one, so a read dated from then on counts the inputs before its
 * day (market-data.ts); the refresher passes the day before its own.
 */
export const MARKS_OF_MARKETS = `
  SELECT i.id, c.row, k.c, k.total, k.days, b.books, now64(3)
    FROM (SELECT DISTINCT arrayJoin({ids:Array(String)}) AS id) AS i
    LEFT JOIN (
      SELECT market_id,
             toJSONString((market_id, title, category, status, outcomes, outcome_token_ids, outcome_prices, yes_index, toUnixTimestamp64Milli(closed_at))) AS row
        FROM markets FINAL WHERE market_id IN {ids:Array(String)}) AS c ON c.market_id = i.id
    LEFT JOIN (
      SELECT market_id, toNullable(anyIf(c, day = toDate(0))) AS c, toInt64(sumIf(n, day = toDate(0))) AS total,
             arraySort(groupArrayIf((toInt64(day), toInt64(n)), day != toDate(0) AND toInt64(day) >= {from_day:Int64})) AS days
        FROM (SELECT market_id, day, argMaxMerge(close) AS c, sum(inputs) AS n
                FROM market_closes WHERE market_id IN {ids:Array(String)} GROUP BY market_id, day)
       GROUP BY market_id) AS k ON k.market_id = i.id
    LEFT JOIN (
      SELECT market_id, arraySort(groupArray((asset_id, t.1, t.2, toUnixTimestamp64Milli(last)))) AS books
        FROM (SELECT market_id, asset_id, argMaxMerge(top) AS t, max(last_ts) AS last
                FROM book_tops WHERE market_id IN {ids:Array(String)} GROUP BY market_id, asset_id)
       GROUP BY market_id) AS b ON b.market_id = i.id
  SETTINGS join_use_nulls = 1`;
const REFRESH = `INSERT INTO market_marks (market_id, catalog, close, inputs_total, inputs_days, books, refreshed_at) ${MARKS_OF_MARKETS}`;

export interface MarksRun {
  markets: number;
  seconds: number;
}

export class MarketMarks {
  /** Start of the previous run (ms), null before the first: then every touch kept is read. */
  private since: number | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: AnalyticsStore,
    /** Tests shorten it. */
    private readonly overlapMs = OVERLAP_MS,
  ) {}

  /** Rebuilds the values of the markets touched since the previous run (less the overlap); runs one at a time. */
  refresh(nowMs = Date.now()): Promise<MarksRun> {
    const run = this.queue.then(() => this.refreshNow(nowMs));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async refreshNow(nowMs: number): Promise<MarksRun> {
    const started = performance.now();
    const startedMs = Date.now();
    if (this.since === null) this.since = await this.storedSince();
    let ids: string[];
    if (this.since !== null && startedMs - this.since > TOUCHES_KEPT_MS / 2) {
      // Stopped long enough that touches it never read may be gone: every market, once.
      ids = (
        await this.store.query<{ market_id: string }>(
          'SELECT DISTINCT market_id FROM (SELECT market_id FROM markets UNION ALL SELECT market_id FROM market_closes UNION ALL SELECT market_id FROM book_tops)',
        )
      ).map((r) => r.market_id);
    } else {
      const rows = await this.store.query<{ market_id: string }>(
        'SELECT DISTINCT market_id FROM market_touches WHERE touched_at >= fromUnixTimestamp64Milli({since:Int64})',
        { since: this.since === null ? 0 : this.since - this.overlapMs },
      );
      ids = rows.map((r) => r.market_id);
    }
    await this.rebuild(ids, nowMs);
    // Only after the values are written: a run that failed reads its touches again next time.
    await this.store.command('INSERT INTO market_marks_progress (id, since_ms) VALUES (0, {since:Int64})', { since: startedMs });
    this.since = startedMs;
    return { markets: ids.length, seconds: (performance.now() - started) / 1000 };
  }

  /** The start of the newest run that wrote its markets, by any refresher of this store (null: none yet). */
  private async storedSince(): Promise<number | null> {
    const [row] = await this.store.query<{ ms: string }>('SELECT toString(since_ms) AS ms FROM market_marks_progress WHERE id = 0');
    return row ? Number(row.ms) : null;
  }

  /** Rebuilds these markets' values now, whatever was touched. */
  async rebuild(ids: string[], nowMs = Date.now()): Promise<void> {
    // The day before the earlier of the caller's and the clock's: a pass valuing as of a later day
    // (tests do) must not drop the days a read dated now counts.
    const fromDay = Math.floor(Math.min(nowMs, Date.now()) / DAY_MS) - 1;
    for (let i = 0; i < ids.length; i += CHUNK) await this.store.command(REFRESH, { ids: ids.slice(i, i + CHUNK), from_day: fromDay });
  }
}

const refreshers = new WeakMap<AnalyticsStore, MarketMarks>();

/** The store's one refresher (runs are serialized, so two never write a market's value out of order). */
export function marksOf(store: AnalyticsStore): MarketMarks {
  let marks = refreshers.get(store);
  if (!marks) {
    marks = new MarketMarks(store);
    refreshers.set(store, marks);
  }
  return marks;
}

/** Refreshes the marks every `intervalMs` (first at once), never overlapping. */
export function startMarketMarks(store: AnalyticsStore, intervalMs: number, logger: Logger) {
  return runPeriodically(
    async () => {
      const run = await marksOf(store).refresh();
      if (run.markets > 0) logger.debug(run, 'market marks refreshed');
    },
    intervalMs,
    (error) => logger.error({ err: error }, 'market marks refresh failed'),
  );
}
