/**
 * GET/POST /backtest: one strategy over a date range (docs/COPY.md). Reads what the strategy needs
 * (market-data.ts), plans its triggers (plan.ts), fetches the books at their times, simulates
 * (simulate.ts) and presents the result with exact decimal strings. Deterministic: the same request
 * over the same stored data gives the same bytes (a default `to` is the start of the current UTC
 * hour, echoed in the response, so the request that reproduces it is known).
 */
import { ApiError } from '../../http/errors.js';
import { timeParam } from '../../http/time-params.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { divide, formatScaled, MICRO, parseScaled, servedAmount } from '../../shared/decimal.js';
import { CONDITION_ID, WALLET } from '../../shared/ids.js';
import { HOUR_MS, iso } from '../../shared/time.js';
import type { SizingRule } from '../copy-rules.js';
import { booksAt, dailyCloses, marketTerms, marketTrades, parseUsdc, walletFills } from './market-data.js';
import { copyTriggers, holdTriggers, type StrategyConfig, thresholdTriggers } from './plan.js';
import { type MarketTerms, type SimResult, simulate, type Trigger } from './simulate.js';

const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;
/** Trades listed in a response (the summary counts all of them). */
const MAX_LISTED_TRADES = 10_000;
const MAX_MARKETS = 500;

/** The request as query parameters or a JSON body: the same names either way. */
export type BacktestRequest = Record<string, unknown>;

export interface BacktestSettings {
  feeFallback: { rate: string; exponent: number };
}

export interface BacktestRun {
  config: StrategyConfig;
  fromMs: number;
  toMs: number;
  startingCashMicros: bigint;
}

const str = (v: unknown): string | undefined => (v === undefined || v === null || v === '' ? undefined : String(v));

function marketList(raw: unknown): string[] {
  const list = Array.isArray(raw) ? raw.map(String) : (str(raw)?.split(',') ?? []);
  const ids = [...new Set(list.map((s) => s.trim().toLowerCase()).filter(Boolean))];
  if (ids.length === 0) throw ApiError.badRequest('market_ids: at least one condition id');
  if (ids.length > MAX_MARKETS) throw ApiError.badRequest(`market_ids: at most ${MAX_MARKETS}`);
  for (const id of ids) if (!CONDITION_ID.test(id)) throw ApiError.badRequest(`market_ids: ${id} is not a condition id`);
  return ids;
}

function number(name: string, raw: unknown, min: number, max: number, fallback?: number): number {
  if (raw === undefined || raw === null || raw === '') {
    if (fallback === undefined) throw ApiError.badRequest(`${name}: required for this strategy`);
    return fallback;
  }
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) throw ApiError.badRequest(`${name}: must be a number from ${min} to ${max}`);
  return value;
}

function sizingOf(q: BacktestRequest): SizingRule {
  const rule = str(q.sizing) ?? 'fixed';
  const ratio = () => {
    const r = parseScaled(String(q.ratio ?? ''));
    if (r === null || r <= 0n || r > 100n * MICRO) throw ApiError.badRequest('ratio: a number in (0, 100] with at most 6 decimals');
    return r;
  };
  if (rule === 'fixed') return { rule, usdcMicros: parseUsdc(String(q.usdc ?? '100'), 'usdc') };
  if (rule === 'proportional') return { rule, ratioMicros: ratio() };
  if (rule === 'capped') return { rule, ratioMicros: ratio(), capMicros: parseUsdc(String(q.cap_usdc ?? ''), 'cap_usdc') };
  throw ApiError.badRequest('sizing: fixed, proportional or capped');
}

export function parseBacktest(q: BacktestRequest, nowMs: number): BacktestRun {
  const toMs = timeParam('to', str(q.to)) ?? Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  const fromMs = timeParam('from', str(q.from)) ?? toMs - 30 * DAY_MS;
  if (fromMs >= toMs) throw ApiError.badRequest('from: must be before to');
  if (toMs - fromMs > MAX_RANGE_DAYS * DAY_MS) throw ApiError.badRequest(`from: the range is at most ${MAX_RANGE_DAYS} days`);
  const startingCashMicros = parseUsdc(String(q.starting_cash_usdc ?? '10000'), 'starting_cash_usdc');
  const delayMs = Math.round(number('delay_seconds', q.delay_seconds, 0, 86_400, 0) * 1000);
  const strategy = str(q.strategy);
  let config: StrategyConfig;
  switch (strategy) {
    case 'copy_wallet': {
      const wallet = str(q.wallet);
      if (!wallet || !WALLET.test(wallet)) throw ApiError.badRequest('wallet: a wallet address (0x + 40 hex) is required for copy_wallet');
      config = { kind: 'copy_wallet', wallet: wallet.toLowerCase(), sizing: sizingOf(q), delayMs };
      break;
    }
    case 'price_threshold': {
      const mode = str(q.mode) ?? 'momentum';
      if (mode !== 'momentum' && mode !== 'reversion') throw ApiError.badRequest('mode: momentum or reversion');
      const holdHours =
        q.hold_hours === undefined || q.hold_hours === null || q.hold_hours === ''
          ? null
          : number('hold_hours', q.hold_hours, 0.01, 24 * 366);
      config = {
        kind: 'price_threshold',
        marketIds: marketList(q.market_ids),
        changePct: number('change_pct', q.change_pct, 0.1, 1000, 5),
        windowMs: Math.round(number('window_minutes', q.window_minutes, 1, 7 * 24 * 60, 15) * 60_000),
        orderMicros: parseUsdc(String(q.order_usdc ?? '100'), 'order_usdc'),
        mode,
        holdMs: holdHours === null ? null : Math.round(holdHours * HOUR_MS),
        delayMs,
      };
      break;
    }
    case 'buy_and_hold':
      config = {
        kind: 'buy_and_hold',
        marketIds: marketList(q.market_ids),
        outcome: str(q.outcome) ?? 'YES',
        orderMicros: parseUsdc(String(q.order_usdc ?? '100'), 'order_usdc'),
      };
      break;
    default:
      throw ApiError.badRequest('strategy: copy_wallet, price_threshold or buy_and_hold');
  }
  return { config, fromMs, toMs, startingCashMicros };
}

export async function runBacktest(store: AnalyticsStore, run: BacktestRun, settings: BacktestSettings) {
  const { config, fromMs, toMs } = run;
  let triggers: Trigger[];
  let markets: Map<string, MarketTerms>;
  let marketIds: string[];
  if (config.kind === 'copy_wallet') {
    const fills = await walletFills(store, config.wallet, fromMs - config.delayMs, toMs);
    marketIds = [...new Set(fills.map((f) => f.marketId))].sort();
    markets = await marketTerms(store, marketIds, settings.feeFallback);
    triggers = copyTriggers(fills, config.sizing, config.delayMs, markets);
  } else {
    marketIds = config.marketIds;
    markets = await marketTerms(store, marketIds, settings.feeFallback);
    const lookback = config.kind === 'price_threshold' ? config.windowMs : 0;
    const trades = await marketTrades(store, marketIds, fromMs, toMs, lookback);
    triggers =
      config.kind === 'price_threshold' ? thresholdTriggers(config, trades, markets, toMs) : holdTriggers(config, trades, markets, fromMs);
  }
  const inRange = triggers.filter((t) => t.atMs >= fromMs && t.atMs < toMs);
  const [books, closes] = await Promise.all([booksAt(store, inRange, markets), dailyCloses(store, marketIds, fromMs, toMs)]);
  const result = simulate({ fromMs, toMs, startingCashMicros: run.startingCashMicros, triggers: inRange, markets, books, closes });
  return present(run, result, markets);
}

const usdc = (micros: bigint) => servedAmount(micros);
/** A fraction in parts per million as a percentage: 123456 ppm = 12.3456 %. */
const pct = (ppm: bigint) => Number(formatScaled(ppm, 4));
const amount = servedAmount;

function echo(config: StrategyConfig) {
  switch (config.kind) {
    case 'copy_wallet': {
      const s = config.sizing;
      const sizing =
        s.rule === 'fixed'
          ? { rule: s.rule, usdc: usdc(s.usdcMicros) }
          : s.rule === 'proportional'
            ? { rule: s.rule, ratio: amount(s.ratioMicros) }
            : { rule: s.rule, ratio: amount(s.ratioMicros), cap_usdc: usdc(s.capMicros) };
      return { kind: config.kind, wallet: config.wallet, sizing, delay_seconds: config.delayMs / 1000 };
    }
    case 'price_threshold':
      return {
        kind: config.kind,
        market_ids: config.marketIds,
        change_pct: config.changePct,
        window_minutes: config.windowMs / 60_000,
        order_usdc: usdc(config.orderMicros),
        mode: config.mode,
        hold_hours: config.holdMs === null ? null : config.holdMs / HOUR_MS,
        delay_seconds: config.delayMs / 1000,
      };
    case 'buy_and_hold':
      return { kind: config.kind, market_ids: config.marketIds, outcome: config.outcome, order_usdc: usdc(config.orderMicros) };
  }
}

function present(run: BacktestRun, r: SimResult, markets: Map<string, { title: string }>) {
  const start = run.startingCashMicros;
  const returnPpm = divide((r.finalEquityMicros - start) * 1_000_000n, start);
  const closed = r.won + r.lost;
  return {
    strategy: echo(run.config),
    from: iso(run.fromMs),
    to: iso(run.toMs),
    starting_cash_usdc: usdc(start),
    summary: {
      final_equity_usdc: usdc(r.finalEquityMicros),
      total_return_pct: pct(returnPpm),
      max_drawdown_pct: pct(r.maxDrawdownPpm),
      win_rate_pct: closed === 0 ? null : pct(divide(BigInt(r.won) * 1_000_000n, BigInt(closed))),
      won: r.won,
      lost: r.lost,
      trades: r.trades.length,
      skipped: r.skipped.length,
      fees_paid_usdc: usdc(r.feesMicros),
      slippage_paid_usdc: usdc(r.slippageMicros),
      volume_usdc: usdc(r.volumeMicros),
      book_fills: r.trades.filter((t) => t.execution.basis === 'book').length,
      impact_fills: r.trades.filter((t) => t.execution.basis === 'trade_impact').length,
    },
    equity_curve: r.curve.map((p) => ({
      date: iso(p.dayMs).slice(0, 10),
      cash_usdc: usdc(p.cashMicros),
      positions_usdc: usdc(p.positionsMicros),
      equity_usdc: usdc(p.equityMicros),
    })),
    trades: r.trades.slice(0, MAX_LISTED_TRADES).map((t) => ({
      at: iso(t.atMs),
      market_id: t.marketId,
      market_title: markets.get(t.marketId)?.title ?? '',
      asset_id: t.assetId,
      outcome: t.outcome,
      side: t.side,
      trigger: t.ref,
      reference_price: amount(t.referenceMicros),
      avg_price: amount(divide(t.execution.notionalMicros * MICRO, t.execution.sharesMicros)),
      shares: amount(t.execution.sharesMicros),
      notional_usdc: usdc(t.execution.notionalMicros),
      fee_usdc: usdc(t.execution.feeMicros),
      slippage_usdc: usdc(t.execution.slippageMicros),
      basis: t.execution.basis,
      book_at: t.execution.bookAtMs === null ? null : iso(t.execution.bookAtMs),
      fills: t.execution.fills.map((f) => ({
        level: f.level,
        price: amount(f.priceMicros),
        shares: amount(f.sharesMicros),
        notional_usdc: usdc(f.notionalMicros),
        fee_usdc: usdc(f.feeMicros),
      })),
    })),
    trades_truncated: r.trades.length > MAX_LISTED_TRADES,
    settlements: r.settlements.map((s) => ({
      at: iso(s.atMs),
      market_id: s.marketId,
      asset_id: s.assetId,
      shares: amount(s.sharesMicros),
      payout_usdc: usdc(s.payoutMicros),
    })),
    skipped: r.skipped
      .slice(0, MAX_LISTED_TRADES)
      .map((s) => ({ at: iso(s.atMs), market_id: s.marketId, trigger: s.ref, reason: s.reason })),
  };
}
