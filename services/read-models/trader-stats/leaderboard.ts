/**
 * Leaderboard and browse. The boards without a category are served from their last build
 * (board-pages.ts): one read of a key range, every figure in the row. Category boards, every board
 * before the first build and pages past a board's built depth are ranked live: one row per wallet
 * from the views (realized PnL, volume, fills: as fresh as the ledger) or from the valuation pass
 * (total PnL, win rate, risk: as fresh as its last pass), with keyset pagination; the page's wallets
 * are then completed from the other tables.
 *
 * Every (sort_by, window, category) combination served ranks by figures of that window and category;
 * the others are refused with 400 (rankings.ts, docs/POSITIONS.md "Leaderboards").
 */
import { queryOf } from '../../http/query.js';
import type { Request } from 'express';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { keysetPage } from '../../http/keyset.js';
import type { LeaderEntry } from '../../http/types.generated.js';
import { iso } from '../../shared/time.js';
import { microsOf, servedAmount } from '../../shared/decimal.js';
import { readParts } from '../../analytics/read-parts.js';
import { asOfFrom, PROGRESS_PART, type Progress } from '../positions/queries.js';
import { type BoardRow, readBoardPage } from './board-pages.js';
import { type BoardWindow, directionOf, rankingSql, type SortBy } from './rankings.js';
import { windowBounds } from './trader-window.js';

/** A stored micro-unit integer (Int64, read as a number or its text) as a bigint. */
const micros = (value: number | string | bigint) => BigInt(value);
/** A stored micro-unit integer as served: through the one rounding rule of the Conventions. */
const usdc = (value: number | string | bigint) => servedAmount(micros(value));

interface Ranked {
  wallet: string;
  sort_value: number;
}

export async function rankedTraders(store: AnalyticsStore, request: Request, withRank: boolean) {
  // /leaderboard takes the parameters of /traders/browse without its filters.
  const q = queryOf(request, 'browseTraders');
  const sortBy: SortBy = q.sort_by;
  const window: BoardWindow = q.window;
  const category = q.category || undefined;
  const filters = { min_volume: q.min_volume, min_trades: q.min_trades, min_win_rate: q.min_win_rate, max_risk_score: q.max_risk_score };
  // Refuses the combinations no board ranks (400) before anything is read.
  const ranking = rankingSql(sortBy, window, category);
  const direction = directionOf(sortBy);
  const byLifetime = filters.min_volume !== undefined || filters.min_trades !== undefined;
  const byValuation = filters.min_win_rate !== undefined || filters.max_risk_score !== undefined;
  const conditions: string[] = [];
  if (byLifetime) {
    conditions.push(`wallet IN (SELECT wallet FROM trader_lifetime FINAL
       WHERE volume >= {min_volume_micro:Int64} AND trades >= {min_trades:Int64})`);
  }
  if (byValuation) {
    conditions.push(`wallet IN (SELECT wallet FROM trader_valuation FINAL
       WHERE ifNull(win_rate_pct, -1) >= {min_win_rate:Float64} AND risk_score <= {max_risk_score:Float64})`);
  }
  const params = {
    category,
    ...windowBounds(Date.now()),
    // As a bigint: up to the documented 10^12 USDC the bound exceeds 2^53 micro-units.
    min_volume_micro: microsOf(filters.min_volume ?? 0),
    min_trades: filters.min_trades ?? 0,
    min_win_rate: filters.min_win_rate ?? -1,
    max_risk_score: filters.max_risk_score ?? 100,
  };
  const firstRank = (after: Array<string | number> | null) => (after ? Number(after[2]) + 1 : 1);
  const live = async (after: Array<string | number> | null, take: number): Promise<BoardRow[]> => {
    const cursor = after ? [`(v, wallet) ${direction === 'DESC' ? '<' : '>'} ({after_value:Float64}, {after_wallet:String})`] : [];
    const rows = await store.query<Ranked>(
      `SELECT wallet, toFloat64(v) AS sort_value FROM (${ranking})
        ${[...conditions, ...cursor].length > 0 ? `WHERE ${[...conditions, ...cursor].join(' AND ')}` : ''}
        ORDER BY v ${direction}, wallet ${direction} LIMIT {take:UInt32}`,
      { ...params, take, after_value: after?.[0], after_wallet: after?.[1] },
    );
    const figures = await pageFigures(
      store,
      rows.map((r) => r.wallet),
      category,
      params.from30,
    );
    return rows.map((r) => liveRow(r, figures, category));
  };
  // wallet_predates is added by the route for the whole page (../positions/coverage.ts withWalletPredates).
  const result = await keysetPage<BoardRow, Omit<LeaderEntry, 'wallet_predates'>>(request, {
    filters: { sortBy, window, category, ...filters },
    shape: ['number', 'string', 'int'],
    fetch: async (after, take) => {
      if (!category) {
        const built = await readBoardPage(
          store,
          { sortBy, window },
          { byLifetime, byValuation },
          params,
          after ? { value: Number(after[0]), wallet: String(after[1]) } : null,
          take,
        );
        // null: nothing built yet, nothing of this build passes, or a page past a board's built depth:
        // ranked live, which is exact either way.
        if (built) return built;
      }
      return live(after, take);
    },
    keyOf: (r, index, after) => [Number(r.sort_value), String(r.wallet), firstRank(after) + index],
    present: (r, index, after) => ({
      ...(withRank ? { rank: firstRank(after) + index } : {}),
      wallet: r.wallet,
      // The category as stored (its case), which a live category board reads.
      category: category ? (r.category ?? category) : null,
      total_realized_pnl: usdc(r.realized),
      unrealized_pnl: usdc(r.unrealized),
      total_pnl: servedAmount(micros(r.realized) + micros(r.unrealized)),
      volume_usdc: usdc(r.volume),
      won: Number(r.won),
      lost: Number(r.lost),
      win_rate_pct: r.win_rate_pct === null ? null : Number(r.win_rate_pct),
      risk_score: category || r.risk_score === null ? null : Number(r.risk_score),
      trades: category ? null : Number(r.trades),
      realized_pnl_30d: category ? null : usdc(r.realized_30d),
      volume_30d_usdc: category ? null : usdc(r.volume_30d),
      fees_paid_usdc: category ? null : usdc(r.fees),
      fees_paid_30d_usdc: category ? null : usdc(r.fees_30d),
      last_trade_at: category || !r.last_ms ? null : iso(Number(r.last_ms)),
      stats_as_of: iso(Number(r.valued_ms ?? r.built_ms)),
      data_as_of: Number(r.data_ms) > 0 ? iso(Number(r.data_ms)) : null,
    }),
  });
  return result;
}

/** A live-ranked wallet's entry figures, from the page's figures (pageFigures). */
function liveRow(r: Ranked, f: Awaited<ReturnType<typeof pageFigures>>, category: string | undefined): BoardRow {
  const t = f.totals.get(r.wallet);
  const v = f.valuation.get(r.wallet);
  const c = f.category.get(r.wallet);
  const d = f.last30.get(r.wallet);
  return {
    wallet: r.wallet,
    ...(c?.category ? { category: c.category } : {}),
    sort_value: r.sort_value,
    realized: category ? (c?.realized ?? 0) : (t?.realized ?? 0),
    unrealized: category ? (c?.unrealized ?? 0) : (v?.unrealized ?? 0),
    volume: category ? (c?.volume ?? 0) : (t?.volume ?? 0),
    trades: t?.trades ?? 0,
    won: (category ? c?.won : v?.won) ?? 0,
    lost: (category ? c?.lost : v?.lost) ?? 0,
    win_rate_pct: (category ? c?.win_rate_pct : v?.win_rate_pct) ?? null,
    risk_score: v?.risk_score ?? null,
    realized_30d: d?.realized ?? 0,
    volume_30d: d?.volume ?? 0,
    fees: t?.fees ?? 0,
    fees_30d: d?.fees ?? 0,
    last_ms: t?.last_ms ?? null,
    valued_ms: v?.valued_ms ?? c?.valued_ms ?? null,
    built_ms: Date.now(),
    data_ms: f.asOf.time === null ? 0 : Date.parse(f.asOf.time),
  };
}

interface Figures {
  realized: number;
  unrealized: number;
  volume: number;
  trades: number;
  fees: number;
  won: number;
  lost: number;
  win_rate_pct: number | null;
  risk_score: number;
  last_ms: number;
  valued_ms: number;
  category: string;
}

type Row = Array<string | number | null>;

/** Rows of [wallet, ...numbers] as Figures by wallet, the numbers named by `fields`. */
function byWallet(rows: Row[], fields: Array<keyof Figures>): Map<string, Figures> {
  const result = new Map<string, Figures>();
  for (const [wallet, ...values] of rows) {
    const figures = {} as Record<string, unknown>;
    fields.forEach((field, i) => {
      const value = values[i];
      figures[field] = field === 'category' || value === null || value === undefined ? value : Number(value);
    });
    result.set(String(wallet), figures as unknown as Figures);
  }
  return result;
}

/**
 * Everything a page shows about its wallets (at most `limit + 1` of them), in one statement of parts
 * (read-parts.ts: on chDB each statement costs a few ms before it reads anything, and the parts run
 * together), with the ledger's progress.
 */
async function pageFigures(store: AnalyticsStore, wallets: string[], category: string | undefined, from30: number) {
  const inWallets = 'wallet IN {wallets:Array(String)}';
  // Without a category the page needs no category part: each part of the statement costs its planning,
  // even when it reads nothing.
  const categoryParts = category
    ? {
        category_valuation: `
          SELECT groupArray((wallet, c, u, w, l, p, t)) AS value FROM (
            SELECT wallet, any(category) AS c, any(unrealized) AS u, any(won) AS w, any(lost) AS l,
                   any(win_rate_pct) AS p, any(toUnixTimestamp64Milli(valued_at)) AS t
              FROM trader_category_valuation FINAL WHERE ${inWallets} AND lower(category) = lower({category:String}) GROUP BY wallet)`,
        category_realized: `
          SELECT groupArray((wallet, r, v)) AS value FROM (
            SELECT wallet, sum(realized) AS r, sum(volume) AS v FROM trader_market_pnl
             WHERE ${inWallets} AND market_id IN (SELECT market_id FROM markets FINAL WHERE lower(category) = lower({category:String}))
             GROUP BY wallet)`,
      }
    : {};
  const row = await readParts<{
    progress: Progress;
    totals: Row[];
    last30: Row[];
    valuation: Row[];
    category_valuation?: Row[];
    category_realized?: Row[];
  }>(
    store,
    {
      progress: PROGRESS_PART,
      totals: `
        SELECT groupArray((wallet, r, v, n, l, f)) AS value FROM (
          SELECT wallet, sum(realized) AS r, sum(volume) AS v, sum(trades) AS n, toUnixTimestamp64Milli(max(last_time)) AS l, sum(fees) AS f
            FROM trader_lifetime WHERE ${inWallets} GROUP BY wallet)`,
      last30: `
        SELECT groupArray((wallet, r, v, f)) AS value FROM (
          SELECT wallet, sum(realized) AS r, sum(volume) AS v, sum(fees) AS f FROM trader_days
           WHERE ${inWallets} AND day >= toDate({from30:Int64}, 'UTC') GROUP BY wallet)`,
      valuation: `
        SELECT groupArray((wallet, unrealized, won, lost, win_rate_pct, risk_score, toUnixTimestamp64Milli(valued_at))) AS value
          FROM trader_valuation FINAL WHERE ${inWallets}`,
      ...categoryParts,
    },
    { wallets, category, from30 },
  );
  const categoryRows = byWallet(row.category_valuation ?? [], ['category', 'unrealized', 'won', 'lost', 'win_rate_pct', 'valued_ms']);
  for (const [wallet, realized, volume] of row.category_realized ?? []) {
    const entry = categoryRows.get(String(wallet)) ?? ({ won: 0, lost: 0, unrealized: 0, win_rate_pct: null } as unknown as Figures);
    categoryRows.set(String(wallet), { ...entry, realized: Number(realized), volume: Number(volume) });
  }
  return {
    totals: byWallet(row.totals, ['realized', 'volume', 'trades', 'last_ms', 'fees']),
    last30: byWallet(row.last30, ['realized', 'volume', 'fees']),
    valuation: byWallet(row.valuation, ['unrealized', 'won', 'lost', 'win_rate_pct', 'risk_score', 'valued_ms']),
    category: categoryRows,
    asOf: asOfFrom(row.progress),
  };
}
