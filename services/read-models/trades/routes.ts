/**
 * Trade feed (/trades) and per-market tape (/markets/:id/trades): newest first, keyset on
 * (timestamp, trade_id) so a walk never repeats or skips a row.
 * Bounded work: without a market or wallet (which read their projection), a filter on side, outcome
 * or size may match nothing for years of trades, so it needs a time window: `from` is required and
 * `to - from` is at most FILTER_WINDOW_DAYS. The engine's per-request time and memory limits bound the rest.
 */
import { type Request, Router } from 'express';
import { ApiError } from '../../../api/errors.js';
import { keysetPage } from '../../../api/keyset.js';
import { timeParam } from '../../../api/time-params.js';
import type { Trade } from '../../../api/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { iso } from '../../shared/time.js';
import { requireMarket } from '../markets/queries.js';

interface TradeRow {
  trade_id: string;
  market_id: string;
  market_title: string;
  wallet: string;
  side: 'buy' | 'sell';
  outcome: string;
  outcome_index: number;
  price: number;
  size: number;
  size_usdc: number;
  ts_ms: number;
  tx_hash: string;
  source: 'polymarket' | 'simulator';
}

interface TradeFilters {
  market?: string;
  wallet?: string;
  side?: string;
  outcome?: string;
  min_size?: number;
  max_size?: number;
  from?: number;
  to?: number;
}

/** Longest from..to window for side, outcome or size filters without a market or wallet. */
export const FILTER_WINDOW_DAYS = 31;
const DAY_MS = 86_400_000;

function filtersFrom(request: Request, market: string | undefined): TradeFilters {
  const q = request.query;
  const filters: TradeFilters = {
    market,
    wallet: q.wallet ? String(q.wallet).toLowerCase() : undefined,
    side: q.side ? String(q.side) : undefined,
    outcome: q.outcome ? String(q.outcome) : undefined,
    min_size: q.min_size !== undefined ? Number(q.min_size) : undefined,
    max_size: q.max_size !== undefined ? Number(q.max_size) : undefined,
    from: timeParam('from', q.from),
    to: timeParam('to', q.to),
  };
  if (filters.min_size !== undefined && filters.max_size !== undefined && filters.min_size > filters.max_size) {
    throw ApiError.badRequest('min_size: must not exceed max_size');
  }
  if (filters.from !== undefined && filters.to !== undefined && filters.from >= filters.to)
    throw ApiError.badRequest('from: must be before to');
  const unselective = (['side', 'outcome', 'min_size', 'max_size'] as const).filter((k) => filters[k] !== undefined);
  if (unselective.length > 0 && filters.market === undefined && filters.wallet === undefined) {
    const named = unselective.join(', ');
    if (filters.from === undefined) {
      throw ApiError.badRequest(
        `from: required with ${named} unless market or wallet is given (a time window of at most ${FILTER_WINDOW_DAYS} days)`,
      );
    }
    if ((filters.to ?? Date.now()) - filters.from > FILTER_WINDOW_DAYS * DAY_MS) {
      throw ApiError.badRequest(`from: with ${named} and no market or wallet, from..to spans at most ${FILTER_WINDOW_DAYS} days`);
    }
  }
  return filters;
}

const CONDITIONS: Record<keyof TradeFilters, string> = {
  market: 'market_id = {market:String}',
  wallet: 'wallet = {wallet:String}',
  side: 'side = {side:String}',
  outcome: 'lower(outcome) = lower({outcome:String})',
  min_size: 'size_usdc >= {min_size:Float64}',
  max_size: 'size_usdc <= {max_size:Float64}',
  from: 'ts >= fromUnixTimestamp64Milli({from:Int64})',
  to: 'ts < fromUnixTimestamp64Milli({to:Int64})',
};

/**
 * With a market or wallet filter the column is constant, so leading the ORDER BY with it changes no
 * result but lets ClickHouse read the by_market / by_wallet projection in order instead of sorting
 * every row of that market or wallet.
 */
function leadingSortKey(filters: TradeFilters): string {
  if (filters.market !== undefined) return 'market_id DESC, ';
  if (filters.wallet !== undefined) return 'wallet DESC, ';
  return '';
}

function presentTrade(t: TradeRow): Trade {
  return {
    trade_id: t.trade_id,
    market_id: t.market_id,
    market_title: t.market_title,
    wallet: t.wallet,
    side: t.side,
    outcome: t.outcome,
    outcome_index: Number(t.outcome_index),
    price: t.price,
    size_shares: t.size,
    size_usdc: t.size_usdc,
    timestamp: iso(t.ts_ms),
    tx_hash: t.tx_hash,
    source: t.source,
  };
}

function tradePage(store: AnalyticsStore, request: Request, filters: TradeFilters) {
  const conditions = (Object.keys(CONDITIONS) as Array<keyof TradeFilters>)
    .filter((k) => filters[k] !== undefined)
    .map((k) => CONDITIONS[k]);
  return keysetPage<TradeRow, Trade>(request, {
    filters: { ...filters },
    shape: ['ms', 'string'],
    fetch: (after, take) =>
      store.query<TradeRow>(
        `SELECT trade_id, market_id, market_title, wallet, side, outcome, outcome_index, price, size, size_usdc,
                toUnixTimestamp64Milli(ts) AS ts_ms, tx_hash, source
           FROM trades
          WHERE ${[...conditions, ...(after ? ['(ts, trade_id) < (fromUnixTimestamp64Milli({after_ms:Int64}), {after_id:String})'] : [])].join(' AND ') || '1'}
          ORDER BY ${leadingSortKey(filters)}ts DESC, trade_id DESC
          LIMIT {take:UInt32}`,
        { ...filters, take, after_ms: after?.[0], after_id: after?.[1] },
        // Ordered reads: ClickHouse counts every row such a read may touch against max_rows_to_read,
        // not what it reads, so that limit is lifted; LIMIT, the filter window and the time limit bound them.
        { limits: { maxRowsToRead: 0 } },
      ),
    keyOf: (row) => [Number(row.ts_ms), row.trade_id],
    present: presentTrade,
  });
}

export function tradeRoutes(store: AnalyticsStore): Router {
  const router = Router();
  router.get('/trades', async (request, response) => {
    const market = request.query.market ? String(request.query.market).toLowerCase() : undefined;
    response.json(await tradePage(store, request, filtersFrom(request, market)));
  });
  router.get('/markets/:id/trades', async (request, response) => {
    const market = await requireMarket(store, request);
    response.json(await tradePage(store, request, filtersFrom(request, market.market_id)));
  });
  return router;
}
