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

/** What each event means and whether this service emits it yet (GET /v1/webhooks/event-types; docs/WEBHOOKS.md). */
export const EVENT_TYPE_INFO: Record<EventType, { description: string; emitted: boolean }> = {
  'trade.executed': { description: 'Every indexed trade matching the filters.', emitted: true },
  'trader.large_trade': {
    description: 'A trade of at least large_trade_min_usdc (default SIGNALS_LARGE_TRADE_USDC), with the trader’s last 24 h.',
    emitted: true,
  },
  'market.price_signal': { description: 'The YES price moved by more than the service threshold within its window.', emitted: true },
  'market.volume_spike': {
    description:
      'A market’s taker volume in the last window (SIGNALS_VOLUME_WINDOW_MS) reached SIGNALS_VOLUME_SPIKE_RATIO times its hourly baseline and SIGNALS_VOLUME_MIN_USDC; once per market per window.',
    emitted: true,
  },
  'market.resolved': { description: 'A market seen active (or closed awaiting resolution) is seen resolved.', emitted: true },
  'copy.executed': {
    description: 'A fill of a wallet one of your copy subscriptions follows became a copy order (account-scoped; docs/COPY.md).',
    emitted: true,
  },
  'risk.blocked': { description: 'A copy trade was blocked by one of your risk rules (account-scoped).', emitted: true },
  'strategy.signal': { description: 'One of your saved strategies detected its move (account-scoped).', emitted: true },
};

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
