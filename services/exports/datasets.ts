/**
 * The engine SQL that selects each export dataset's rows (their columns: schemas.ts, the one source;
 * documented in api/exports-datasets.md). The rows are the API's own where the API serves them: the
 * trades dataset reads the same two sources, with the same conditions, as GET /v1/trades
 * (services/read-models/trades/routes.ts), every fill of both sides (role=all); candles choose each
 * bucket's source as GET /markets/{id}/ohlcv does.
 * Amounts are exact: decimals as Decimal(38, 6) (Parquet DECIMAL, read as exact decimals by DuckDB,
 * pyarrow and polars) derived from the same micro-units the API serves, next to those micro-units as
 * integers; never a float.
 */
import type { AnalyticsStore, QueryParams } from '../ports/analytics-store.js';
import { CHAIN_BUCKET, INTERVAL_SECONDS, INTERVAL_TABLES } from '../read-models/candles/routes.js';
import { chainCoverage } from '../read-models/chain-ledger/queries.js';
import { CHAIN_CANDLE_TABLES } from '../read-models/chain-ledger/retraction.js';
import { chainBranch, dataApiBranch, type TradeFilters } from '../read-models/trades/routes.js';
import { DATASET_SCHEMAS, type DatasetName, type DatasetSchema } from './schemas.js';

export type { DatasetName } from './schemas.js';

export const CANDLE_INTERVALS = ['5m', '1h', '1d'] as const;
export type CandleInterval = (typeof CANDLE_INTERVALS)[number];

/** The filters of a job as applied (schemas.ts says which each dataset takes). */
export interface ExportFilters {
  /** Condition id. */
  market?: string;
  /** Gamma event id. */
  event?: string;
  category?: string;
  /** Lower-case address. */
  wallet?: string;
  /** Milliseconds, inclusive; set exactly when the dataset has time. */
  from?: number;
  /** Milliseconds, exclusive. */
  to?: number;
  /** Candles only. */
  interval?: CandleInterval;
}

/** One window's rows: `sql` selects the dataset's columns in file order. */
export interface Selection {
  sql: string;
  params: QueryParams;
}

export interface Dataset extends DatasetSchema {
  name: DatasetName;
  /** The rows of `filters` (ordered for the file); the runner narrows from..to to one day per file. */
  select(store: AnalyticsStore, filters: ExportFilters): Promise<Selection>;
}

/** Per-market resolution, latest version of each market (ReplacingMergeTree without FINAL). */
const RESOLUTIONS = `SELECT market_id, argMax(winning_outcome, ingested_at) AS winning_outcome,
                            argMax(winning_outcome_index, ingested_at) AS winning_outcome_index,
                            argMax(resolved_at, ingested_at) AS resolved_at
                       FROM market_resolutions GROUP BY market_id`;

/** The resolution columns every row carries, from `LEFT JOIN (RESOLUTIONS) AS r`. */
const RESOLUTION_EXPRESSIONS = {
  market_winning_outcome: 'r.winning_outcome',
  market_winning_outcome_index: "if(r.market_id = '', NULL, CAST(r.winning_outcome_index AS Nullable(Int16)))",
  market_resolved_at: 'r.resolved_at',
};

const microDecimal = (micro: string) => `CAST(CAST(${micro} AS Decimal(38, 6)) / 1000000 AS Decimal(38, 6))`;

/**
 * A float as servedAmount serves it (services/shared/decimal.ts): its micro-units are the magnitude
 * times 10^6 in float arithmetic rounded half up (Math.round), with the float's sign. Not round() of a
 * decimal: 1234.5678905 is stored a hair below ...905, which a decimal rounds down and the API rounds up.
 */
const servedDecimal = (float: string) => microDecimal(`toInt64(sign(${float})) * toInt64(floor(abs(${float}) * 1000000 + 0.5))`);
const servedDecimalOrNull = (float: string) => `if(isNull(${float}), NULL, ${servedDecimal(`assumeNotNull(${float})`)})`;

/**
 * The SELECT list of a dataset, in its schema's column order: every column has exactly one expression
 * (a missing or extra one is a programming error, thrown at load), so the SQL cannot drift from the schema.
 */
function selectList(schema: DatasetSchema, expressions: Record<string, string>): string {
  const names = schema.columns.map((c) => c.name);
  const extra = Object.keys(expressions).filter((name) => !names.includes(name));
  const missing = names.filter((name) => !(name in expressions));
  if (extra.length > 0 || missing.length > 0)
    throw new Error(`export SQL and schema differ: extra ${extra.join(', ') || '-'}, missing ${missing.join(', ') || '-'}`);
  return schema.columns.map((c) => `${expressions[c.name]} AS ${c.name}`).join(',\n       ');
}

/** Conditions on a market id column for the market, event and category filters. */
function marketScope(filters: ExportFilters, column: string, withMarket = true): string[] {
  const conditions: string[] = [];
  if (withMarket && filters.market !== undefined) conditions.push(`${column} = {market:String}`);
  const catalogue = [
    ...(filters.event !== undefined ? ['event_id = {event:String}'] : []),
    ...(filters.category !== undefined ? ['lower(category) = lower({category:String})'] : []),
  ];
  if (catalogue.length > 0) conditions.push(`${column} IN (SELECT market_id FROM markets FINAL WHERE ${catalogue.join(' AND ')})`);
  return conditions;
}

/** Conditions on a DateTime64 column for from..to. */
function window(filters: ExportFilters, column: string): string[] {
  return [
    ...(filters.from !== undefined ? [`${column} >= fromUnixTimestamp64Milli({from:Int64}, 'UTC')`] : []),
    ...(filters.to !== undefined ? [`${column} < fromUnixTimestamp64Milli({to:Int64}, 'UTC')`] : []),
  ];
}

const where = (conditions: string[]) => (conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '');

const paramsOf = (filters: ExportFilters): QueryParams => ({
  market: filters.market,
  event: filters.event,
  category: filters.category,
  wallet: filters.wallet,
  from: filters.from,
  to: filters.to,
});

function dataset(name: DatasetName, select: (schema: DatasetSchema) => Dataset['select']): Dataset {
  const schema = DATASET_SCHEMAS[name];
  return { ...schema, name, select: select(schema) };
}

const trades = dataset('trades', (schema) => async (store, filters) => {
  const coverage = await chainCoverage(store);
  const tradeFilters: TradeFilters = { market: filters.market, wallet: filters.wallet, from: filters.from, to: filters.to, role: 'all' };
  const union = [chainBranch(tradeFilters, false, false), dataApiBranch(tradeFilters, coverage, false, false)]
    .map((branch) => `(${branch})`)
    .join(' UNION ALL ');
  const chain = "t.origin = 'chain'";
  const columns = selectList(schema, {
    trade_id: 't.trade_id',
    market_id: 't.market_id',
    market_title: 't.market_title',
    wallet: 't.wallet',
    role: 't.role',
    side: 't.side',
    outcome: 't.outcome',
    outcome_index: 'toInt32(t.outcome_index)',
    price: servedDecimal('t.price'),
    size_shares: `if(${chain}, ${microDecimal('t.shares_text')}, ${servedDecimal('t.size')})`,
    size_usdc: `if(${chain}, ${microDecimal('t.usdc_text')}, ${servedDecimal('t.size_usdc')})`,
    size_shares_micro: 'toUInt64(t.shares_text)',
    size_usdc_micro: 'toUInt64(t.usdc_text)',
    fee_micro: 'CAST(t.fee_text AS Nullable(UInt64))',
    fee_asset: 't.fee_asset_text',
    timestamp: "fromUnixTimestamp64Milli(toInt64(t.ts_ms), 'UTC')",
    block_number: `if(${chain}, CAST(t.block_number AS Nullable(UInt64)), NULL)`,
    log_index: `if(${chain}, CAST(toInt32(t.log_index) AS Nullable(Int32)), NULL)`,
    tx_hash: 't.tx_hash',
    origin: 't.origin',
    source: 't.source',
    ...RESOLUTION_EXPRESSIONS,
  });
  const sql = `SELECT ${columns}
                 FROM (${union}) AS t
                 LEFT JOIN (${RESOLUTIONS}) AS r ON r.market_id = t.market_id
                ${where(marketScope(filters, 't.market_id', false))}
                ORDER BY t.ts_ms, t.block_number, t.log_index, t.trade_id`;
  return {
    sql,
    params: { ...paramsOf(filters), ...tradeFilters, covered_from: coverage?.firstMs, covered_to: coverage?.lastMs },
  };
});

const candles = dataset('candles', (schema) => async (store, filters) => {
  const interval = filters.interval ?? '1h';
  const coverage = await chainCoverage(store);
  const conditions = [
    ...marketScope(filters, 'market_id'),
    ...(filters.from !== undefined ? ['toUnixTimestamp(bucket) * 1000 >= {from:Int64}'] : []),
    ...(filters.to !== undefined ? ['toUnixTimestamp(bucket) * 1000 < {to:Int64}'] : []),
  ];
  // A bucket from one source, as the ohlcv endpoint chooses it: the chain's when its coverage holds the whole bucket.
  const chain = coverage
    ? `SELECT market_id, bucket, argMinMerge(open) AS o, max(high) AS h, min(low) AS l, argMaxMerge(close) AS c,
              ${microDecimal('sum(volume_usdc_micro)')} AS volume_usdc, ${microDecimal('sum(volume_shares_micro)')} AS volume_shares,
              toUInt64(sum(trade_count)) AS trade_count, 'chain' AS origin
         FROM ${CHAIN_CANDLE_TABLES[interval]}
        WHERE ${[CHAIN_BUCKET, ...conditions].join(' AND ')}
        GROUP BY market_id, bucket`
    : null;
  const dataApi = `SELECT market_id, bucket, argMinMerge(open) AS o, max(high) AS h, min(low) AS l, argMaxMerge(close) AS c,
              ${servedDecimal('sum(volume_usdc)')} AS volume_usdc, ${servedDecimal('sum(volume_shares)')} AS volume_shares,
              toUInt64(sum(trade_count)) AS trade_count, 'data_api' AS origin
         FROM ${INTERVAL_TABLES[interval]}
        ${where([...(coverage ? [`NOT ${CHAIN_BUCKET}`] : []), ...conditions])}
        GROUP BY market_id, bucket`;
  const union = [chain, dataApi]
    .filter((q): q is string => q !== null)
    .map((q) => `(${q})`)
    .join(' UNION ALL ');
  const columns = selectList(schema, {
    market_id: 'c.market_id',
    interval: '{interval:String}',
    bucket_start: "toDateTime64(c.bucket, 3, 'UTC')",
    open: servedDecimal('c.o'),
    high: servedDecimal('c.h'),
    low: servedDecimal('c.l'),
    close: servedDecimal('c.c'),
    volume_usdc: 'c.volume_usdc',
    volume_shares: 'c.volume_shares',
    trade_count: 'c.trade_count',
    origin: 'c.origin',
    ...RESOLUTION_EXPRESSIONS,
  });
  return {
    sql: `SELECT ${columns}
            FROM (${union}) AS c
            LEFT JOIN (${RESOLUTIONS}) AS r ON r.market_id = c.market_id
           ORDER BY c.bucket, c.market_id`,
    params: {
      ...paramsOf(filters),
      interval,
      seconds: INTERVAL_SECONDS[interval],
      covered_from: coverage?.firstMs,
      covered_to: coverage?.lastMs,
    },
  };
});

const markets = dataset('markets', (schema) => async (_store, filters) => {
  const columns = selectList(schema, {
    market_id: 'm.market_id',
    gamma_id: 'm.gamma_id',
    slug: 'm.slug',
    title: 'm.title',
    category: 'toString(m.category)',
    event_id: 'm.event_id',
    event_slug: 'm.event_slug',
    event_title: 'm.event_title',
    outcomes: 'm.outcomes',
    outcome_token_ids: 'm.outcome_token_ids',
    outcome_prices: `arrayMap(p -> ${servedDecimal('p')}, m.outcome_prices)`,
    status: 'toString(m.status)',
    neg_risk: 'm.neg_risk',
    neg_risk_market_id: 'm.neg_risk_market_id',
    question_id: 'm.question_id',
    tick_size: servedDecimalOrNull('m.tick_size'),
    volume_total_usdc: servedDecimal('m.volume_total_usdc'),
    liquidity_usdc: servedDecimal('m.liquidity_usdc'),
    fees_enabled: 'm.fees_enabled',
    start_date: 'm.start_date',
    end_date: 'm.end_date',
    closed_at: 'm.closed_at',
    created_at: 'm.created_at',
    updated_at: 'm.updated_at',
    source: 'toString(m.source)',
    ...RESOLUTION_EXPRESSIONS,
  });
  return {
    sql: `SELECT ${columns}
            FROM markets AS m FINAL
            LEFT JOIN (${RESOLUTIONS}) AS r ON r.market_id = m.market_id
           ${where(marketScope(filters, 'm.market_id'))}
           ORDER BY m.market_id`,
    params: paramsOf(filters),
  };
});

const resolutions = dataset('resolutions', (schema) => async (_store, filters) => {
  const columns = selectList(schema, {
    market_id: 'v.market_id',
    slug: 'v.slug',
    title: 'v.title',
    outcomes: 'v.outcomes',
    outcome_token_ids: 'v.outcome_token_ids',
    winning_outcome: 'v.winning_outcome',
    winning_outcome_index: 'v.winning_outcome_index',
    winning_asset_id: 'v.winning_asset_id',
    payouts: `arrayMap(p -> ${servedDecimal('p')}, v.payouts)`,
    resolved_at: 'assumeNotNull(v.resolved_at)',
    origin: 'toString(v.origin)',
    source: 'toString(v.source)',
  });
  // The latest version of each market's resolution, then its window (a version's resolved_at may move).
  return {
    sql: `SELECT ${columns}
            FROM (SELECT * FROM market_resolutions ${where(marketScope(filters, 'market_id'))}
                   ORDER BY market_id, ingested_at DESC LIMIT 1 BY market_id) AS v
           WHERE v.resolved_at IS NOT NULL ${window(filters, 'v.resolved_at')
             .map((c) => `AND ${c}`)
             .join(' ')}
           ORDER BY v.resolved_at, v.market_id`,
    params: paramsOf(filters),
  };
});

const positionLedger = dataset('position_ledger', (schema) => async (_store, filters) => {
  const conditions = [
    ...(filters.wallet !== undefined ? ['wallet = {wallet:String}'] : []),
    ...marketScope(filters, 'market_id'),
    ...window(filters, 'time'),
  ];
  const columns = selectList(schema, {
    wallet: 'l.wallet',
    asset_id: 'l.asset_id',
    market_id: 'l.market_id',
    outcome: 'l.outcome',
    outcome_index: 'l.outcome_index',
    time: 'l.time',
    block_number: 'l.block_number',
    log_index: 'l.log_index',
    event_id: 'l.event_id',
    rev: 'l.rev',
    kind: 'toString(l.kind)',
    role: 'toString(l.role)',
    action: 'toString(l.action)',
    origin: 'toString(l.origin)',
    source: 'toString(l.source)',
    tx_hash: 'l.tx_hash',
    counterparty: 'l.counterparty',
    price: servedDecimal('l.price'),
    shares_delta: microDecimal('l.qty_delta'),
    cash_usdc: microDecimal('l.cash'),
    realized_pnl_usdc: microDecimal('l.realized'),
    volume_usdc: microDecimal('l.volume'),
    shares_after: microDecimal('l.qty_after'),
    cost_basis_after_usdc: microDecimal('l.cost_after'),
    shares_delta_micro: 'l.qty_delta',
    cash_micro: 'l.cash',
    realized_pnl_micro: 'l.realized',
    shares_after_micro: 'l.qty_after',
    cost_basis_after_micro: 'l.cost_after',
    fee_micro: 'l.fee_micro',
    opened_at: 'l.opened_at',
    ...RESOLUTION_EXPRESSIONS,
  });
  // The rows that stand: a rewind's sign = -1 copy (same wallet, token and time as the row it
  // cancels, of_rev = its rev) takes the cancelled row out; its replay is a new row that stands.
  return {
    sql: `SELECT ${columns}
            FROM (SELECT * FROM position_ledger ${where(['sign = 1', ...conditions])}) AS l
            LEFT JOIN (${RESOLUTIONS}) AS r ON r.market_id = l.market_id
           WHERE (l.wallet, l.asset_id, l.rev) NOT IN
                 (SELECT wallet, asset_id, of_rev FROM position_ledger ${where(['sign = -1', ...conditions])})
           ORDER BY l.time, l.block_number, l.log_index, l.wallet, l.asset_id, l.rev`,
    params: paramsOf(filters),
  };
});

/** The catalogue's outcome label of each token, joined as `o` on (market_id, asset_id). */
const TOKEN_OUTCOMES = `SELECT market_id, arrayJoin(arrayZip(outcome_token_ids, outcomes)) AS token, token.1 AS asset_id, token.2 AS outcome
                          FROM markets FINAL`;

/** The rows of one order-book table in from..to, deduplicated as the replay endpoint reads them (FINAL). */
function bookRows(table: string, filters: ExportFilters): string {
  return `SELECT * FROM ${table} FINAL ${where([...marketScope(filters, 'market_id'), ...window(filters, 'ts')])}`;
}

const bookSnapshots = dataset('book_snapshots', (schema) => async (_store, filters) => {
  const levels = (column: string) => `arrayMap(x -> ${servedDecimal('x')}, b.${column})`;
  const columns = selectList(schema, {
    book_id: 'b.book_id',
    market_id: 'b.market_id',
    asset_id: 'b.asset_id',
    outcome: 'o.outcome',
    hash: 'b.hash',
    timestamp: 'b.ts',
    bid_prices: levels('bid_prices'),
    bid_sizes: levels('bid_sizes'),
    ask_prices: levels('ask_prices'),
    ask_sizes: levels('ask_sizes'),
    best_bid: servedDecimalOrNull('b.best_bid'),
    best_ask: servedDecimalOrNull('b.best_ask'),
    tick_size: servedDecimalOrNull('b.tick_size'),
    min_order_size: servedDecimalOrNull('b.min_order_size'),
    last_trade_price: servedDecimalOrNull('b.last_trade_price'),
    origin: 'toString(b.origin)',
    source: 'toString(b.source)',
    ingested_at: 'b.ingested_at',
    ...RESOLUTION_EXPRESSIONS,
  });
  return {
    sql: `SELECT ${columns}
            FROM (${bookRows('order_books', filters)}) AS b
            LEFT JOIN (${TOKEN_OUTCOMES}) AS o ON o.market_id = b.market_id AND o.asset_id = b.asset_id
            LEFT JOIN (${RESOLUTIONS}) AS r ON r.market_id = b.market_id
           ORDER BY b.ts, b.asset_id, b.ingested_at, b.book_id`,
    params: paramsOf(filters),
  };
});

const bookDeltas = dataset('book_deltas', (schema) => async (_store, filters) => {
  const columns = selectList(schema, {
    delta_id: 'd.delta_id',
    market_id: 'd.market_id',
    asset_id: 'd.asset_id',
    outcome: 'o.outcome',
    side: 'toString(d.side)',
    price: servedDecimal('d.price'),
    size_shares: servedDecimal('d.size'),
    hash: 'd.hash',
    best_bid: servedDecimalOrNull('d.best_bid'),
    best_ask: servedDecimalOrNull('d.best_ask'),
    timestamp: 'd.ts',
    source: 'toString(d.source)',
    ingested_at: 'd.ingested_at',
    ...RESOLUTION_EXPRESSIONS,
  });
  return {
    sql: `SELECT ${columns}
            FROM (${bookRows('order_book_deltas', filters)}) AS d
            LEFT JOIN (${TOKEN_OUTCOMES}) AS o ON o.market_id = d.market_id AND o.asset_id = d.asset_id
            LEFT JOIN (${RESOLUTIONS}) AS r ON r.market_id = d.market_id
           ORDER BY d.ts, d.asset_id, d.ingested_at, d.delta_id`,
    params: paramsOf(filters),
  };
});

export const DATASET: Record<DatasetName, Dataset> = {
  trades,
  candles,
  markets,
  resolutions,
  position_ledger: positionLedger,
  book_snapshots: bookSnapshots,
  book_deltas: bookDeltas,
};

/** One planned file: its UTC day (null for a dataset without time: one file) and the rows it holds. */
export interface DayRows {
  day: string | null;
  rows: number;
}

/** Rows per UTC day of a selection (one part when the dataset has no time): the job's plan, fixed when it is accepted. */
export async function rowsPerDay(store: AnalyticsStore, dataset: Dataset, selection: Selection): Promise<DayRows[]> {
  const rows = await store.query<{ day: string | null; rows: number }>(
    dataset.time === null
      ? `SELECT NULL AS day, count() AS rows FROM (${selection.sql}) HAVING rows > 0`
      : `SELECT toString(toDate(${dataset.time}, 'UTC')) AS day, count() AS rows FROM (${selection.sql}) GROUP BY day ORDER BY day`,
    selection.params,
    { limits: { maxRowsToRead: 0 } },
  );
  return rows.map((r) => ({ day: r.day, rows: Number(r.rows) }));
}
