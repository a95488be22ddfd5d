/**
 * Recomputes copy picks every COPY_PICKS_INTERVAL_MS: for each topic (market category), the
 * candidates the leader statistics offer, each judged per window (picks.ts) with a copier simulation
 * of its fills (services/copy/backtest). A wallet's fills, their books and the daily closes are read
 * once for the longest window and reused for every topic and shorter window. One run writes one
 * computed_at; readers take the latest run. Work is bounded by COPY_PICKS_CANDIDATES per topic and the
 * backtest's row cap per wallet (a wallet over it is skipped).
 */
import type { Logger } from '../../logger.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { booksAt, dailyCloses, marketTerms, walletFills } from '../../copy/backtest/market-data.js';
import { copyTriggers } from '../../copy/backtest/plan.js';
import { simulate } from '../../copy/backtest/simulate.js';
import type { LeaderFill } from '../../copy/leader-fill.js';
import { type LeaderStats, type LeaderStatsSource, traderStatsSource } from '../../copy/leader-stats.js';
import { latestBooks } from '../order-books/queries.js';
import { formatScaled, MICRO, parseScaled } from '../../shared/decimal.js';
import { runPeriodically } from '../../shared/periodic.js';
import { applyLeg, EMPTY_STATE, type PositionState } from '../positions/ledger-math.js';
import { exclusion, score, washShare } from './picks.js';

const WINDOWS = { '7d': 7, '30d': 30, '90d': 90 } as const;
const DAY_MS = 86_400_000;
const STARTING_CASH = 1_000_000_000n * MICRO;
const MAX_OPEN_POSITIONS = 10;

export interface PicksSettings {
  orderUsdc: string;
  delaySeconds: number;
  candidates: number;
  feeFallback: { rate: string; exponent: number };
  /** The job's interval, recorded with each run so readers can say when the next one is due. */
  intervalMs?: number;
}

export async function recomputeCopyPicks(
  store: AnalyticsStore,
  settings: PicksSettings,
  nowMs = Date.now(),
  source: LeaderStatsSource = traderStatsSource(store),
  signal?: AbortSignal,
): Promise<{ rows: number; wallets: number }> {
  const computedAt = new Date(nowMs).toISOString();
  const byWallet = new Map<string, LeaderStats[]>();
  const categories = await source.categories();
  for (const category of categories) {
    for (const stats of await source.candidates(category, settings.candidates, 1))
      byWallet.set(stats.wallet, [...(byWallet.get(stats.wallet) ?? []), stats]);
  }
  const orderMicros = parseScaled(settings.orderUsdc) ?? 100n * MICRO;
  const delayMs = settings.delaySeconds * 1000;
  const longest = Math.max(...Object.values(WINDOWS)) * DAY_MS;
  const rows: Record<string, unknown>[] = [];
  const closesOf = runCloses(store, nowMs - longest, nowMs);
  let skipped = 0;
  for (const [wallet, perCategory] of [...byWallet.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    // A stop does not wait for every candidate's replay.
    signal?.throwIfAborted();
    let fills: LeaderFill[];
    try {
      fills = await walletFills(store, wallet, nowMs - longest - delayMs, nowMs - delayMs);
    } catch {
      // Over the backtest's row cap: bounded work, so the wallet is left out of this run.
      skipped += 1;
      continue;
    }
    const marketIds = [...new Set(fills.map((f) => f.marketId))];
    const markets = await marketTerms(store, marketIds, settings.feeFallback);
    const triggers = copyTriggers(fills, { rule: 'fixed', usdcMicros: orderMicros }, delayMs, markets);
    const [books, closes] = await Promise.all([booksAt(store, triggers, markets), closesOf(marketIds)]);
    const walletRows: Record<string, unknown>[] = [];
    for (const stats of perCategory) {
      for (const [window, days] of Object.entries(WINDOWS)) {
        const fromMs = nowMs - days * DAY_MS;
        const chosen = fills
          .map((fill, seq) => ({ fill, seq }))
          .filter(({ fill }) => fill.timestampMs + delayMs >= fromMs && (markets.get(fill.marketId)?.category ?? '') === stats.category);
        const picked = new Set(chosen.map((c) => c.seq));
        const sim = simulate({
          fromMs,
          toMs: nowMs,
          startingCashMicros: STARTING_CASH,
          triggers: triggers.filter((t) => picked.has(t.seq)),
          markets,
          books,
          closes,
        });
        const invested = sim.trades
          .filter((t) => t.side === 'buy')
          .reduce((s, t) => s + t.execution.notionalMicros + t.execution.feeMicros, 0n);
        const pnl = sim.finalEquityMicros - STARTING_CASH;
        const roiPct = invested > 0n ? Math.round((Number(pnl) / Number(invested)) * 1_000_000) / 10_000 : 0;
        const windowFills = chosen.map((c) => c.fill);
        const lastFillMs = windowFills.length > 0 ? Math.max(...windowFills.map((f) => f.timestampMs)) : null;
        const figures = {
          stats,
          fillsInWindow: windowFills.length,
          lastFillMs,
          washShare: washShare(windowFills),
          copierRoiPct: roiPct,
          nowMs,
        };
        walletRows.push({
          window,
          topic: stats.category,
          wallet,
          score: score(figures),
          excluded: exclusion(figures),
          resolved: stats.won + stats.lost,
          realized_pnl_usdc: stats.realizedPnlUsdc,
          win_rate_pct: stats.winRatePct,
          won: stats.won,
          lost: stats.lost,
          risk_score: stats.riskScore,
          last_fill_at: lastFillMs === null ? null : new Date(lastFillMs).toISOString(),
          fills_in_window: windowFills.length,
          wash_share: Math.round(figures.washShare * 10_000) / 10_000,
          copier_roi_pct: roiPct,
          follower_pnl_usdc: formatScaled(pnl),
          invested_usdc: formatScaled(invested),
          fees_usdc: formatScaled(sim.feesMicros),
          slippage_usdc: formatScaled(sim.slippageMicros),
          copied_trades: sim.trades.length,
          book_fills: sim.trades.filter((t) => t.execution.basis === 'book').length,
          impact_fills: sim.trades.filter((t) => t.execution.basis === 'trade_impact').length,
          order_usdc: formatScaled(orderMicros),
          delay_seconds: settings.delaySeconds,
          open_positions: openPositions(windowFills, markets),
          computed_at: computedAt,
        });
      }
    }
    // One read of the latest books for every row of the wallet, not one per topic and window.
    const quotes = await latestBooks(store, [
      ...new Set(walletRows.flatMap((row) => (row.open_positions as OpenPosition[]).map((p) => p.asset_id))),
    ]);
    for (const row of walletRows) row.open_positions = JSON.stringify(enterable(row.open_positions as OpenPosition[], quotes, markets));
    rows.push(...walletRows);
  }
  if (rows.length > 0) await store.insert('copy_picks', rows);
  await store.insert('copy_picks_runs', [
    {
      computed_at: computedAt,
      interval_ms: settings.intervalMs ?? 0,
      topics: categories.length,
      candidates: byWallet.size,
      skipped_wallets: skipped,
      picks: rows.length,
    },
  ]);
  return { rows: rows.length, wallets: byWallet.size };
}

/** Daily closes over the run's span, each market read once however many candidates traded it (the map holds every market read so far). */
function runCloses(store: AnalyticsStore, fromMs: number, toMs: number) {
  const known = new Map<string, Map<number, bigint>>();
  return async (marketIds: string[]) => {
    const missing = marketIds.filter((id) => !known.has(id));
    if (missing.length > 0) {
      const read = await dailyCloses(store, missing, fromMs, toMs);
      for (const id of missing) known.set(id, read.get(id) ?? new Map());
    }
    return known;
  };
}

type Markets = Awaited<ReturnType<typeof marketTerms>>;
type OpenPosition = ReturnType<typeof openPositions>[number];

/** The leader's open positions of `fills` (unresolved markets), the largest by cost first. */
function openPositions(fills: LeaderFill[], markets: Markets) {
  // The position ledger's exact weighted-average cost, over the window's fills only.
  const states = new Map<string, { fill: LeaderFill; state: PositionState }>();
  for (const f of fills) {
    const current = states.get(f.assetId)?.state ?? EMPTY_STATE;
    const state = applyLeg(current, { side: f.side, qty: f.sharesMicros, usdc: f.usdcMicros }, f.timestampMs).state;
    states.set(f.assetId, { fill: f, state });
  }
  return [...states.values()]
    .filter(({ state }) => state.qty > 0n)
    .map(({ fill, state }) => ({
      market_id: fill.marketId,
      asset_id: fill.assetId,
      outcome: fill.outcome,
      held: Number(state.qty) / 1e6,
      avg_price: Number(state.cost) / Number(state.qty),
    }))
    .filter((p) => !markets.get(p.market_id)?.resolution)
    .sort((a, b) => b.held * b.avg_price - a.held * a.avg_price || (a.asset_id < b.asset_id ? -1 : 1))
    .slice(0, MAX_OPEN_POSITIONS);
}

/** The positions a follower can enter (the token's latest indexed book has an ask to buy from), with the gap to the leader's price. */
function enterable(open: OpenPosition[], quotes: Awaited<ReturnType<typeof latestBooks>>, markets: Markets) {
  return open
    .filter((p) => quotes.get(p.asset_id)?.asks[0] !== undefined)
    .map((p) => {
      const bestAsk = Number(quotes.get(p.asset_id)!.asks[0]!.priceMicros) / 1e6;
      return {
        market_id: p.market_id,
        market_title: markets.get(p.market_id)?.title ?? '',
        asset_id: p.asset_id,
        outcome: p.outcome,
        leader_shares: Math.round(p.held * 1e6) / 1e6,
        leader_avg_price: Math.round(p.avg_price * 1e6) / 1e6,
        best_ask: bestAsk,
        entry_gap_pct: p.avg_price <= 0 ? null : Math.round(((bestAsk - p.avg_price) / p.avg_price) * 10_000) / 100,
      };
    });
}

export function startCopyPicks(
  store: AnalyticsStore,
  settings: PicksSettings,
  intervalMs: number,
  logger: Logger,
): { stop(): Promise<void> } {
  return runPeriodically(
    async (signal) => logger.debug(await recomputeCopyPicks(store, settings, Date.now(), undefined, signal), 'copy picks recomputed'),
    intervalMs,
    (error) => logger.error({ err: error }, 'copy picks failed'),
  );
}
