/**
 * Recomputes trader_stats and trader_category_stats from trades, wallet bucket by wallet bucket
 * (cityHash64(wallet) % buckets) so memory stays bounded however many trades are stored.
 * Leaderboards are as fresh as the last run (the interval is config); per-wallet endpoints compute live.
 */
import type { Logger } from '../../logger.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { runPeriodically } from '../../shared/periodic.js';
import { round } from './trader-stats.js';
import { traderReport } from './trader-report.js';
import { activityToFills, mergeFills } from './activity-fills.js';
import { bucketConversions, bucketFills, dailyCloses, marketInfo, outcomeQuotes } from './wallet-data.js';

export interface StatsRun {
  wallets: number;
  seconds: number;
}

export async function recomputeTraderStats(store: AnalyticsStore, nowMs = Date.now(), buckets = 16): Promise<StatsRun> {
  const started = performance.now();
  const computedAt = new Date(nowMs).toISOString();
  let wallets = 0;
  for (let bucket = 0; bucket < buckets; bucket++) {
    const byWallet = await bucketFills(store, bucket, buckets);
    if (byWallet.size === 0) continue;
    const conversions = await bucketConversions(store, bucket, buckets);
    const marketIds = [
      ...new Set([
        ...[...byWallet.values()].flatMap((fills) => fills.map((f) => f.market_id)),
        ...[...conversions.values()].flatMap((rows) => rows.map((r) => r.market_id)),
      ]),
    ];
    const markets = await marketInfo(store, marketIds);
    const closes = await dailyCloses(store, marketIds, nowMs);
    const quotes = await outcomeQuotes(store, markets);
    const statsRows = [];
    const categoryRows = [];
    for (const [wallet, trades] of byWallet) {
      const report = traderReport(
        mergeFills(trades, activityToFills(conversions.get(wallet) ?? [], markets)),
        markets,
        closes,
        nowMs,
        30,
        quotes,
      );
      statsRows.push({
        wallet,
        realized_pnl: round(report.realized, 6),
        unrealized_pnl: round(report.unrealized, 6),
        total_pnl: round(report.realized + report.unrealized, 6),
        realized_pnl_30d: round(report.realized30d, 6),
        volume_usdc: round(report.volume, 6),
        volume_30d_usdc: round(report.volume30d, 6),
        trades: report.trades,
        trades_30d: report.trades30d,
        markets_traded: report.marketsTraded,
        won: report.winLoss.won,
        lost: report.winLoss.lost,
        win_rate_pct: report.winLoss.win_rate_pct,
        risk_score: report.risk.score,
        last_trade_at: new Date(report.lastTradeMs).toISOString(),
        computed_at: computedAt,
      });
      for (const c of report.categories) categoryRows.push({ wallet, ...c, computed_at: computedAt });
    }
    await store.insert('trader_stats', statsRows);
    await store.insert('trader_category_stats', categoryRows);
    wallets += byWallet.size;
  }
  return { wallets, seconds: (performance.now() - started) / 1000 };
}

/** Recomputes the trader tables every `intervalMs` (first run at once), never overlapping. */
export function startTraderStats(store: AnalyticsStore, intervalMs: number, logger: Logger): { stop(): Promise<void> } {
  return runPeriodically(
    async () => logger.debug(await recomputeTraderStats(store), 'trader stats recomputed'),
    intervalMs,
    (error) => logger.error({ err: error }, 'trader stats failed'),
  );
}
