/**
 * Reads of the position ledger's tables, for the trader routes, the valuation pass and other read
 * models (copy trading reads positions and per-category figures through here). Every read is bounded:
 * per-wallet reads touch that wallet's pre-aggregated rows only; leaderboards read one row per wallet.
 */
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { DAY_MS, iso, startOfUtcDay } from '../../shared/time.js';
import { dailyCloses, marketInfo, type MarketInfo, outcomeQuotes } from './market-data.js';
import { type MarketRow, type PositionRow, traderReport, type TraderReport, type WalletData } from './trader-report.js';

export type { MarketInfo } from './market-data.js';
export type { TraderReport, ValuedPosition, CategoryFigures } from './trader-report.js';

const big = (v: unknown) => BigInt(String(v ?? '0'));

/** How far the ledger has applied the log: the newest change applied (block time and block). */
export interface DataAsOf {
  time: string | null;
  block: number | null;
}

export async function dataAsOf(store: AnalyticsStore): Promise<DataAsOf> {
  const [row] = await store.query<{ last_ms: string | null; last_block: string | null; n: string }>(
    `SELECT toUnixTimestamp64Milli(max(last_time)) AS last_ms, toString(maxIf(last_block, origin = 'chain')) AS last_block, toString(count()) AS n
       FROM ledger_progress`,
  );
  if (!row || Number(row.n) === 0) return { time: null, block: null };
  const block = Number(row.last_block);
  return { time: iso(Number(row.last_ms)), block: block > 0 ? block : null };
}

/** The ledger rows of these wallets that statistics need: totals, last 30 days, positions, markets, and the curve's inputs. */
export async function loadWalletData(
  store: AnalyticsStore,
  wallets: string[],
  options: { nowMs: number; curveDays: number },
): Promise<Map<string, WalletData>> {
  const result = new Map<string, WalletData>();
  if (wallets.length === 0) return result;
  const today = startOfUtcDay(options.nowMs);
  const from30 = today - 29 * DAY_MS;
  const curveFrom = today - (options.curveDays - 1) * DAY_MS;
  const params = { wallets, from30: from30 / 1000, curveFrom: curveFrom / 1000 };
  const totals = await store.query<Record<string, string>>(
    `SELECT wallet, toString(sum(realized)) AS realized, toString(sum(volume)) AS volume, toString(sum(trades)) AS trades,
            toUnixTimestamp64Milli(min(first_time)) AS first_ms, toUnixTimestamp64Milli(max(last_time)) AS last_ms
       FROM trader_totals WHERE wallet IN {wallets:Array(String)} GROUP BY wallet HAVING sum(trades) != 0 OR sum(realized) != 0 OR count() > 0
       SETTINGS prefer_column_name_to_alias = 1`,
    params,
  );
  for (const t of totals) {
    result.set(t.wallet!, {
      wallet: t.wallet!,
      totals: {
        realized: big(t.realized),
        volume: big(t.volume),
        trades: Number(t.trades),
        first_ms: Number(t.first_ms),
        last_ms: Number(t.last_ms),
      },
      last30: { realized: 0n, volume: 0n, trades: 0 },
      positions: [],
      markets: [],
      curve: {
        fromDayMs: curveFrom,
        toDayMs: today,
        realizedBefore: 0n,
        dailyRealized: new Map(),
        states: [],
      },
    });
  }
  if (result.size === 0) return result;
  const daily = await store.query<Record<string, string>>(
    `SELECT wallet, toUnixTimestamp(toDateTime(day, 'UTC')) * 1000 AS day_ms, toString(sum(realized)) AS realized, toString(sum(volume)) AS volume, toString(sum(trades)) AS trades
       FROM trader_daily WHERE wallet IN {wallets:Array(String)} AND day >= toDate(least({from30:Int64}, {curveFrom:Int64}), 'UTC')
      GROUP BY wallet, day
       SETTINGS prefer_column_name_to_alias = 1`,
    params,
  );
  const before = await store.query<Record<string, string>>(
    `SELECT wallet, toString(sum(realized)) AS realized FROM trader_daily
      WHERE wallet IN {wallets:Array(String)} AND day < toDate({curveFrom:Int64}, 'UTC') GROUP BY wallet
       SETTINGS prefer_column_name_to_alias = 1`,
    params,
  );
  for (const d of daily) {
    const w = result.get(d.wallet!);
    if (!w) continue;
    const day = Number(d.day_ms);
    if (day >= from30) {
      w.last30.realized += big(d.realized);
      w.last30.volume += big(d.volume);
      w.last30.trades += Number(d.trades);
    }
    if (day >= curveFrom) w.curve!.dailyRealized.set(day, (w.curve!.dailyRealized.get(day) ?? 0n) + big(d.realized));
  }
  for (const b of before) {
    const w = result.get(b.wallet!);
    if (w) w.curve!.realizedBefore = big(b.realized);
  }
  const positions = await store.query<Record<string, string>>(
    `SELECT wallet, asset_id, market_id, outcome, outcome_index, toString(s.1) AS qty, toString(s.2) AS cost,
            toUnixTimestamp64Milli(s.3) AS opened_ms, last_ms, realized, bought, longshot
       FROM (SELECT wallet, asset_id, any(market_id) AS market_id, any(outcome) AS outcome, any(outcome_index) AS outcome_index,
                    argMaxMerge(state) AS s, toUnixTimestamp64Milli(max(last_time)) AS last_ms, toString(sum(realized)) AS realized,
                    toString(sum(bought_usdc)) AS bought, toString(sum(longshot_usdc)) AS longshot
               FROM position_current WHERE wallet IN {wallets:Array(String)} GROUP BY wallet, asset_id)
       SETTINGS prefer_column_name_to_alias = 1`,
    params,
  );
  for (const p of positions) {
    result.get(p.wallet!)?.positions.push({
      asset_id: p.asset_id!,
      market_id: p.market_id!,
      outcome: p.outcome!,
      outcome_index: Number(p.outcome_index),
      qty: big(p.qty),
      cost: big(p.cost),
      opened_ms: Number(p.opened_ms),
      last_ms: Number(p.last_ms),
      realized: big(p.realized),
      bought: big(p.bought),
      longshot: big(p.longshot),
    } satisfies PositionRow);
  }
  const markets = await store.query<Record<string, string>>(
    `SELECT wallet, market_id, toString(sum(realized)) AS realized, toString(sum(volume)) AS volume, toString(sum(trades)) AS trades, toString(sum(cost_in)) AS cost_in
       FROM trader_market_pnl WHERE wallet IN {wallets:Array(String)} GROUP BY wallet, market_id
       SETTINGS prefer_column_name_to_alias = 1`,
    params,
  );
  for (const m of markets) {
    result.get(m.wallet!)?.markets.push({
      market_id: m.market_id!,
      realized: big(m.realized),
      volume: big(m.volume),
      trades: Number(m.trades),
      cost_in: big(m.cost_in),
    } satisfies MarketRow);
  }
  // End-of-day states: the newest before the curve's first day, then each day in it.
  // Before the window: each token's newest state, applied on the window's first day (day_ms just before it).
  const states = await store.query<Record<string, string>>(
    `SELECT wallet, asset_id, any(mid) AS market_id, any(oi) AS outcome_index, {beforeMs:Int64} AS day_ms,
            toString(argMax(st, d).1) AS qty, toString(argMax(st, d).2) AS cost
       FROM (SELECT wallet, asset_id, any(market_id) AS mid, any(outcome_index) AS oi, day AS d, argMaxMerge(state) AS st
               FROM position_daily WHERE wallet IN {wallets:Array(String)} AND day < toDate({curveFrom:Int64}, 'UTC') GROUP BY wallet, d, asset_id)
      GROUP BY wallet, asset_id
     UNION ALL
     SELECT wallet, asset_id, any(market_id) AS market_id, any(outcome_index) AS outcome_index, toUnixTimestamp(toDateTime(day, 'UTC')) * 1000 AS day_ms,
            toString(argMaxMerge(state).1) AS qty, toString(argMaxMerge(state).2) AS cost
       FROM position_daily WHERE wallet IN {wallets:Array(String)} AND day >= toDate({curveFrom:Int64}, 'UTC') GROUP BY wallet, day, asset_id
     SETTINGS prefer_column_name_to_alias = 1`,
    { ...params, beforeMs: curveFrom - 1 },
  );
  for (const s of states) {
    result.get(s.wallet!)?.curve?.states.push({
      day_ms: Number(s.day_ms),
      asset_id: s.asset_id!,
      market_id: s.market_id!,
      outcome_index: Number(s.outcome_index),
      qty: big(s.qty),
      cost: big(s.cost),
    });
  }
  return result;
}

export interface WalletReports {
  reports: Map<string, { data: WalletData; report: TraderReport }>;
  markets: Map<string, MarketInfo>;
}

/** Statistics of these wallets at current marks (one set of queries for all of them). */
export async function walletReports(
  store: AnalyticsStore,
  wallets: string[],
  options: { nowMs: number; curveDays: number },
): Promise<WalletReports> {
  const data = await loadWalletData(store, wallets, options);
  const marketIds = new Set<string>();
  for (const w of data.values()) {
    for (const m of w.markets) marketIds.add(m.market_id);
    for (const p of w.positions) marketIds.add(p.market_id);
  }
  const markets = await marketInfo(store, [...marketIds]);
  const quotes = await outcomeQuotes(store, markets);
  const today = startOfUtcDay(options.nowMs);
  const closes = await dailyCloses(store, [...marketIds], today - (options.curveDays + 30) * DAY_MS, today);
  const reports = new Map<string, { data: WalletData; report: TraderReport }>();
  for (const [wallet, d] of data) reports.set(wallet, { data: d, report: traderReport(d, markets, quotes, closes, options.nowMs) });
  return { reports, markets };
}

/** Open positions of a wallet at current marks (what copy trading mirrors). */
export async function openPositions(store: AnalyticsStore, wallet: string, nowMs = Date.now()) {
  const { reports, markets } = await walletReports(store, [wallet], { nowMs, curveDays: 1 });
  const entry = reports.get(wallet);
  return { positions: entry ? entry.report.positions.filter((p) => p.qty > 0n) : [], markets };
}

/** Per-category figures of a wallet (realized, unrealized, volume, won, lost). */
export async function categoryFigures(store: AnalyticsStore, wallet: string, nowMs = Date.now()) {
  const { reports } = await walletReports(store, [wallet], { nowMs, curveDays: 1 });
  return reports.get(wallet)?.report.categories ?? [];
}

/** Categories with valued figures (the valuation pass writes one row per wallet and category it traded). */
export async function valuedCategories(store: AnalyticsStore): Promise<string[]> {
  const rows = await store.query<{ category: string }>('SELECT DISTINCT category FROM trader_category_valuation FINAL ORDER BY category');
  return rows.map((r) => r.category);
}

export interface CategoryLeader {
  wallet: string;
  category: string;
  /** Realized PnL in the category, micro-USDC. */
  realized: bigint;
  won: number;
  lost: number;
  winRatePct: number | null;
  riskScore: number | null;
  lastTradeMs: number | null;
}

/**
 * Up to `limit` wallets with positive realized PnL in `category` and at least `minResolved` won or lost
 * markets there, best first, as of the valuation pass (`trader_category_valuation`, `trader_valuation`).
 */
export async function categoryLeaders(
  store: AnalyticsStore,
  category: string,
  limit: number,
  minResolved: number,
): Promise<CategoryLeader[]> {
  const rows = await store.query<Record<string, string | number | null>>(
    `SELECT c.wallet AS wallet, c.category AS category, toString(c.realized) AS realized, c.won AS won, c.lost AS lost, c.win_rate_pct AS win_rate_pct,
            v.risk_score AS risk_score, toUnixTimestamp64Milli(v.last_trade_at) AS last_ms
       FROM (SELECT * FROM trader_category_valuation FINAL WHERE category = {category:String} AND realized > 0 AND won + lost >= {min:UInt32}) AS c
       LEFT JOIN (SELECT wallet, risk_score, last_trade_at FROM trader_valuation FINAL) AS v ON v.wallet = c.wallet
      ORDER BY c.realized DESC, c.wallet LIMIT {limit:UInt32}
     SETTINGS join_use_nulls = 1`,
    { category, limit, min: minResolved },
  );
  return rows.map((r) => ({
    wallet: String(r.wallet),
    category: String(r.category),
    realized: BigInt(String(r.realized)),
    won: Number(r.won),
    lost: Number(r.lost),
    winRatePct: r.win_rate_pct === null ? null : Number(r.win_rate_pct),
    riskScore: r.risk_score === null ? null : Number(r.risk_score),
    lastTradeMs: r.last_ms === null ? null : Number(r.last_ms),
  }));
}
