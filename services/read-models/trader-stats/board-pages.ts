/**
 * The boards without a category, built as pages: the first `depth` ranks of each board (1,000 by
 * default, LEADERBOARD_PAGE_DEPTH) in rank order with every figure an entry shows (leaderboard_pages,
 * migrations 0063-0064), so serving a page reads one key range in key order instead of ranking every
 * wallet and then completing the page from three tables (docs/POSITIONS.md "Board pages").
 * A page the build does not hold whole (past the depth of a board with more wallets) is ranked live,
 * which is exact either way. Only the depth is written because writing a board's rows is most of its
 * cost.
 *
 * What it changes: a board is as fresh as its last build (`data_as_of` of each entry is the ledger's
 * position the build read), not as the ledger. A build runs every LEADERBOARD_BUILD_INTERVAL_MS when
 * anything a board shows has changed since the last one: the ledger's progress, the valuation pass's
 * newest row, the 30-day window's counts or the UTC day. Its cost follows the wallets (every wallet's
 * figures are read to rank them), not the fills: the figures are read from the pre-aggregated
 * per-wallet rows.
 *
 * A build fills the `_next` tables and exchanges leaderboard_pages with leaderboard_pages_next
 * (atomically), so a read sees one whole build; a build that stops midway leaves the served table as it
 * was and the next build truncates what it left. One builder at a time: it runs in the process that runs
 * the valuation pass. In the embedded twin statements run one at a time, so reads arriving during a
 * build wait behind its running statement (docs/POSITIONS.md "Board pages").
 */
import type { Logger } from '../../logger.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { readParts } from '../../analytics/read-parts.js';
import { runPeriodically } from '../../shared/periodic.js';
import { startOfUtcDay } from '../../shared/time.js';
import { PROGRESS_PART, type Progress } from '../positions/queries.js';
import { type BoardWindow, directionOf, type SortBy } from './rankings.js';
import { windowBounds, windowFiguresSql } from './trader-window.js';

/**
 * The boards built as pages: every sort of the whole history and both 30-day sorts, each with what it
 * ranks by and which wallets it holds, as columns of leaderboard_figures_next. They rank as the live
 * boards do (rankings.ts): realized PnL and volume from trader_lifetime, every wallet with a row there;
 * total PnL, win rate and risk as the valuation pass stored them, every valued wallet with the figure;
 * the 30-day sums of trader_recent_days (trader-window.ts), every wallet with a row in the window.
 */
export const PAGED_BOARDS: ReadonlyArray<{ sortBy: SortBy; window: BoardWindow; value: string; on: string }> = [
  { sortBy: 'total_realized_pnl', window: 'all', value: 'realized', on: 'in_lifetime = 1' },
  { sortBy: 'volume', window: 'all', value: 'volume', on: 'in_lifetime = 1' },
  { sortBy: 'total_pnl', window: 'all', value: 'valued_total', on: 'valued = 1' },
  { sortBy: 'win_rate_pct', window: 'all', value: 'win_rate_pct', on: 'valued = 1 AND win_rate_pct IS NOT NULL' },
  { sortBy: 'risk_score', window: 'all', value: 'risk_score', on: 'valued = 1 AND risk_score IS NOT NULL' },
  { sortBy: 'total_realized_pnl', window: '30d', value: 'window_realized', on: 'in_window = 1' },
  { sortBy: 'volume', window: '30d', value: 'window_volume', on: 'in_window = 1' },
];

function boardName(sortBy: SortBy, window: BoardWindow): string {
  return `${sortBy}:${window}`;
}

/** An entry's figures, from a page or computed live (leaderboard.ts); micro-units and Unix ms. */
export interface BoardRow {
  wallet: string;
  /** A category board's category as stored (live only). */
  category?: string;
  sort_value: number;
  realized: number;
  unrealized: number;
  volume: number;
  trades: number;
  won: number;
  lost: number;
  win_rate_pct: number | null;
  risk_score: number | null;
  realized_30d: number;
  volume_30d: number;
  /** Fees paid, lifetime and in the last 30 UTC days (USDC micro-units). */
  fees: number;
  fees_30d: number;
  last_ms: number | null;
  /** When the wallet was valued; null when it never was. */
  valued_ms: number | null;
  /** The build's time (a page) or the request's (live): stats_as_of of a wallet never valued. */
  built_ms: number;
  /** The time up to which the figures include every change of the ledger (its progress; 0 before any). */
  data_ms: number;
}

/** The leaderboard's filters, as the SQL's params (leaderboard.ts). */
export interface BoardFilters {
  byLifetime: boolean;
  byValuation: boolean;
}

const PAGE_COLUMNS = `wallet, sort_value, realized, unrealized, volume, trades, won, lost, win_rate_pct, risk_score,
  realized_30d, volume_30d, fees, fees_30d, last_ms, valued_ms, built_ms, data_ms, truncated`;

/**
 * A page of a built board after the cursor, filtered as the live board filters (leaderboard.ts); null
 * when the build does not hold the page whole, and the caller then ranks it live: nothing built yet,
 * nothing of the build passes, or fewer than `take` rows of a board built to its depth only (the rest of
 * the page may lie past it).
 */
export async function readBoardPage(
  store: AnalyticsStore,
  board: { sortBy: SortBy; window: BoardWindow },
  filters: BoardFilters,
  params: Record<string, unknown>,
  after: { value: number; wallet: string } | null,
  take: number,
): Promise<BoardRow[] | null> {
  const conditions = ['board = {board:String}'];
  // The live board's filters read trader_lifetime and trader_valuation with FINAL: a wallet must have a row there.
  if (filters.byLifetime) conditions.push('in_lifetime = 1 AND volume >= {min_volume_micro:Int64} AND trades >= {min_trades:Int64}');
  if (filters.byValuation)
    conditions.push('valued = 1 AND ifNull(win_rate_pct, -1) >= {min_win_rate:Float64} AND risk_score <= {max_risk_score:Float64}');
  if (after)
    conditions.push(
      `(sort_value, wallet) ${directionOf(board.sortBy) === 'DESC' ? '<' : '>'} ({after_value:Float64}, {after_wallet:String})`,
    );
  const rows = await store.query<BoardRow & { truncated: number }>(
    `SELECT ${PAGE_COLUMNS} FROM leaderboard_pages WHERE ${conditions.join(' AND ')} ORDER BY rank LIMIT {take:UInt32}`,
    { ...params, board: boardName(board.sortBy, board.window), take, after_value: after?.value, after_wallet: after?.wallet },
  );
  // A board built to its depth only holds a page that ends before it: `take` rows.
  if (rows.length === 0 || (rows.length < take && Number(rows[0]!.truncated) === 1)) return null;
  return rows.map(({ truncated: _, ...row }) => row);
}

export interface BoardBuild {
  built: boolean;
  rows: number;
  ms: number;
}

export class BoardPages {
  /** What the last build read (`signature`); a build is skipped while it is unchanged. */
  private lastSignature: string | null = null;

  constructor(
    private readonly store: AnalyticsStore,
    /** Ranks written per board (LEADERBOARD_PAGE_DEPTH); the rest of a longer board is ranked live when read. */
    private readonly depth: number,
  ) {}

  /** Builds every paged board when something a board shows changed since the last build (or `force`). */
  async build(nowMs = Date.now(), force = false, signal?: AbortSignal): Promise<BoardBuild> {
    const started = performance.now();
    const signature = await this.signature(nowMs);
    if (!force && signature.key === this.lastSignature) return { built: false, rows: 0, ms: performance.now() - started };
    const bounds = windowBounds(nowMs);
    await this.store.command('TRUNCATE TABLE leaderboard_figures_next');
    await this.store.command('TRUNCATE TABLE leaderboard_pages_next');
    // Missing rows of a joined side take the column's default (join_use_nulls = 0): 0, or NULL where
    // the column is Nullable; `in_lifetime` and `valued` say whether the wallet had a row.
    await this.store.command(
      `INSERT INTO leaderboard_figures_next
       SELECT wallet, v.total, w.in_window, w.window_realized, w.window_volume,
              t.r, v.unrealized, t.vol, t.n, t.in_lifetime, v.won, v.lost, v.win_rate_pct, v.risk_score,
              v.valued, v.valued_ms, d.r, d.vol, t.l, t.f, d.f
         FROM (SELECT wallet, sum(realized) AS r, sum(volume) AS vol, sum(trades) AS n,
                      toUnixTimestamp64Milli(max(last_time)) AS l, toUInt8(1) AS in_lifetime, sum(fees) AS f
                 FROM trader_lifetime GROUP BY wallet) AS t
         FULL OUTER JOIN
              (SELECT wallet, total_pnl AS total, unrealized, toInt64(won) AS won, toInt64(lost) AS lost, win_rate_pct,
                      toNullable(risk_score) AS risk_score, toUInt8(1) AS valued,
                      toNullable(toUnixTimestamp64Milli(valued_at)) AS valued_ms
                 FROM trader_valuation FINAL) AS v USING (wallet)
         LEFT JOIN
              (SELECT wallet, sum(realized) AS r, sum(volume) AS vol, sum(fees) AS f FROM trader_days
                WHERE day >= toDate({from30:Int64}, 'UTC') GROUP BY wallet) AS d USING (wallet)
         LEFT JOIN (SELECT *, toUInt8(1) AS in_window FROM (${windowFiguresSql()})) AS w USING (wallet)`,
      bounds,
    );
    // A board's rows are the first `depth` of the figures' rows it holds, ranked, and whether it holds
    // more: writing only the depth is what keeps a build's cost down.
    const built = Date.now();
    for (const board of PAGED_BOARDS) {
      // A stop need not wait for every board: a build left midway is never served (see above).
      signal?.throwIfAborted();
      const direction = directionOf(board.sortBy);
      const order = `${board.value} ${direction}, wallet ${direction}`;
      await this.store.command(
        `INSERT INTO leaderboard_pages_next (board, rank, wallet, sort_value, realized, unrealized, volume, trades, in_lifetime, won, lost,
                                            win_rate_pct, risk_score, valued, valued_ms, realized_30d, volume_30d, fees, fees_30d, last_ms, built_ms, data_ms,
                                            truncated)
         WITH (SELECT count() > {depth:UInt32} FROM leaderboard_figures_next WHERE ${board.on}) AS truncated
         SELECT {board:String}, toUInt32(row_number() OVER (ORDER BY ${order})), wallet,
                toFloat64(${board.value}), realized, unrealized, volume, trades, in_lifetime, won, lost, win_rate_pct, risk_score,
                valued, valued_ms, realized_30d, volume_30d, fees, fees_30d, last_ms, {built:Int64}, {data_ms:Int64}, toUInt8(truncated)
           FROM (SELECT * FROM leaderboard_figures_next WHERE ${board.on} ORDER BY ${order} LIMIT {depth:UInt32})`,
        { board: boardName(board.sortBy, board.window), built, data_ms: signature.dataMs, depth: this.depth },
      );
    }
    await this.store.command('EXCHANGE TABLES leaderboard_pages AND leaderboard_pages_next');
    this.lastSignature = signature.key;
    const [row] = await this.store.query<{ n: number }>('SELECT count() AS n FROM leaderboard_pages');
    return { built: true, rows: Number(row?.n ?? 0), ms: performance.now() - started };
  }

  /**
   * What the boards show depends on, read before the figures (so a build's figures include at least
   * what its `data_ms` says): the ledger's progress, the valuation pass's newest row, the 30-day
   * window's counts (trader-window.ts) and the UTC day.
   */
  private async signature(nowMs: number): Promise<{ key: string; dataMs: number }> {
    const row = await readParts<{ progress: Progress; valued: number | null; window: [number, number] }>(this.store, {
      progress: PROGRESS_PART,
      valued: 'SELECT toUnixTimestamp64Milli(max(valued_at)) AS value FROM trader_valuation',
      window: 'SELECT (toInt64(sum(changes)), toInt64(sum(closed_changes))) AS value FROM trader_window_counts',
    });
    const [lastMs, , count] = row.progress;
    return {
      key: JSON.stringify([row.progress, row.valued, row.window, startOfUtcDay(nowMs)]),
      dataMs: Number(count) === 0 ? 0 : Number(lastMs),
    };
  }
}

/**
 * Builds the board pages (`depth` ranks each) every `intervalMs` when anything they show changed (first
 * at once), never overlapping.
 */
export function startBoardPages(store: AnalyticsStore, intervalMs: number, logger: Logger, depth: number) {
  const pages = new BoardPages(store, depth);
  return runPeriodically(
    async (signal) => {
      const build = await pages.build(Date.now(), false, signal);
      if (build.built) logger.debug(build, 'leaderboard pages built');
    },
    intervalMs,
    (error) => logger.error({ err: error }, 'building the leaderboard pages failed'),
  );
}
