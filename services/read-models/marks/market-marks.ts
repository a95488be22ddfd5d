/**
 * The marks refresher: keeps market_marks (migration 0065), what the wallet reads value positions
 * with, one value per market read by key (positions/market-data.ts), equal to what the tables it is built
 * from (markets with chain_resolutions, market_closes, book_tops) hold. Views note every write to them in market_touches,
 * and the refresher rebuilds the markets touched since its previous run (../touch-refresher.ts). One
 * refresher per store runs at a time (marksOf): the valuation pass refreshes before it values (it
 * must value with the marks it saw move), the job every MARKET_MARKS_INTERVAL_MS.
 */
import type { Logger } from '../../logger.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { DAY_MS } from '../../shared/time.js';
import { OVERLAP_MS, perStore, startRefresher, TouchRefresher } from '../touch-refresher.js';

/** Markets rebuilt per statement. */
const CHUNK = 1_000;

/**
 * The values of the markets {ids:Array(String)} from the three tables, each read by key, every market
 * of the set (a market none of them holds gets an empty value). The days of market_closes from {from_day}
 * (a UTC day number) on are kept one by one, so a read dated from then on counts the inputs before its
 * day (positions/market-data.ts); the refresher passes the day before its own.
 */
export const MARKS_OF_MARKETS = `
  SELECT i.id, c.row, k.c, k.total, k.days, b.books, now64(3)
    FROM (SELECT DISTINCT arrayJoin({ids:Array(String)}) AS id) AS i
    LEFT JOIN (
      SELECT m.market_id AS market_id,
             -- A resolution the chain holds values the market at its payout, whatever the catalog shows: Gamma
             -- shows it minutes later (a read as of a block counts that block), and the CTF pays by the chain's
             -- numerators (the ledger prices redemptions by them too: ../positions/ledger.ts).
             arraySum(r.nums) > 0 AS chained,
             toJSONString((m.market_id, m.title, m.category,
                           if(chained, if(arrayUniq(r.nums) = 1, 'voided', 'resolved'), m.status),
                           m.outcomes, m.outcome_token_ids,
                           if(chained, arrayMap(n -> n / arraySum(r.nums), r.nums), m.outcome_prices),
                           m.yes_index,
                           toUnixTimestamp64Milli(if(chained, coalesce(m.closed_at, r.at), m.closed_at)))) AS row
        FROM (SELECT market_id, title, category, status, outcomes, outcome_token_ids, outcome_prices, yes_index, closed_at
                FROM markets FINAL WHERE market_id IN {ids:Array(String)}) AS m
        LEFT JOIN (
          SELECT market_id, argMax(arrayMap(n -> toFloat64(n), payout_numerators), (block_number, log_index)) AS nums,
                 argMax(block_time, (block_number, log_index)) AS at
            FROM chain_resolutions FINAL WHERE market_id IN {ids:Array(String)} AND NOT retracted
           GROUP BY market_id) AS r ON r.market_id = m.market_id) AS c ON c.market_id = i.id
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

export class MarketMarks extends TouchRefresher {
  constructor(store: AnalyticsStore, overlapMs = OVERLAP_MS) {
    super(
      store,
      {
        touches: 'market_touches',
        key: 'market_id',
        progress: 'market_marks_progress',
        allKeys:
          'SELECT DISTINCT market_id FROM (SELECT market_id FROM markets UNION ALL SELECT market_id FROM market_closes UNION ALL SELECT market_id FROM book_tops)',
        rebuild: (ids, nowMs, signal) => this.rebuild(ids, nowMs, signal),
      },
      overlapMs,
    );
  }

  /** Rebuilds these markets' values now, whatever was touched. */
  async rebuild(ids: string[], nowMs = Date.now(), signal?: AbortSignal): Promise<void> {
    // The day before the earlier of the caller's and the clock's: a pass valuing as of a later day
    // (tests do) must not drop the days a read dated now counts.
    const fromDay = Math.floor(Math.min(nowMs, Date.now()) / DAY_MS) - 1;
    for (let i = 0; i < ids.length; i += CHUNK) {
      signal?.throwIfAborted();
      await this.store.command(REFRESH, { ids: ids.slice(i, i + CHUNK), from_day: fromDay });
    }
  }
}

/** The store's one marks refresher (runs are serialized, so two never write a market's value out of order). */
export const marksOf = perStore((store) => new MarketMarks(store));

/** Refreshes the marks every `intervalMs` (first at once), never overlapping. */
export function startMarketMarks(store: AnalyticsStore, intervalMs: number, logger: Logger) {
  return startRefresher(marksOf(store), 'market marks', intervalMs, logger);
}
