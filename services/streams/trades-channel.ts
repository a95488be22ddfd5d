/**
 * `trades`: every trade event of the trades stream (Data API taker fills, keyed by market), as the
 * same `Trade` object /markets/{id}/trades serves (services/read-models/trades/present.ts), with the
 * REST filters market, wallet, side and min_size. Tier 2, as the REST tape.
 */
import { ApiError } from '../../api/errors.js';
import type { TradeExecuted } from '../events/types.generated.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { trades } from '../read-models/trades/index.js';
import { presentTrade, tradeRowOfEvent } from '../read-models/trades/present.js';
import { marketFilter } from '../read-models/trades/routes.js';
import { parseScaled } from '../shared/decimal.js';
import { WALLET } from '../shared/ids.js';
import type { Channel } from './channels.js';

export interface TradeFilters {
  market?: string;
  wallet?: string;
  side?: 'buy' | 'sell';
  /** Minimum size_usdc in micro-USDC. */
  minSizeMicro?: bigint;
}

const FILTERS = ['market', 'wallet', 'side', 'min_size'] as const;
const MAX_MIN_SIZE = 1_000_000_000_000;

async function parseFilters(input: Record<string, unknown>, prefix: string, store: AnalyticsStore): Promise<TradeFilters> {
  const bad = (name: string, message: string) => ApiError.badRequest(`${prefix}${name}: ${message}`);
  for (const name of Object.keys(input)) {
    if (!(FILTERS as readonly string[]).includes(name)) throw bad(name, `unknown filter (trades filters: ${FILTERS.join(', ')})`);
  }
  const filters: TradeFilters = {};
  const { market, wallet, side, min_size: minSize } = input;
  if (market !== undefined) {
    if (typeof market !== 'string' || market.length === 0 || market.length > 300)
      throw bad('market', 'a condition id or slug (1-300 characters)');
    try {
      filters.market = await marketFilter(store, market);
    } catch (error) {
      // The shared lookup names `market`; on a WebSocket the field is filters.market.
      if (error instanceof ApiError && prefix) throw new ApiError(error.status, error.code, `${prefix}${error.message}`);
      throw error;
    }
  }
  if (wallet !== undefined) {
    if (typeof wallet !== 'string' || !WALLET.test(wallet)) throw bad('wallet', 'must be 0x + 40 hex');
    filters.wallet = wallet.toLowerCase();
  }
  if (side !== undefined) {
    if (side !== 'buy' && side !== 'sell') throw bad('side', 'must be buy or sell');
    filters.side = side;
  }
  if (minSize !== undefined) {
    // SSE query values arrive as strings (validated as numbers by the API document), WebSocket ones as JSON.
    const value = typeof minSize === 'string' ? Number(minSize) : minSize;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_MIN_SIZE)
      throw bad('min_size', `must be a number from 0 to ${MAX_MIN_SIZE}`);
    const micro = parseScaled(value);
    if (micro === null) throw bad('min_size', 'at most 6 decimals');
    filters.minSizeMicro = micro;
  }
  return filters;
}

export const tradesChannel: Channel<TradeFilters> = {
  name: 'trades',
  messageType: 'trade',
  access: 'tier2',
  streams: [trades],
  parseFilters,
  partitionKey: (filters) => filters.market,
  select(_stream, event, filters) {
    const trade = event as TradeExecuted;
    if (filters.market !== undefined && trade.market_id !== filters.market) return null;
    if (filters.wallet !== undefined && trade.wallet !== filters.wallet) return null;
    if (filters.side !== undefined && trade.side !== filters.side) return null;
    const row = tradeRowOfEvent(trade);
    if (filters.minSizeMicro !== undefined && BigInt(row.usdc_text) < filters.minSizeMicro) return null;
    return presentTrade(row);
  },
};
