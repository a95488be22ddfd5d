/**
 * Account-scoped webhook payloads of copy trading and strategies, field for field as the service
 * spec's event tables list them, plus the project's envelope members every payload carries
 * (`event`, `id`, `source`; the outbox adds `delivery_id`). Amounts are numbers rounded to their unit,
 * as the spec types them and as the API serves them (servedAmount).
 */
import { servedAmount } from '../shared/decimal.js';
import { iso } from '../shared/time.js';
import { presentOutcome } from '../signals/payloads.js';
import { eventId } from '../webhooks/event-types.js';

export interface IntentFacts {
  intentId: string;
  accountId: string;
  subscriptionId: string;
  leaderWallet: string;
  leaderTradeId: string;
  fillKey: string;
  marketId: string;
  side: 'buy' | 'sell';
  outcome: string;
  leaderUsdcMicros: bigint;
  childMicros: bigint | null;
  status: 'submitted' | 'dry_run' | 'blocked';
  reason: string | null;
  decidedAtMs: number;
  source: string;
}

/** One event per (subscription, leader fill): the id is stable across redeliveries and sources. */
const intentEventId = (type: string, facts: Pick<IntentFacts, 'subscriptionId' | 'fillKey'>) =>
  eventId(type, `${facts.subscriptionId}:${facts.fillKey}`);

export function copyExecuted(facts: IntentFacts) {
  return {
    event: 'copy.executed' as const,
    id: intentEventId('copy.executed', facts),
    user_id: Number(facts.accountId),
    copy_subscription_id: Number(facts.subscriptionId),
    leader_wallet: facts.leaderWallet,
    leader_trade_id: facts.leaderTradeId,
    market_id: facts.marketId,
    side: facts.side,
    outcome: presentOutcome(facts.outcome),
    child_size_usdc: servedAmount(facts.childMicros ?? 0n),
    leader_size_usdc: servedAmount(facts.leaderUsdcMicros),
    // The service never places orders (keys stay with the local executor), so there is no exchange
    // order id to report; the executor journals the one it gets.
    clob_order_id: '',
    trade_intent_id: Number(facts.intentId),
    status: facts.status === 'dry_run' ? ('dry_run' as const) : ('submitted' as const),
    dry_run: facts.status === 'dry_run',
    timestamp: iso(facts.decidedAtMs),
    source: facts.source,
  };
}

export function riskBlocked(facts: IntentFacts) {
  return {
    event: 'risk.blocked' as const,
    id: intentEventId('risk.blocked', facts),
    user_id: Number(facts.accountId),
    copy_subscription_id: Number(facts.subscriptionId),
    leader_wallet: facts.leaderWallet,
    market_id: facts.marketId,
    reason: facts.reason ?? '',
    leader_size_usdc: servedAmount(facts.leaderUsdcMicros),
    trade_intent_id: Number(facts.intentId),
    timestamp: iso(facts.decidedAtMs),
    source: facts.source,
  };
}

export interface StrategySignalFacts {
  strategyId: string;
  strategyName: string;
  /** What fired: the trade that completed the move (keeps the signal id deterministic). */
  triggerId: string;
  marketId: string;
  marketTitle: string;
  /** On the market's YES (first) outcome, as market.price_signal's prices are: the executor trades YES. */
  side: 'buy' | 'sell';
  entryPriceMicros: bigint;
  confidence: number;
  edge: number;
  emittedAtMs: number;
  source: string;
}

export function strategySignal(facts: StrategySignalFacts) {
  const signalId = `sig_${eventId('strategy.signal', `${facts.strategyId}:${facts.triggerId}`).slice(4)}`;
  return {
    event: 'strategy.signal' as const,
    id: eventId('strategy.signal', `${facts.strategyId}:${facts.triggerId}`),
    signal_id: signalId,
    signal_type: 'strategy_lab' as const,
    strategy_id: Number(facts.strategyId),
    strategy_name: facts.strategyName,
    market_id: facts.marketId,
    market_title: facts.marketTitle,
    side: facts.side,
    entry_price: servedAmount(facts.entryPriceMicros),
    confidence: facts.confidence,
    edge: facts.edge,
    emitted_at: iso(facts.emittedAtMs),
    source: facts.source,
  };
}
