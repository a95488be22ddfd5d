/**
 * What each export dataset is: its versioned column schema (docs/EXPORTS.md) and the engine SQL that
 * selects its rows for one time window. The rows are the API's own: the trades dataset reads the same
 * two sources, with the same conditions, as GET /v1/trades (services/read-models/trades/routes.ts),
 * every fill of both sides (role=all), oldest first.
 * Amounts are exact: decimals as Decimal(38, 6) (Parquet DECIMAL, read as exact decimals by DuckDB,
 * pyarrow and polars) derived from the same micro-units the API serves, next to those micro-units as
 * integers; never a float.
 */
import type { AnalyticsStore, QueryParams } from '../ports/analytics-store.js';
import { chainCoverage } from '../read-models/chain-ledger/queries.js';
import { chainBranch, dataApiBranch, type TradeFilters } from '../read-models/trades/routes.js';

const DATASETS = ['trades'] as const;
export type DatasetName = (typeof DATASETS)[number];

export interface ExportFilters {
  market?: string;
  wallet?: string;
  /** Milliseconds, inclusive. */
  from: number;
  /** Milliseconds, exclusive. */
  to: number;
}

interface Column {
  name: string;
  /** The ClickHouse type the engine writes (its Parquet mapping is in docs/EXPORTS.md). */
  type: string;
}

/** One window's rows: `sql` selects the dataset's columns in file order. */
export interface Selection {
  sql: string;
  params: QueryParams;
}

export interface Dataset {
  name: DatasetName;
  /** Raised whenever a column is added, removed, renamed or retyped. */
  schemaVersion: number;
  columns: readonly Column[];
  /** The rows of `filters`' window (ordered for the file), and the expression of each row's time as DateTime64. */
  select(store: AnalyticsStore, filters: ExportFilters): Promise<Selection & { time: string }>;
}

/** Per-market resolution, latest version of each market (ReplacingMergeTree without FINAL). */
const RESOLUTIONS = `SELECT market_id, argMax(winning_outcome, ingested_at) AS winning_outcome,
                            argMax(winning_outcome_index, ingested_at) AS winning_outcome_index,
                            argMax(resolved_at, ingested_at) AS resolved_at
                       FROM market_resolutions GROUP BY market_id`;

const TRADE_COLUMNS: readonly Column[] = [
  { name: 'trade_id', type: 'String' },
  { name: 'market_id', type: 'String' },
  { name: 'market_title', type: 'String' },
  { name: 'wallet', type: 'String' },
  { name: 'role', type: 'String' },
  { name: 'side', type: 'String' },
  { name: 'outcome', type: 'String' },
  { name: 'outcome_index', type: 'Int32' },
  { name: 'price', type: 'Decimal(38, 6)' },
  { name: 'size_shares', type: 'Decimal(38, 6)' },
  { name: 'size_usdc', type: 'Decimal(38, 6)' },
  { name: 'size_shares_micro', type: 'UInt64' },
  { name: 'size_usdc_micro', type: 'UInt64' },
  { name: 'fee_micro', type: 'Nullable(UInt64)' },
  { name: 'fee_asset', type: 'Nullable(String)' },
  { name: 'timestamp', type: "DateTime64(3, 'UTC')" },
  { name: 'block_number', type: 'Nullable(UInt64)' },
  { name: 'log_index', type: 'Nullable(Int32)' },
  { name: 'tx_hash', type: 'String' },
  { name: 'origin', type: 'String' },
  { name: 'source', type: 'String' },
  { name: 'market_winning_outcome', type: 'Nullable(String)' },
  { name: 'market_winning_outcome_index', type: 'Nullable(Int16)' },
  { name: 'market_resolved_at', type: "Nullable(DateTime64(3, 'UTC'))" },
];

/**
 * A float rounded at the sixth decimal half away from zero, as servedAmount does (ClickHouse's round()
 * of a Decimal rounds half away from zero; of a float, to even): through Decimal(38, 18) first.
 */
const servedDecimal = (float: string) => `CAST(round(toDecimal128(${float}, 18), 6) AS Decimal(38, 6))`;
const microDecimal = (microText: string) => `CAST(CAST(${microText} AS Decimal(38, 6)) / 1000000 AS Decimal(38, 6))`;

const trades: Dataset = {
  name: 'trades',
  schemaVersion: 1,
  columns: TRADE_COLUMNS,
  async select(store, filters) {
    const coverage = await chainCoverage(store);
    const tradeFilters: TradeFilters = { market: filters.market, wallet: filters.wallet, from: filters.from, to: filters.to, role: 'all' };
    const union = [chainBranch(tradeFilters, false, false), dataApiBranch(tradeFilters, coverage, false, false)]
      .map((branch) => `(${branch})`)
      .join(' UNION ALL ');
    const chain = "t.origin = 'chain'";
    const sql = `SELECT t.trade_id AS trade_id, t.market_id AS market_id, t.market_title AS market_title, t.wallet AS wallet,
                        t.role AS role, t.side AS side, t.outcome AS outcome, toInt32(t.outcome_index) AS outcome_index,
                        ${servedDecimal('t.price')} AS price,
                        if(${chain}, ${microDecimal('t.shares_text')}, ${servedDecimal('t.size')}) AS size_shares,
                        if(${chain}, ${microDecimal('t.usdc_text')}, ${servedDecimal('t.size_usdc')}) AS size_usdc,
                        toUInt64(t.shares_text) AS size_shares_micro, toUInt64(t.usdc_text) AS size_usdc_micro,
                        CAST(t.fee_text AS Nullable(UInt64)) AS fee_micro, t.fee_asset_text AS fee_asset,
                        fromUnixTimestamp64Milli(toInt64(t.ts_ms), 'UTC') AS timestamp,
                        if(${chain}, CAST(t.block_number AS Nullable(UInt64)), NULL) AS block_number,
                        if(${chain}, CAST(toInt32(t.log_index) AS Nullable(Int32)), NULL) AS log_index,
                        t.tx_hash AS tx_hash, t.origin AS origin, t.source AS source,
                        r.winning_outcome AS market_winning_outcome,
                        if(r.market_id = '', NULL, CAST(r.winning_outcome_index AS Nullable(Int16))) AS market_winning_outcome_index,
                        r.resolved_at AS market_resolved_at
                   FROM (${union}) AS t
                   LEFT JOIN (${RESOLUTIONS}) AS r ON r.market_id = t.market_id
                  ORDER BY t.ts_ms, t.block_number, t.log_index, t.trade_id`;
    return {
      sql,
      params: { ...tradeFilters, covered_from: coverage?.firstMs, covered_to: coverage?.lastMs },
      time: 'timestamp',
    };
  },
};

export const DATASET: Record<DatasetName, Dataset> = { trades };

/** Rows per UTC day of a selection: the job's plan, fixed when it is accepted. */
export async function rowsPerDay(store: AnalyticsStore, selection: Selection & { time: string }): Promise<Map<string, number>> {
  const rows = await store.query<{ day: string; rows: number }>(
    `SELECT toString(toDate(${selection.time})) AS day, count() AS rows FROM (${selection.sql}) GROUP BY day ORDER BY day`,
    selection.params,
    { limits: { maxRowsToRead: 0 } },
  );
  return new Map(rows.map((r) => [r.day, Number(r.rows)]));
}
