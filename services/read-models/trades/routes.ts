/**
 * Trade feed (/trades) and per-market tape (/markets/:id/trades), newest first in chain order:
 * (time, block, log index), never a hash. Two sources meet here (docs/CHAIN.md):
 * - chain fills (chain_ledger): authoritative, both sides of every match, with block and log index;
 * - Data API trades (trades): the fast path, taker fills only, served where the chain source has not
 *   published (newer than its last block, older than its first, or everywhere when no RPC is set).
 * Inside the chain's coverage the Data API rows are not served: the chain has them (the hourly
 * reconciliation in /v1/health counts any it does not).
 * Bounded work: without a market or wallet (which read their projection), a filter on side, outcome
 * or size may match nothing for years of trades, so it needs a time window: `from` is required and
 * `to - from` is at most FILTER_WINDOW_DAYS. The engine's per-request time and memory limits bound the rest.
 */
import { queryOf } from '../../http/query.js';
import { type Request, Router } from 'express';
import { ApiError } from '../../http/errors.js';
import { keysetPage } from '../../http/keyset.js';
import { timeParam } from '../../http/time-params.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { type ChainCoverage, chainCoverage } from '../chain-ledger/queries.js';
import { findMarket, requireMarket } from '../markets/queries.js';
import type { Trade } from '../../http/types.generated.js';
import { presentTrade, type TradeRow } from './present.js';

type Role = 'taker' | 'maker' | 'all';

export interface TradeFilters {
  market?: string;
  wallet?: string;
  side?: string;
  outcome?: string;
  min_size?: number;
  max_size?: number;
  from?: number;
  to?: number;
  role: Role;
}

/** Longest from..to window for side, outcome or size filters without a market or wallet. */
const FILTER_WINDOW_DAYS = 31;
const DAY_MS = 86_400_000;

function filtersFrom(request: Request, market: string | undefined): TradeFilters {
  // /markets/{id}/trades takes the parameters of /trades but `market` (its path names the market).
  const q = queryOf(request, 'listTrades');
  const filters: TradeFilters = {
    market,
    wallet: q.wallet ? q.wallet.toLowerCase() : undefined,
    side: q.side || undefined,
    outcome: q.outcome || undefined,
    min_size: q.min_size,
    max_size: q.max_size,
    from: timeParam('from', q.from),
    to: timeParam('to', q.to),
    // A named wallet's list is its whole record, both sides (a market maker's own list is not empty);
    // a feed without one lists each match once, by its taker fill.
    role: q.role ?? (q.wallet ? 'all' : 'taker'),
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

type FilterKey = Exclude<keyof TradeFilters, 'role'>;

const CHAIN_CONDITIONS: Record<FilterKey, string> = {
  market: 'market_id = {market:String}',
  wallet: 'wallet = {wallet:String}',
  side: 'side = {side:String}',
  outcome: 'lower(outcome) = lower({outcome:String})',
  min_size: 'usdc_micro >= toUInt64(round({min_size:Float64} * 1000000))',
  max_size: 'usdc_micro <= toUInt64(round({max_size:Float64} * 1000000))',
  from: 'block_time >= fromUnixTimestamp64Milli({from:Int64})',
  to: 'block_time < fromUnixTimestamp64Milli({to:Int64})',
};

const API_CONDITIONS: Record<FilterKey, string> = {
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

const conditionsOf = (filters: TradeFilters, table: Record<FilterKey, string>) =>
  (Object.keys(table) as FilterKey[]).filter((k) => filters[k] !== undefined).map((k) => table[k]);

/** The chain's fills matching `filters`; `limited`: LIMIT {take} (a page), else every match (an export). */
export function chainBranch(filters: TradeFilters, after: boolean, limited = true): string {
  const conditions = [
    "kind = 'fill'",
    // taker: one record per trade, a match's taker fill or a legacy AMM trade (role amm: the pool is no wallet).
    ...(filters.role === 'all' ? [] : [filters.role === 'taker' ? "role IN ('taker', 'amm')" : 'role = {role:String}']),
    ...conditionsOf(filters, CHAIN_CONDITIONS),
    ...(after
      ? [
          '(toUnixTimestamp64Milli(block_time), block_number, log_index, event_id) < ({after_ms:Int64}, {after_block:UInt64}, {after_log:Int32}, {after_id:String})',
        ]
      : []),
  ];
  return `SELECT event_id AS trade_id, market_id, market_title, wallet, side, outcome, outcome_index, price,
                 toString(shares_micro) AS shares_text, toString(usdc_micro) AS usdc_text, toFloat64(0) AS size, toFloat64(0) AS size_usdc,
                 CAST(toString(fee_micro), 'Nullable(String)') AS fee_text, CAST(toString(fee_asset), 'Nullable(String)') AS fee_asset_text,
                 toUnixTimestamp64Milli(block_time) AS ts_ms, tx_hash, toString(source) AS source, toString(role) AS role,
                 block_number, log_index, 'chain' AS origin
            FROM chain_ledger
           WHERE ${conditions.join(' AND ')}
           ${limited ? `ORDER BY ${leadingSortKey(filters)}block_time DESC, block_number DESC, log_index DESC, event_id DESC LIMIT {take:UInt32}` : ''}`;
}

/** The Data API trades matching `filters` outside the chain's coverage; `limited` as in chainBranch. */
export function dataApiBranch(filters: TradeFilters, coverage: ChainCoverage | null, after: boolean, limited = true): string {
  const conditions = [
    ...conditionsOf(filters, API_CONDITIONS),
    ...(coverage ? ['(ts < fromUnixTimestamp64Milli({covered_from:Int64}) OR ts > fromUnixTimestamp64Milli({covered_to:Int64}))'] : []),
    // Data API rows have no block: they sort after the chain's rows of the same millisecond.
    ...(after
      ? [
          '(toUnixTimestamp64Milli(ts), toUInt64(0), toInt32(0), trade_id) < ({after_ms:Int64}, {after_block:UInt64}, {after_log:Int32}, {after_id:String})',
        ]
      : []),
  ];
  return `SELECT trade_id, market_id, market_title, wallet, toString(side) AS side, outcome, outcome_index, price,
                 toString(toUInt64(round(size * 1000000))) AS shares_text, toString(toUInt64(round(size_usdc * 1000000))) AS usdc_text,
                 size, size_usdc, CAST(NULL, 'Nullable(String)') AS fee_text, CAST(NULL, 'Nullable(String)') AS fee_asset_text,
                 toUnixTimestamp64Milli(ts) AS ts_ms, tx_hash, toString(source) AS source, 'taker' AS role,
                 toUInt64(0) AS block_number, toInt32(0) AS log_index, 'data_api' AS origin
            FROM trades
           WHERE ${conditions.join(' AND ') || '1'}
           ${limited ? `ORDER BY ${leadingSortKey(filters)}ts DESC, trade_id DESC LIMIT {take:UInt32}` : ''}`;
}

async function tradePage(store: AnalyticsStore, request: Request, filters: TradeFilters) {
  const coverage = await chainCoverage(store);
  return keysetPage<TradeRow, Trade>(request, {
    filters: { ...filters },
    shape: ['number', 'number', 'number', 'string'],
    fetch: (after, take) => {
      // Data API trades are taker fills only: never part of a maker page.
      const branches = [
        chainBranch(filters, after !== null),
        ...(filters.role === 'maker' ? [] : [dataApiBranch(filters, coverage, after !== null)]),
      ];
      return store.query<TradeRow>(
        `SELECT * FROM (${branches.map((b) => `(${b})`).join(' UNION ALL ')})
          ORDER BY ts_ms DESC, block_number DESC, log_index DESC, trade_id DESC
          LIMIT {take:UInt32}`,
        {
          ...filters,
          take,
          covered_from: coverage?.firstMs,
          covered_to: coverage?.lastMs,
          after_ms: after?.[0],
          after_block: after?.[1],
          after_log: after?.[2],
          after_id: after?.[3],
        },
        // Ordered reads: ClickHouse counts every row such a read may touch against max_rows_to_read,
        // not what it reads, so that limit is lifted; LIMIT, the filter window and the time limit bound them.
        { limits: { maxRowsToRead: 0 } },
      );
    },
    keyOf: (row) => [Number(row.ts_ms), Number(row.block_number), Number(row.log_index), row.trade_id],
    present: presentTrade,
  });
}

const CONDITION_ID = /^0x[0-9a-fA-F]{64}$/;

/** The `market` filter: a condition id as given (any case), or the condition id of a slug; 404 for an unknown slug. */
export async function marketFilter(store: AnalyticsStore, value: unknown): Promise<string | undefined> {
  if (value === undefined || value === '') return undefined;
  const idOrSlug = String(value);
  if (CONDITION_ID.test(idOrSlug)) return idOrSlug.toLowerCase();
  const market = await findMarket(store, idOrSlug);
  if (!market) throw ApiError.notFound(`market: no market with slug ${idOrSlug}`);
  return market.market_id;
}

export function tradeRoutes(store: AnalyticsStore): Router {
  const router = Router();
  router.get('/trades', async (request, response) => {
    response.json(await tradePage(store, request, filtersFrom(request, await marketFilter(store, queryOf(request, 'listTrades').market))));
  });
  router.get('/markets/:id/trades', async (request, response) => {
    const market = await requireMarket(store, request);
    response.json(await tradePage(store, request, filtersFrom(request, market.market_id)));
  });
  return router;
}
