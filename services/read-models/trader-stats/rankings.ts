/**
 * What each (sort_by, window, category) combination ranks by: rows (wallet, v), highest v first except
 * risk_score, ranked when requested (leaderboard.ts); the board pages rank by the same figures
 * (board-pages.ts PAGED_BOARDS).
 *
 * Every combination served ranks by figures of that window and category; the others are refused with
 * 400 (docs/POSITIONS.md "Leaderboards").
 */
import { ApiError } from '../../http/errors.js';
import { windowRankingSql } from './trader-window.js';

export type SortBy = 'total_realized_pnl' | 'total_pnl' | 'win_rate_pct' | 'volume' | 'risk_score';
export type BoardWindow = 'all' | '30d';

/** Lowest risk ranks first; every other measure ranks highest first. */
export function directionOf(sortBy: SortBy): 'ASC' | 'DESC' {
  return sortBy === 'risk_score' ? 'ASC' : 'DESC';
}

/** The ranking query of one combination: a SELECT of (wallet, v). Params: category, windowBounds. */
export function rankingSql(sortBy: SortBy, window: BoardWindow, category: string | undefined): string {
  if (category) {
    if (window === '30d') throw ApiError.badRequest('window: category rankings cover the whole history (window=all)');
    if (sortBy === 'risk_score') throw ApiError.badRequest('sort_by: risk_score is not available per category');
    if (sortBy === 'total_realized_pnl' || sortBy === 'volume') {
      const column = sortBy === 'volume' ? 'volume' : 'realized';
      // Categories are joined when read, so a market that changes category moves its figures at once.
      return `SELECT wallet, sum(${column}) AS v FROM trader_market_pnl
                WHERE market_id IN (SELECT market_id FROM markets FINAL WHERE lower(category) = lower({category:String})) GROUP BY wallet`;
    }
    const column = sortBy === 'total_pnl' ? 'total_pnl' : 'win_rate_pct';
    return `SELECT wallet, ${column} AS v FROM trader_category_valuation FINAL WHERE lower(category) = lower({category:String}) AND ${column} IS NOT NULL`;
  }
  if (sortBy === 'total_realized_pnl' || sortBy === 'volume') {
    const column = sortBy === 'volume' ? 'volume' : 'realized';
    // The window's closed days summed once per wallet by the valuation pass, plus today (trader-window.ts).
    if (window === '30d') return windowRankingSql(column);
    // FINAL merges the table's sorted parts in order, one row per wallet, where GROUP BY would hash
    // every wallet.
    return `SELECT wallet, ${column} AS v FROM trader_lifetime FINAL`;
  }
  if (window === '30d') throw ApiError.badRequest(`window: 30d ranks by total_realized_pnl or volume; ${sortBy} covers the whole history`);
  const column = sortBy === 'total_pnl' ? 'total_pnl' : sortBy === 'win_rate_pct' ? 'win_rate_pct' : 'risk_score';
  return `SELECT wallet, ${column} AS v FROM trader_valuation FINAL WHERE ${column} IS NOT NULL`;
}
