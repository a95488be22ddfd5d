/** Webhook event types (spec "Events") and the optional filters a subscription may carry. */
import crypto from 'node:crypto';

export const EVENT_TYPES = [
  'trade.executed',
  'trader.large_trade',
  'market.price_signal',
  'market.volume_spike',
  'market.resolved',
  'copy.executed',
  'risk.blocked',
  'strategy.signal',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** Sent by POST /webhooks/{id}/test only; not subscribable. */
export const TEST_EVENT_TYPE = 'webhook.test';

export interface SubscriptionFilters {
  /** Market events and trades only for these condition ids. */
  market_ids?: string[];
  /** trade.executed and trader.large_trade only for these taker wallets. */
  wallets?: string[];
  /** trade.executed only at or above this size. */
  min_size_usdc?: number;
  /** trader.large_trade threshold for this subscription (default: SIGNALS_LARGE_TRADE_USDC). */
  large_trade_min_usdc?: number;
  /** market.price_signal only for moves at least this large (the service detects at SIGNALS_PRICE_CHANGE_PCT). */
  min_change_pct?: number;
}

/** Deterministic event id: the same detected event always gets the same id (idempotent outbox). */
export function eventId(type: string, key: string): string {
  return `evt_${crypto.createHash('sha256').update(`${type}:${key}`).digest('hex').slice(0, 32)}`;
}

/** Webhook timestamps: ISO 8601 UTC with milliseconds. */
export { iso as isoMillis } from '../shared/time.js';
