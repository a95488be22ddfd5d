/**
 * Trader intelligence: per-wallet stats, daily PnL curve and open positions computed live from the
 * wallet's fills; leaderboard and browse read trader_stats (refreshed by the stats job).
 */
import { Router, type Request } from 'express';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { round } from './trader-stats.js';
import { traderReport } from './trader-report.js';
import { activityToFills, mergeFills } from './activity-fills.js';
import { dailyCloses, marketInfo, outcomeQuotes, walletConversions, walletFills } from './wallet-data.js';
import { success } from '../../../api/envelope.js';
import { ApiError } from '../../../api/errors.js';
import { keysetPage } from '../../../api/keyset.js';
import type { LeaderEntry } from '../../../api/types.generated.js';
import { iso } from '../../shared/time.js';

const usd = (v: number) => round(v, 6);

async function loadReport(store: AnalyticsStore, request: Request, curveDays = 30) {
  const wallet = String(request.params.wallet).toLowerCase();
  const trades = await walletFills(store, wallet);
  if (trades.length === 0) throw ApiError.notFound(`no indexed trades for wallet ${wallet}`);
  const conversions = await walletConversions(store, wallet);
  const marketIds = [...new Set([...trades.map((f) => f.market_id), ...conversions.map((c) => c.market_id)])];
  const now = Date.now();
  const markets = await marketInfo(store, marketIds);
  const closes = await dailyCloses(store, marketIds, now);
  const quotes = await outcomeQuotes(store, markets);
  const fills = mergeFills(trades, activityToFills(conversions, markets));
  return { wallet, markets, report: traderReport(fills, markets, closes, now, curveDays, quotes) };
}

const SORTS = {
  total_realized_pnl: { all: 'realized_pnl', '30d': 'realized_pnl_30d', category: 'realized_pnl' },
  total_pnl: { all: 'total_pnl', '30d': 'total_pnl', category: 'total_pnl' },
  win_rate_pct: { all: 'win_rate_pct', '30d': 'win_rate_pct', category: 'win_rate_pct' },
  volume: { all: 'volume_usdc', '30d': 'volume_30d_usdc', category: 'volume_usdc' },
  risk_score: { all: 'risk_score', '30d': 'risk_score', category: null },
} as const;

async function rankedTraders(store: AnalyticsStore, request: Request, withRank: boolean) {
  const q = request.query;
  const sortBy = String(q.sort_by ?? 'total_realized_pnl') as keyof typeof SORTS;
  const window = String(q.window ?? 'all') as 'all' | '30d';
  const category = q.category ? String(q.category) : undefined;
  const column = category ? SORTS[sortBy].category : SORTS[sortBy][window];
  if (!column) throw ApiError.badRequest('sort_by: risk_score is not available per category');
  const filters = {
    min_volume: q.min_volume !== undefined ? Number(q.min_volume) : undefined,
    min_trades: q.min_trades !== undefined ? Number(q.min_trades) : undefined,
    min_win_rate: q.min_win_rate !== undefined ? Number(q.min_win_rate) : undefined,
    max_risk_score: q.max_risk_score !== undefined ? Number(q.max_risk_score) : undefined,
  };
  // Lowest risk ranks first; every other measure ranks highest first.
  const direction = sortBy === 'risk_score' ? 'ASC' : 'DESC';
  const conditions = [`${column} IS NOT NULL`];
  if (category) conditions.push('lower(category) = lower({category:String})');
  if (filters.min_volume !== undefined) conditions.push('volume_usdc >= {min_volume:Float64}');
  if (filters.min_trades !== undefined && !category) conditions.push('trades >= {min_trades:UInt64}');
  if (filters.min_win_rate !== undefined) conditions.push('win_rate_pct >= {min_win_rate:Float64}');
  if (filters.max_risk_score !== undefined && !category) conditions.push('risk_score <= {max_risk_score:Float64}');
  const table = category ? 'trader_category_stats' : 'trader_stats';
  type Ranked = Record<string, number | string | null>;
  // The cursor carries the rank of its row, so ranks continue across pages.
  const firstRank = (after: Array<string | number> | null) => (after ? Number(after[2]) + 1 : 1);
  return keysetPage<Ranked, LeaderEntry>(request, {
    filters: { sortBy, window, category, ...filters },
    shape: ['number', 'string', 'number'],
    fetch: (after, take) =>
      store.query<Ranked>(
        `SELECT *, assumeNotNull(${column}) AS sort_value, toUnixTimestamp64Milli(computed_at) AS computed_at_ms
           ${category ? '' : ', toUnixTimestamp64Milli(last_trade_at) AS last_trade_at_ms'}
           FROM ${table} FINAL WHERE ${[...conditions, ...(after ? [`(assumeNotNull(${column}), wallet) ${direction === 'DESC' ? '<' : '>'} ({after_value:Float64}, {after_wallet:String})`] : [])].join(' AND ')}
          ORDER BY sort_value ${direction}, wallet ${direction} LIMIT {take:UInt32}`,
        { ...filters, category, take, after_value: after?.[0], after_wallet: after?.[1] },
      ),
    keyOf: (r, index, after) => [Number(r.sort_value), String(r.wallet), firstRank(after) + index],
    present: (r, index, after) => ({
      ...(withRank ? { rank: firstRank(after) + index } : {}),
      wallet: String(r.wallet),
      category: category ? String(r.category) : null,
      total_realized_pnl: Number(r.realized_pnl),
      unrealized_pnl: Number(r.unrealized_pnl),
      total_pnl: Number(r.total_pnl),
      volume_usdc: Number(r.volume_usdc),
      won: Number(r.won),
      lost: Number(r.lost),
      win_rate_pct: r.win_rate_pct === null ? null : Number(r.win_rate_pct),
      risk_score: category ? null : Number(r.risk_score),
      trades: category ? null : Number(r.trades),
      realized_pnl_30d: category ? null : Number(r.realized_pnl_30d),
      volume_30d_usdc: category ? null : Number(r.volume_30d_usdc),
      last_trade_at: category ? null : iso(Number(r.last_trade_at_ms)),
      stats_as_of: iso(Number(r.computed_at_ms)),
    }),
  });
}

export function traderRoutes(store: AnalyticsStore): Router {
  const router = Router();

  router.get('/traders/browse', async (request, response) => {
    response.json(await rankedTraders(store, request, false));
  });

  router.get('/leaderboard', async (request, response) => {
    response.json(await rankedTraders(store, request, true));
  });

  router.get('/traders/:wallet', async (request, response) => {
    const { wallet, report } = await loadReport(store, request);
    response.json(
      success({
        wallet,
        lifetime: {
          total_realized_pnl: usd(report.realized),
          unrealized_pnl: usd(report.unrealized),
          total_pnl: usd(report.realized + report.unrealized),
          volume_usdc: usd(report.volume),
          trades: report.trades,
          markets_traded: report.marketsTraded,
          won: report.winLoss.won,
          lost: report.winLoss.lost,
          resolved: report.winLoss.resolved,
          win_rate_pct: report.winLoss.win_rate_pct,
        },
        last_30d: { total_realized_pnl: usd(report.realized30d), volume_usdc: usd(report.volume30d), trades: report.trades30d },
        risk_score: report.risk.score,
        risk_components: {
          concentration: report.risk.concentration,
          long_shot_share: report.risk.long_shot_share,
          drawdown: report.risk.drawdown,
        },
        category_pnl: report.categories,
        open_positions: report.positions.filter((p) => p.held > 0).length,
        first_trade_at: iso(report.firstTradeMs),
        last_trade_at: iso(report.lastTradeMs),
        basis: 'taker fills indexed by this service, plus splits, merges and redemptions for tracked wallets; weighted-average cost',
      }),
    );
  });

  router.get('/traders/:wallet/pnl', async (request, response) => {
    const days = Number(request.query.days ?? 30);
    const { wallet, report } = await loadReport(store, request, days);
    response.json(success({ wallet, days, points: report.curve }));
  });

  router.get('/positions/:wallet', async (request, response) => {
    const { wallet, markets, report } = await loadReport(store, request);
    const open = report.positions
      .filter((p) => p.held > 0)
      .map((p) => ({
        market_id: p.market_id,
        market_title: markets.get(p.market_id)?.title ?? '',
        market_status: markets.get(p.market_id)?.status ?? null,
        asset_id: p.asset_id,
        outcome: p.outcome,
        size_shares: round(p.held, 6),
        avg_entry_price: round(p.avg_price, 6),
        mark_price: p.mark,
        mark_basis: p.mark_basis,
        cost_basis_usdc: usd(p.held * p.avg_price),
        current_value_usdc: p.mark === null ? null : usd(p.held * p.mark),
        unrealized_pnl_usdc: usd(p.unrealized),
        realized_pnl_usdc: usd(p.realized),
        opened_at: iso(p.first_ms),
        last_trade_at: iso(p.last_ms),
      }))
      .sort((a, b) => (b.current_value_usdc ?? 0) - (a.current_value_usdc ?? 0));
    response.json(success({ wallet, as_of: iso(Date.now()), positions: open }));
  });

  return router;
}
