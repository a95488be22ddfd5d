/**
 * What each strategy would have done, before any money moves (pure): the triggers the simulation
 * fills. They depend only on market data, never on the account's state, so the books they need can
 * be fetched in one query before the simulation runs.
 *
 * - copy_wallet: every leader fill, `delay` later, at the leader's price as the reference; a buy is
 *   sized by the sizing rule, a sell asks for the same notional (the simulation clips it to what is held).
 * - price_threshold: a market.price_signal-style move (services/signals/price-windows.ts: the YES price
 *   moved by more than `change_pct` within `window`); `momentum` buys the side that moved up (YES on an
 *   up move, NO on a down move of a binary market), `reversion` the other; one position per market at
 *   a time; it is sold `hold` later when a hold is set, else held to resolution or the end.
 * - buy_and_hold: at the start, `order_usdc` of the outcome in each market, at the last trade price before it.
 */
import type { TradeExecuted } from '../../events/types.js';
import { MICRO } from '../../shared/decimal.js';
import { PriceWindows } from '../../signals/price-windows.js';
import { sizedNotional, type SizingRule } from '../copy-rules.js';
import type { LeaderFill } from '../leader-fill.js';
import type { MarketTerms, Trigger } from './simulate.js';

export type StrategyConfig =
  | { kind: 'copy_wallet'; wallet: string; sizing: SizingRule; delayMs: number }
  | {
      kind: 'price_threshold';
      marketIds: string[];
      changePct: number;
      windowMs: number;
      orderMicros: bigint;
      mode: 'momentum' | 'reversion';
      holdMs: number | null;
      delayMs: number;
    }
  | { kind: 'buy_and_hold'; marketIds: string[]; outcome: string; orderMicros: bigint };

/** A market's taker fill as the planner reads it (YES price). */
export interface MarketTrade {
  id: string;
  marketId: string;
  atMs: number;
  yesPriceMicros: bigint;
}

const priceOf = (micros: bigint) => Number(micros) / 1e6;

export function copyTriggers(fills: LeaderFill[], sizing: SizingRule, delayMs: number, markets: Map<string, MarketTerms>): Trigger[] {
  return fills.map((fill, seq) => {
    const market = markets.get(fill.marketId);
    const outcomeIndex = market ? Math.max(0, market.tokenIds.indexOf(fill.assetId)) : fill.outcomeIndex;
    const notionalMicros = sizedNotional(sizing, fill.usdcMicros);
    return {
      atMs: fill.timestampMs + delayMs,
      seq,
      marketId: fill.marketId,
      outcomeIndex,
      referenceMicros: fill.priceMicros,
      ref: fill.tradeId,
      want: fill.side === 'buy' ? { kind: 'buy' as const, notionalMicros } : { kind: 'sell' as const, notionalMicros },
    };
  });
}

/** The last trade at or before `atMs` (trades sorted by time). */
function lastTradeAt(trades: MarketTrade[], atMs: number): MarketTrade | undefined {
  let lo = 0;
  let hi = trades.length - 1;
  let found: MarketTrade | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (trades[mid]!.atMs <= atMs) {
      found = trades[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export function thresholdTriggers(
  config: Extract<StrategyConfig, { kind: 'price_threshold' }>,
  trades: MarketTrade[],
  markets: Map<string, MarketTerms>,
  toMs: number,
): Trigger[] {
  const windows = new PriceWindows(config.windowMs, config.changePct);
  const byMarket = new Map<string, MarketTrade[]>();
  for (const trade of trades) byMarket.set(trade.marketId, [...(byMarket.get(trade.marketId) ?? []), trade]);
  const busyUntil = new Map<string, number>();
  const triggers: Trigger[] = [];
  for (const trade of trades) {
    const market = markets.get(trade.marketId);
    const move = windows.observe({
      market_id: trade.marketId,
      market_title: market?.title ?? '',
      yes_price: priceOf(trade.yesPriceMicros),
      timestamp_ms: trade.atMs,
      event_id: trade.id,
      source: 'polymarket',
    } as TradeExecuted);
    if (!move || !market || market.tokenIds.length !== 2) continue;
    const entryAt = trade.atMs + config.delayMs;
    if ((busyUntil.get(trade.marketId) ?? -Infinity) > entryAt) continue;
    const up = move.direction === 'up';
    const buyYes = config.mode === 'momentum' ? up : !up;
    const outcomeIndex = buyYes ? market.yesIndex : 1 - market.yesIndex;
    const yesNow = lastTradeAt(byMarket.get(trade.marketId)!, entryAt)?.yesPriceMicros ?? trade.yesPriceMicros;
    triggers.push({
      atMs: entryAt,
      seq: triggers.length,
      marketId: trade.marketId,
      outcomeIndex,
      referenceMicros: buyYes ? yesNow : MICRO - yesNow,
      ref: trade.id,
      want: { kind: 'buy', notionalMicros: config.orderMicros },
    });
    const resolvedAt = market.resolution?.atMs ?? Infinity;
    if (config.holdMs !== null && entryAt + config.holdMs < Math.min(resolvedAt, toMs)) {
      const exitAt = entryAt + config.holdMs;
      const yesThen = lastTradeAt(byMarket.get(trade.marketId)!, exitAt)?.yesPriceMicros ?? yesNow;
      triggers.push({
        atMs: exitAt,
        seq: triggers.length,
        marketId: trade.marketId,
        outcomeIndex,
        referenceMicros: buyYes ? yesThen : MICRO - yesThen,
        ref: `exit:${trade.id}`,
        want: { kind: 'sell_all' },
      });
      busyUntil.set(trade.marketId, exitAt + 1);
    } else busyUntil.set(trade.marketId, Infinity);
  }
  return triggers;
}

export function holdTriggers(
  config: Extract<StrategyConfig, { kind: 'buy_and_hold' }>,
  trades: MarketTrade[],
  markets: Map<string, MarketTerms>,
  fromMs: number,
): Trigger[] {
  const triggers: Trigger[] = [];
  for (const marketId of [...config.marketIds].sort()) {
    const market = markets.get(marketId);
    if (!market) continue;
    // The API's outcome rule (as paper orders): a name, or YES / NO for either side of a binary market, case-insensitive.
    const wanted = config.outcome.trim().toLowerCase();
    const named = market.outcomes.findIndex((o) => o.toLowerCase() === wanted);
    const binary = market.outcomes.length === 2;
    const outcomeIndex =
      named >= 0 ? named : binary && wanted === 'yes' ? market.yesIndex : binary && wanted === 'no' ? 1 - market.yesIndex : -1;
    if (outcomeIndex < 0) continue;
    const last = lastTradeAt(
      trades.filter((t) => t.marketId === marketId),
      fromMs,
    );
    if (!last) continue;
    const reference = outcomeIndex === market.yesIndex ? last.yesPriceMicros : MICRO - last.yesPriceMicros;
    triggers.push({
      atMs: fromMs,
      seq: triggers.length,
      marketId,
      outcomeIndex,
      referenceMicros: reference,
      ref: 'entry',
      want: { kind: 'buy', notionalMicros: config.orderMicros },
    });
  }
  return triggers;
}
