/**
 * Trader intelligence over the position ledger: per-wallet statistics and daily PnL curve from the
 * wallet's pre-aggregated rows; leaderboard and browse from one row per wallet.
 * Every response carries data_as_of: how far the ledger held every change when the rows served
 * were read (a wallet's snapshot lags the ledger by up to a refresher run:
 * ../positions/wallet-snapshots.ts), and coverage: from which block the figures are whole
 * (../positions/coverage.ts); in `data` where it is one object, beside `pagination` where it is a page
 * of wallets.
 */
import { queryOf } from '../../http/query.js';
import { type Request, Router } from 'express';
import { success } from '../../http/envelope.js';
import { ApiError } from '../../http/errors.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { servedAmount } from '../../shared/decimal.js';
import { iso } from '../../shared/time.js';
import { ledgerCoverage, walletCoverage, withWalletPredates } from '../positions/coverage.js';
import { walletReconciliation } from '../positions/upstream-reconciliation.js';
import { rankedTraders } from './leaderboard.js';
import { walletReports } from './queries.js';
import { round } from './trader-report.js';

async function loadReport(store: AnalyticsStore, request: Request, curveDays = 30) {
  const wallet = String(request.params.wallet).toLowerCase();
  const nowMs = Date.now();
  // One statement reads the wallet's snapshot (its rows and the ledger's progress when they were
  // read) and its markets' marks, each by key.
  const { reports, markets, asOf } = await walletReports(store, [wallet], { nowMs, curveDays, fromSnapshot: true });
  const entry = reports.get(wallet);
  if (!entry) throw ApiError.notFound(`no indexed trades for wallet ${wallet}`);
  return { wallet, markets, asOf, ...entry };
}

export function traderRoutes(store: AnalyticsStore): Router {
  const router = Router();

  // Each entry says whether its wallet predates the coverage: one read for the page (../positions/coverage.ts).
  const boardPage = async (request: Request, withRank: boolean) => {
    const page = await rankedTraders(store, request, withRank);
    const coverage = await ledgerCoverage(store);
    return { ...page, data: await withWalletPredates(store, page.data, coverage), coverage };
  };

  router.get('/traders/browse', async (request, response) => {
    response.json(await boardPage(request, false));
  });

  router.get('/leaderboard', async (request, response) => {
    response.json(await boardPage(request, true));
  });

  router.get('/traders/:wallet', async (request, response) => {
    const { wallet, data, report, asOf } = await loadReport(store, request);
    const reconciliation = await walletReconciliation(store, wallet);
    const coverage = await walletCoverage(store, wallet, await ledgerCoverage(store));
    response.json(
      success({
        wallet,
        lifetime: {
          total_realized_pnl: servedAmount(report.realized),
          unrealized_pnl: servedAmount(report.unrealized),
          total_pnl: servedAmount(report.realized + report.unrealized),
          volume_usdc: servedAmount(data.totals.volume),
          fees_paid_usdc: servedAmount(data.totals.fees),
          trades: data.totals.trades,
          markets_traded: report.marketsTraded,
          won: report.won,
          lost: report.lost,
          resolved: report.resolved,
          win_rate_pct: report.winRatePct,
        },
        last_30d: {
          total_realized_pnl: servedAmount(data.last30.realized),
          volume_usdc: servedAmount(data.last30.volume),
          fees_paid_usdc: servedAmount(data.last30.fees),
          trades: data.last30.trades,
        },
        risk_score: report.risk.score,
        risk_components: {
          concentration: report.risk.concentration,
          long_shot_share: report.risk.long_shot_share,
          drawdown: report.risk.drawdown,
          capital_at_risk_usdc: servedAmount(data.capitalAtRisk),
        },
        category_pnl: report.categories.map((c) => ({
          category: c.category,
          realized_pnl: servedAmount(c.realized),
          unrealized_pnl: servedAmount(c.unrealized),
          total_pnl: servedAmount(c.realized + c.unrealized),
          volume_usdc: servedAmount(c.volume),
          won: c.won,
          lost: c.lost,
          win_rate_pct: c.won + c.lost === 0 ? null : round((100 * c.won) / (c.won + c.lost), 2),
        })),
        open_positions: report.positions.filter((p) => p.qty > 0n).length,
        first_trade_at: data.totals.first_ms === null ? null : iso(data.totals.first_ms),
        last_trade_at: data.totals.last_ms === null ? null : iso(data.totals.last_ms),
        basis:
          'position ledger: every fill of the wallet (maker and taker) with splits, merges, redemptions and neg-risk conversions from Polygon; Data API taker trades and tracked-wallet activity where the chain does not cover; weighted-average cost',
        reconciliation,
        data_as_of: asOf.time,
        data_as_of_block: asOf.block,
        coverage,
      }),
    );
  });

  router.get('/traders/:wallet/pnl', async (request, response) => {
    const days = queryOf(request, 'getTraderPnl').days;
    const { wallet, report, asOf } = await loadReport(store, request, days);
    response.json(
      success({
        wallet,
        days,
        points: report.curve.map((p) => ({
          date: p.date,
          realized: servedAmount(p.realized),
          unrealized: servedAmount(p.unrealized),
          total: servedAmount(p.total),
        })),
        data_as_of: asOf.time,
        data_as_of_block: asOf.block,
        coverage: await ledgerCoverage(store),
      }),
    );
  });

  return router;
}
