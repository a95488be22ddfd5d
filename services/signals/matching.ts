/** Whether a subscription wants a detected event: its event types, its filters, and its age. */
import type { Subscription } from '../webhooks/subscriptions.js';

export interface EventFacts {
  type: string;
  market_id: string;
  wallet?: string;
  size_usdc?: number;
  change_pct?: number;
  /** When the underlying record reached the log: a subscription only gets events that arrived after it was created. */
  logged_at_ms: number;
}

const TRADE_EVENTS = new Set(['trade.executed', 'trader.large_trade']);

export function wants(subscription: Pick<Subscription, 'events' | 'filters' | 'created_at'>, facts: EventFacts): boolean {
  if (!subscription.events.includes(facts.type as Subscription['events'][number])) return false;
  if (facts.logged_at_ms < new Date(subscription.created_at).getTime()) return false;
  const f = subscription.filters ?? {};
  if (f.market_ids?.length && !f.market_ids.some((id) => id.toLowerCase() === facts.market_id.toLowerCase())) return false;
  if (TRADE_EVENTS.has(facts.type) && f.wallets?.length && !f.wallets.some((w) => w.toLowerCase() === facts.wallet?.toLowerCase()))
    return false;
  if (facts.type === 'trade.executed' && f.min_size_usdc !== undefined && (facts.size_usdc ?? 0) < f.min_size_usdc) return false;
  if (facts.type === 'market.price_signal' && f.min_change_pct !== undefined && Math.abs(facts.change_pct ?? 0) < f.min_change_pct)
    return false;
  return true;
}
