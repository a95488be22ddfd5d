/**
 * `trades`: every trade event of the trades stream (Data API taker fills, keyed by market), as the
 * same `Trade` object /markets/{id}/trades serves (services/read-models/trades/present.ts), with the
 * REST filters market, wallet, side and min_size. Tier 2, as the REST tape.
 */
import type { TradeExecuted } from '../events/types.generated.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { trades } from '../read-models/trades/index.js';
import { presentTrade, tradeRowOfEvent } from '../read-models/trades/present.js';
import type { Channel, ChannelMessage } from './channel.js';
import { isShared, memo, share } from './memo.js';
import { marketOf, minSizeOf, oneOf, onlyFilters, walletOf } from './filters.js';

export interface TradeFilters {
  market?: string;
  wallet?: string;
  side?: 'buy' | 'sell';
  /** Minimum size_usdc in micro-USDC. */
  minSizeMicro?: bigint;
}

const FILTERS = ['market', 'wallet', 'side', 'min_size'] as const;

const PRESENTED = Symbol('presented trade');

/** Each trade presented once for every subscription it is sent to (its text too: message-text.ts). */
function presented(trade: TradeExecuted): { message: ChannelMessage; usdcMicro: bigint } {
  return memo(trade, PRESENTED, () => {
    const row = tradeRowOfEvent(trade);
    const data = presentTrade(row);
    // Its text is written once too (message-text.ts).
    if (isShared(trade)) share(data);
    return { message: { type: 'trade', data }, usdcMicro: BigInt(row.usdc_text) };
  });
}

async function parseFilters(input: Record<string, unknown>, prefix: string, store: AnalyticsStore): Promise<TradeFilters> {
  onlyFilters(input, prefix, 'trades', FILTERS);
  return {
    market: await marketOf(input.market, prefix, store),
    wallet: walletOf(input.wallet, prefix),
    side: oneOf(input.side, prefix, 'side', ['buy', 'sell'] as const),
    minSizeMicro: minSizeOf(input.min_size, prefix),
  };
}

export const tradesChannel: Channel<TradeFilters> = {
  filters: FILTERS,
  name: 'trades',
  access: 'tier2',
  resyncFrom: '/v1/markets/{id}/trades',
  streams: [trades],
  parseFilters,
  partitionKey: (filters) => filters.market,
  select(_stream, event, filters) {
    const trade = event as TradeExecuted;
    if (filters.market !== undefined && trade.market_id !== filters.market) return null;
    if (filters.wallet !== undefined && trade.wallet !== filters.wallet) return null;
    if (filters.side !== undefined && trade.side !== filters.side) return null;
    const { message, usdcMicro } = presented(trade);
    if (filters.minSizeMicro !== undefined && usdcMicro < filters.minSizeMicro) return null;
    return message;
  },
};
