/**
 * Webhook payloads, field for field as docs/WEBHOOKS.md lists them, plus `event`, the event
 * `id` and `source` (the project labels every record polymarket or simulator). Timestamps are
 * ISO 8601 UTC with milliseconds.
 */
import type { MarketLifecycleTransition, TradeExecuted } from '../events/types.js';
import { servedAmount } from '../shared/decimal.js';
import { eventId, isoMillis } from '../webhooks/event-types.js';
import type { VolumeSpike } from './volume-windows.js';

/** Payloads write binary outcomes as YES/NO; other outcome names (teams, candidates) pass through. */
export function presentOutcome(outcome: string): string {
  const lower = outcome.toLowerCase();
  return lower === 'yes' || lower === 'no' ? outcome.toUpperCase() : outcome;
}

export function tradeExecuted(trade: TradeExecuted) {
  return {
    event: 'trade.executed' as const,
    id: eventId('trade.executed', trade.event_id),
    trade_id: trade.event_id,
    market_id: trade.market_id,
    market_title: trade.market_title,
    wallet: trade.wallet,
    side: trade.side,
    outcome: presentOutcome(trade.outcome),
    price: servedAmount(trade.price),
    size_usdc: servedAmount(trade.size_usdc),
    timestamp: isoMillis(trade.timestamp_ms),
    source: trade.source,
  };
}

/** The trader's activity in the 24 hours before the trade, from indexed trades. */
export interface TraderContext {
  trades_24h: number;
  volume_24h_usdc: number;
  markets_24h: number;
  largest_trade_24h_usdc: number;
}

/** trader.large_trade (fields in docs/WEBHOOKS.md): trade.executed's fields, the threshold crossed, the trader's context. */
export function largeTrade(trade: TradeExecuted, thresholdUsdc: number, trader: TraderContext) {
  return {
    ...tradeExecuted(trade),
    event: 'trader.large_trade' as const,
    id: eventId('trader.large_trade', trade.event_id),
    threshold_usdc: thresholdUsdc,
    trader: { wallet: trade.wallet, ...trader },
  };
}

export interface PriceMove {
  market_id: string;
  market_title: string;
  yes_price: number;
  prev_price: number;
  change_pct: number;
  direction: 'up' | 'down';
  at_ms: number;
  /** The trade that completed the move (makes the event id deterministic). */
  trigger_id: string;
  source: TradeExecuted['source'];
}

export function priceSignal(move: PriceMove) {
  return {
    event: 'market.price_signal' as const,
    id: eventId('market.price_signal', `${move.market_id}:${move.trigger_id}`),
    market_id: move.market_id,
    market_title: move.market_title,
    yes_price: move.yes_price,
    prev_price: move.prev_price,
    change_pct: move.change_pct,
    direction: move.direction,
    timestamp: isoMillis(move.at_ms),
    source: move.source,
  };
}

/**
 * market.resolved from a lifecycle settlement. Its id is the market and the resolution number (the
 * first resolution keeps the market id alone), so each resolution is one event however often it is
 * seen. A void has resolved_outcome "50-50" and final prices 0.5 / 0.5.
 */
export function marketResolved(transition: MarketLifecycleTransition) {
  const yes = transition.final_yes_price ?? 0;
  const no = transition.final_no_price ?? 1 - yes;
  const key = transition.resolution_number > 1 ? `${transition.market_id}:${transition.resolution_number}` : transition.market_id;
  return {
    event: 'market.resolved' as const,
    id: eventId('market.resolved', key),
    market_id: transition.market_id,
    market_title: transition.title,
    resolved_outcome: presentOutcome(transition.resolved_outcome ?? ''),
    final_yes_price: servedAmount(yes),
    final_no_price: servedAmount(no),
    timestamp: isoMillis(transition.occurred_at_ms ?? transition.observed_at_ms),
    status: transition.to_state === 'voided' ? ('voided' as const) : ('resolved' as const),
    payouts: transition.payouts,
    authority: transition.authority,
    resolution_number: transition.resolution_number,
    source: transition.source,
  };
}

/** market.volume_spike (docs/WEBHOOKS.md): the window's taker volume against the hourly baseline before it. */
export function volumeSpike(spike: VolumeSpike, windowMs: number) {
  return {
    event: 'market.volume_spike' as const,
    id: eventId('market.volume_spike', `${spike.market_id}:${spike.trigger_id}`),
    market_id: spike.market_id,
    market_title: spike.market_title,
    volume_usdc: spike.window_volume_usdc,
    baseline_hourly_usdc: spike.baseline_hourly_usdc,
    ratio: spike.ratio,
    window_minutes: windowMs / 60_000,
    timestamp: isoMillis(spike.at_ms),
    source: spike.source,
  };
}
