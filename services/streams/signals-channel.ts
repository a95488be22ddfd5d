/**
 * `signals`: the webhook events of markets and trades as a stream, `data` exactly the webhook
 * payload (services/signals/payloads.ts, the `event` field included). trade.executed is each trade of
 * the trades stream, presented by the same payload function the signals processor delivers; the
 * other types are what the signals processor decided, read from the signals stream it publishes
 * (services/signals/signal-stream.ts), whose records hold the payload as it was delivered. Filters
 * event (webhook event types), market and wallet (only the signals that have one: trade.executed and
 * trader.large_trade). Tier 2, as the trades channel: it carries every trade with its wallet.
 */
import type { TradeExecuted } from '../events/types.generated.js';
import type { StreamSignalMessage } from '../http/types.generated.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { trades } from '../read-models/trades/index.js';
import { isLiveTrade } from '../signals/live-trade.js';
import { tradeExecuted } from '../signals/payloads.js';
import { type SignalDecided, signals } from '../signals/signal-stream.js';
import type { Channel } from './channel.js';
import { marketOf, onlyFilters, someOf, walletOf } from './filters.js';

type SignalEvent = 'trade.executed' | SignalDecided['event'];

export interface SignalFilters {
  /** The event types wanted; undefined: all. */
  events?: ReadonlySet<SignalEvent>;
  market?: string;
  wallet?: string;
}

const FILTERS = ['event', 'market', 'wallet'] as const;
/** The webhook event types of markets and trades; the account-scoped ones (copy, risk, strategy) are not on this channel. */
const SIGNAL_EVENTS: readonly SignalEvent[] = [
  'trade.executed',
  'trader.large_trade',
  'market.price_signal',
  'market.volume_spike',
  'market.resolved',
];

async function parseFilters(input: Record<string, unknown>, prefix: string, store: AnalyticsStore): Promise<SignalFilters> {
  onlyFilters(input, prefix, 'signals', FILTERS);
  return {
    events: someOf(input.event, prefix, 'event', SIGNAL_EVENTS),
    market: await marketOf(input.market, prefix, store),
    wallet: walletOf(input.wallet, prefix),
  };
}

interface Facts {
  event: SignalEvent;
  market_id: string;
  wallet: string | null;
}

function wanted(facts: Facts, filters: SignalFilters): boolean {
  if (filters.events !== undefined && !filters.events.has(facts.event)) return false;
  if (filters.market !== undefined && facts.market_id !== filters.market) return false;
  return filters.wallet === undefined || facts.wallet?.toLowerCase() === filters.wallet;
}

export const signalsChannel: Channel<SignalFilters> = {
  filters: FILTERS,
  name: 'signals',
  access: 'tier2',
  resyncFrom: '/v1/markets/{id}/trades (trade.executed; the other signals have no REST list)',
  streams: [trades, signals],
  parseFilters,
  partitionKey: (filters) => filters.market,
  select(stream, event, filters) {
    if (stream.topic === trades.topic) {
      const trade = event as TradeExecuted;
      // The trades the signals processor decides on: a backfilled one is no signal (live-trade.ts).
      if (!isLiveTrade(trade)) return null;
      if (!wanted({ event: 'trade.executed', market_id: trade.market_id, wallet: trade.wallet }, filters)) return null;
      return { type: 'signal', data: tradeExecuted(trade) satisfies StreamSignalMessage['data'] };
    }
    const signal = event as SignalDecided;
    if (!wanted(signal, filters)) return null;
    // The processor built it with the same payload functions (services/signals/payloads.ts).
    return { type: 'signal', data: JSON.parse(signal.payload) as StreamSignalMessage['data'] };
  },
};
