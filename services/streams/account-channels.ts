/**
 * `copy` and `strategy`: the account's own events, each subscriber getting only those of its key's
 * account. They are decided by the copy engine into the control store, not the event log, so the
 * channels read the account feed there (services/copy/account-events.ts) with the same cursors,
 * resume, buffers and heartbeats as the log's channels. `data` is exactly the webhook payload
 * (services/copy/payloads.ts, `event` and `id` included), sent whether or not the account has a
 * webhook subscription. `copy` carries copy.executed and risk.blocked (filters event, market,
 * copy_subscription_id); `strategy` carries strategy.signal (filters market, strategy_id). Tier 2,
 * as the copy subscriptions and strategies they come from.
 */
import { ACCOUNT_FEEDS, type AccountEventRecord } from '../copy/account-events.js';
import type { StreamCopyMessage, StreamStrategyMessage } from '../http/types.generated.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { Channel, ChannelStream } from './channel.js';
import { idOf, marketOf, onlyFilters, someOf } from './filters.js';

type CopyEvent = (typeof ACCOUNT_FEEDS.copy.eventTypes)[number];

export interface CopyFilters {
  events?: ReadonlySet<CopyEvent>;
  market?: string;
  copySubscriptionId?: number;
}

export interface StrategyFilters {
  market?: string;
  strategyId?: number;
}

const COPY_FILTERS = ['event', 'market', 'copy_subscription_id'] as const;
const STRATEGY_FILTERS = ['market', 'strategy_id'] as const;

/** The feed's records are JSON (the stored payload and whose it is), not Avro. */
const json = { decode: (value: Buffer): unknown => JSON.parse(value.toString('utf8')) };
const copyFeed: ChannelStream = { topic: ACCOUNT_FEEDS.copy.topic, partitions: 1, codec: json };
const strategyFeed: ChannelStream = { topic: ACCOUNT_FEEDS.strategy.topic, partitions: 1, codec: json };

export const copyChannel: Channel<CopyFilters> = {
  name: 'copy',
  access: 'tier2',
  source: 'account',
  filters: COPY_FILTERS,
  resyncFrom: '/v1/copy/intents',
  streams: [copyFeed],
  async parseFilters(input: Record<string, unknown>, prefix: string, store: AnalyticsStore) {
    onlyFilters(input, prefix, 'copy', COPY_FILTERS);
    return {
      events: someOf(input.event, prefix, 'event', ACCOUNT_FEEDS.copy.eventTypes),
      market: await marketOf(input.market, prefix, store),
      copySubscriptionId: idOf(input.copy_subscription_id, prefix, 'copy_subscription_id'),
    };
  },
  partitionKey: () => undefined,
  select(_stream, event, filters) {
    const { payload } = event as AccountEventRecord;
    const data = payload as unknown as StreamCopyMessage['data'];
    if (filters.events !== undefined && !filters.events.has(data.event as CopyEvent)) return null;
    if (filters.market !== undefined && data.market_id !== filters.market) return null;
    if (filters.copySubscriptionId !== undefined && data.copy_subscription_id !== filters.copySubscriptionId) return null;
    return { type: 'copy', data };
  },
};

export const strategyChannel: Channel<StrategyFilters> = {
  name: 'strategy',
  access: 'tier2',
  source: 'account',
  filters: STRATEGY_FILTERS,
  resyncFrom: '/v1/strategies',
  streams: [strategyFeed],
  async parseFilters(input: Record<string, unknown>, prefix: string, store: AnalyticsStore) {
    onlyFilters(input, prefix, 'strategy', STRATEGY_FILTERS);
    return { market: await marketOf(input.market, prefix, store), strategyId: idOf(input.strategy_id, prefix, 'strategy_id') };
  },
  partitionKey: () => undefined,
  select(_stream, event, filters) {
    const { payload } = event as AccountEventRecord;
    const data = payload as unknown as StreamStrategyMessage['data'];
    if (filters.market !== undefined && data.market_id !== filters.market) return null;
    if (filters.strategyId !== undefined && data.strategy_id !== filters.strategyId) return null;
    return { type: 'strategy_signal', data };
  },
};
