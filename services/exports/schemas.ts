/**
 * The one source of what each export dataset holds: its columns (name, the ClickHouse type the engine
 * writes, meaning), its version, what its time is and which filters it takes. api/exports-datasets.md
 * is generated from this table (`npm run gen`), the API document's dataset enums are checked against
 * it (schemas.unit.test.ts), and the integration tests compare each written file's schema with it.
 * This module holds data only, so the generator can read it without the engine's code.
 */

export const FILTER_NAMES = ['market', 'event', 'category', 'wallet', 'from', 'to', 'interval'] as const;
export type FilterName = (typeof FILTER_NAMES)[number];

interface Column {
  name: string;
  /** The ClickHouse type the engine writes (its Parquet type: parquetTypeOf). */
  type: string;
  description: string;
}

export interface DatasetSchema {
  /** Raised whenever a column is added, removed, renamed or retyped. */
  schemaVersion: number;
  /** What a row is (the generated document's paragraph and the API document's description). */
  summary: string;
  /** The column whose UTC day partitions the files and that from..to select on; null: one unpartitioned file. */
  time: string | null;
  /** The filters the dataset takes; any other is a 400 naming it. */
  filters: readonly FilterName[];
  /** The order of the rows within a file. */
  order: string;
  columns: readonly Column[];
}

const RESOLUTION_COLUMNS: readonly Column[] = [
  { name: 'market_winning_outcome', type: 'Nullable(String)', description: "the market's winning outcome once resolved" },
  {
    name: 'market_winning_outcome_index',
    type: 'Nullable(Int16)',
    description: 'its index (-1: resolved without a single winner); null while unresolved',
  },
  { name: 'market_resolved_at', type: "Nullable(DateTime64(3, 'UTC'))", description: 'when it resolved' },
];

const DECIMAL = 'Decimal(38, 6)';
const TIME = "DateTime64(3, 'UTC')";
const MARKET_ID: Column = { name: 'market_id', type: 'String', description: 'condition id' };

const TRADES: DatasetSchema = {
  schemaVersion: 1,
  summary:
    "Every fill of both sides, exactly the rows GET /trades?role=all serves for the same window: chain fills (`origin = chain`, authoritative, maker and taker) and Data API trades (`origin = data_api`, taker fills only) outside the chain source's coverage.",
  time: 'timestamp',
  filters: ['market', 'event', 'category', 'wallet', 'from', 'to'],
  order: 'timestamp, block_number, log_index, trade_id',
  columns: [
    { name: 'trade_id', type: 'String', description: 'as `Trade.trade_id`' },
    MARKET_ID,
    { name: 'market_title', type: 'String', description: '' },
    { name: 'wallet', type: 'String', description: 'lower-case address' },
    { name: 'role', type: 'String', description: 'maker / taker' },
    { name: 'side', type: 'String', description: 'buy / sell' },
    { name: 'outcome', type: 'String', description: '' },
    { name: 'outcome_index', type: 'Int32', description: '' },
    { name: 'price', type: DECIMAL, description: 'as the API serves it (6 decimals)' },
    { name: 'size_shares', type: DECIMAL, description: '`size_shares` of the API' },
    { name: 'size_usdc', type: DECIMAL, description: '`size_usdc` of the API' },
    { name: 'size_shares_micro', type: 'UInt64', description: 'exact micro-units (10^-6)' },
    { name: 'size_usdc_micro', type: 'UInt64', description: 'exact micro-units' },
    { name: 'fee_micro', type: 'Nullable(UInt64)', description: 'chain fills; null for Data API trades' },
    { name: 'fee_asset', type: 'Nullable(String)', description: 'usdc / shares' },
    { name: 'timestamp', type: TIME, description: 'block time (chain) or trade time' },
    { name: 'block_number', type: 'Nullable(UInt64)', description: 'null for Data API trades' },
    { name: 'log_index', type: 'Nullable(Int32)', description: 'null for Data API trades' },
    { name: 'tx_hash', type: 'String', description: '' },
    { name: 'origin', type: 'String', description: 'chain / data_api' },
    { name: 'source', type: 'String', description: 'polymarket / simulator' },
    ...RESOLUTION_COLUMNS,
  ],
};

const CANDLES: DatasetSchema = {
  schemaVersion: 1,
  summary:
    "OHLCV candles of the YES price at one `interval` (`filters.interval`: 5m, 1h or 1d, default 1h), exactly the candles GET /markets/{id}/ohlcv serves: a bucket comes from the chain candles (on-chain taker fills) when the chain source's coverage holds the whole bucket, else from the Data API candles.",
  time: 'bucket_start',
  filters: ['market', 'event', 'category', 'from', 'to', 'interval'],
  order: 'bucket_start, market_id',
  columns: [
    MARKET_ID,
    { name: 'interval', type: 'String', description: '5m / 1h / 1d' },
    { name: 'bucket_start', type: TIME, description: 'start of the bucket (UTC-aligned)' },
    { name: 'open', type: DECIMAL, description: 'first YES price of the bucket' },
    { name: 'high', type: DECIMAL, description: 'highest YES price' },
    { name: 'low', type: DECIMAL, description: 'lowest YES price' },
    { name: 'close', type: DECIMAL, description: 'last YES price' },
    { name: 'volume_usdc', type: DECIMAL, description: 'USDC traded (taker fills)' },
    { name: 'volume_shares', type: DECIMAL, description: 'shares traded (taker fills)' },
    { name: 'trade_count', type: 'UInt64', description: 'taker fills in the bucket' },
    { name: 'origin', type: 'String', description: 'chain / data_api: the source the bucket comes from' },
    ...RESOLUTION_COLUMNS,
  ],
};

const MARKETS: DatasetSchema = {
  schemaVersion: 1,
  summary:
    "Every market's latest catalogue entry (the `markets` table, as GET /markets/{id} serves it), one row per market. It has no time: one file, `part-0.<ext>`, and no from..to.",
  time: null,
  filters: ['market', 'event', 'category'],
  order: 'market_id',
  columns: [
    MARKET_ID,
    { name: 'gamma_id', type: 'String', description: "Gamma's market id" },
    { name: 'slug', type: 'String', description: '' },
    { name: 'title', type: 'String', description: '' },
    { name: 'category', type: 'String', description: '' },
    { name: 'event_id', type: 'String', description: "the Gamma event's id ('' when none)" },
    { name: 'event_slug', type: 'String', description: '' },
    { name: 'event_title', type: 'String', description: '' },
    { name: 'outcomes', type: 'Array(String)', description: 'outcome labels, in index order' },
    { name: 'outcome_token_ids', type: 'Array(String)', description: 'CLOB token id of each outcome' },
    { name: 'outcome_prices', type: `Array(${DECIMAL})`, description: 'last upstream price of each outcome' },
    { name: 'status', type: 'String', description: 'active / closed / resolved' },
    { name: 'neg_risk', type: 'Bool', description: 'member of a neg-risk event' },
    { name: 'neg_risk_market_id', type: 'Nullable(String)', description: 'shared by the members of a neg-risk event' },
    { name: 'question_id', type: 'Nullable(String)', description: '' },
    { name: 'tick_size', type: `Nullable(${DECIMAL})`, description: 'price increment' },
    { name: 'volume_total_usdc', type: DECIMAL, description: 'upstream lifetime volume' },
    { name: 'liquidity_usdc', type: DECIMAL, description: 'upstream liquidity' },
    { name: 'fees_enabled', type: 'Bool', description: 'false: no platform fee' },
    { name: 'start_date', type: `Nullable(${TIME})`, description: '' },
    { name: 'end_date', type: `Nullable(${TIME})`, description: 'scheduled end' },
    { name: 'closed_at', type: `Nullable(${TIME})`, description: '' },
    { name: 'created_at', type: `Nullable(${TIME})`, description: '' },
    { name: 'updated_at', type: TIME, description: 'upstream update time of this version' },
    { name: 'source', type: 'String', description: 'polymarket / simulator' },
    ...RESOLUTION_COLUMNS,
  ],
};

const RESOLUTIONS: DatasetSchema = {
  schemaVersion: 1,
  summary:
    'One row per resolved market: its latest resolution (the `market_resolutions` table), by the day it resolved. A resolution without a `resolved_at` is in no window and so in no export.',
  time: 'resolved_at',
  filters: ['market', 'event', 'category', 'from', 'to'],
  order: 'resolved_at, market_id',
  columns: [
    MARKET_ID,
    { name: 'slug', type: 'String', description: '' },
    { name: 'title', type: 'String', description: '' },
    { name: 'outcomes', type: 'Array(String)', description: 'outcome labels, in index order' },
    { name: 'outcome_token_ids', type: 'Array(String)', description: 'CLOB token id of each outcome' },
    { name: 'winning_outcome', type: 'Nullable(String)', description: 'null: split payout' },
    { name: 'winning_outcome_index', type: 'Int16', description: '-1: no single winner' },
    { name: 'winning_asset_id', type: 'Nullable(String)', description: '' },
    { name: 'payouts', type: `Array(${DECIMAL})`, description: 'payout per share of each outcome, 0..1' },
    { name: 'resolved_at', type: TIME, description: 'when it resolved' },
    { name: 'origin', type: 'String', description: 'gamma / clob-ws / clob-rest' },
    { name: 'source', type: 'String', description: 'polymarket / simulator' },
  ],
};

const POSITION_LEDGER: DatasetSchema = {
  schemaVersion: 1,
  summary:
    'Every change of a (wallet, outcome token) position the position ledger applied (fills of both sides, splits, merges, redemptions, conversion legs, transfers), in chain order, with its effect and the state after it (docs/POSITIONS.md). Only rows that stand: a row a rewind cancelled (a reorg, a Data API trade replaced by its chain fill) is left out, its replay is in.',
  time: 'time',
  filters: ['market', 'event', 'category', 'wallet', 'from', 'to'],
  order: 'time, block_number, log_index, wallet, asset_id, rev',
  columns: [
    { name: 'wallet', type: 'String', description: 'lower-case address' },
    { name: 'asset_id', type: 'String', description: 'outcome token' },
    MARKET_ID,
    { name: 'outcome', type: 'String', description: '' },
    { name: 'outcome_index', type: 'Int16', description: '' },
    { name: 'time', type: TIME, description: 'block time (chain) or trade time' },
    { name: 'block_number', type: 'UInt64', description: '0 for Data API rows' },
    { name: 'log_index', type: 'Int32', description: '' },
    { name: 'event_id', type: 'String', description: 'the change (a fill: its trade_id)' },
    { name: 'rev', type: 'UInt64', description: "the row's number within its (wallet, asset_id)" },
    { name: 'kind', type: 'String', description: 'fill / split / merge / redemption / conversion / transfer_in / transfer_out' },
    { name: 'role', type: 'String', description: 'maker / taker on fills' },
    { name: 'action', type: 'String', description: 'buy / sell / sell_all (a redemption) / sell_at_cost (a transfer out)' },
    { name: 'origin', type: 'String', description: 'chain / data_api' },
    { name: 'source', type: 'String', description: 'polymarket / simulator' },
    { name: 'tx_hash', type: 'String', description: '' },
    { name: 'counterparty', type: 'String', description: "a transfer's other wallet, else ''" },
    { name: 'price', type: DECIMAL, description: 'price per share the change applied' },
    { name: 'shares_delta', type: DECIMAL, description: 'shares added (negative: removed)' },
    { name: 'cash_usdc', type: DECIMAL, description: 'USDC into the wallet (negative: paid)' },
    { name: 'realized_pnl_usdc', type: DECIMAL, description: 'realized PnL of the change' },
    { name: 'volume_usdc', type: DECIMAL, description: 'USDC volume the change counts' },
    { name: 'shares_after', type: DECIMAL, description: 'shares held after it' },
    { name: 'cost_basis_after_usdc', type: DECIMAL, description: 'cost basis of the held shares after it' },
    { name: 'shares_delta_micro', type: 'Int64', description: 'exact micro-units of shares_delta' },
    { name: 'cash_micro', type: 'Int64', description: 'exact micro-units of cash_usdc' },
    { name: 'realized_pnl_micro', type: 'Int64', description: 'exact micro-units of realized_pnl_usdc' },
    { name: 'shares_after_micro', type: 'UInt64', description: 'exact micro-units of shares_after' },
    { name: 'cost_basis_after_micro', type: 'UInt64', description: 'exact micro-units of cost_basis_after_usdc' },
    { name: 'fee_micro', type: 'UInt64', description: 'fee the change paid, micro-units (USDC on fills; shares on a conversion leg)' },
    { name: 'opened_at', type: TIME, description: 'when the held position opened' },
    ...RESOLUTION_COLUMNS,
  ],
};

const OUTCOME_OF_TOKEN: Column = {
  name: 'outcome',
  type: 'String',
  description: "the token's outcome label ('' when the catalogue lacks it)",
};

const BOOK_SNAPSHOTS: DatasetSchema = {
  schemaVersion: 1,
  summary:
    "Every distinct order book captured of an outcome token (the `order_books` table: REST polls, websocket book messages, books rebuilt from deltas), every level, as GET /orderbook/history?format=deltas serves its snapshots. Stored for 30 days (the table's TTL). Replaying a token: apply a day's `book_deltas` and `book_snapshots` by `timestamp`, deltas before snapshots of the same instant, then `ingested_at` (docs/EXPORTS.md).",
  time: 'timestamp',
  filters: ['market', 'event', 'category', 'from', 'to'],
  order: 'timestamp, asset_id, ingested_at, book_id',
  columns: [
    { name: 'book_id', type: 'String', description: "asset_id + ':' + the upstream hash" },
    MARKET_ID,
    { name: 'asset_id', type: 'String', description: 'outcome token' },
    OUTCOME_OF_TOKEN,
    { name: 'hash', type: 'String', description: "upstream's book hash" },
    { name: 'timestamp', type: TIME, description: 'when the book was (upstream time)' },
    { name: 'bid_prices', type: `Array(${DECIMAL})`, description: 'bid levels, highest first' },
    { name: 'bid_sizes', type: `Array(${DECIMAL})`, description: 'shares at each bid level' },
    { name: 'ask_prices', type: `Array(${DECIMAL})`, description: 'ask levels, lowest first' },
    { name: 'ask_sizes', type: `Array(${DECIMAL})`, description: 'shares at each ask level' },
    { name: 'best_bid', type: `Nullable(${DECIMAL})`, description: 'null: no bids' },
    { name: 'best_ask', type: `Nullable(${DECIMAL})`, description: 'null: no asks' },
    { name: 'tick_size', type: `Nullable(${DECIMAL})`, description: '' },
    { name: 'min_order_size', type: `Nullable(${DECIMAL})`, description: '' },
    { name: 'last_trade_price', type: `Nullable(${DECIMAL})`, description: '' },
    { name: 'origin', type: 'String', description: 'clob-rest / clob-ws / clob-ws-replay' },
    { name: 'source', type: 'String', description: 'polymarket / simulator' },
    { name: 'ingested_at', type: TIME, description: 'when tapeline stored it (replay order within an instant)' },
    ...RESOLUTION_COLUMNS,
  ],
};

const BOOK_DELTAS: DatasetSchema = {
  schemaVersion: 1,
  summary:
    "Every change of one order-book level (the websocket's price_change messages, the `order_book_deltas` table), as GET /orderbook/history?format=deltas serves its deltas: `size_shares` is the level's new size, 0 when the level is removed. Stored for 7 days (the table's TTL).",
  time: 'timestamp',
  filters: ['market', 'event', 'category', 'from', 'to'],
  order: 'timestamp, asset_id, ingested_at, delta_id',
  columns: [
    { name: 'delta_id', type: 'String', description: '' },
    MARKET_ID,
    { name: 'asset_id', type: 'String', description: 'outcome token' },
    OUTCOME_OF_TOKEN,
    { name: 'side', type: 'String', description: 'bid / ask' },
    { name: 'price', type: DECIMAL, description: 'the level' },
    { name: 'size_shares', type: DECIMAL, description: 'its new size; 0: removed' },
    { name: 'hash', type: 'String', description: "upstream's book hash after the change ('' when not sent)" },
    { name: 'best_bid', type: `Nullable(${DECIMAL})`, description: "upstream's best bid after the change" },
    { name: 'best_ask', type: `Nullable(${DECIMAL})`, description: "upstream's best ask after the change" },
    { name: 'timestamp', type: TIME, description: 'upstream time of the change' },
    { name: 'source', type: 'String', description: 'polymarket / simulator' },
    { name: 'ingested_at', type: TIME, description: 'when tapeline stored it (replay order within an instant)' },
    ...RESOLUTION_COLUMNS,
  ],
};

export const DATASET_SCHEMAS = {
  trades: TRADES,
  candles: CANDLES,
  markets: MARKETS,
  resolutions: RESOLUTIONS,
  position_ledger: POSITION_LEDGER,
  book_snapshots: BOOK_SNAPSHOTS,
  book_deltas: BOOK_DELTAS,
} as const satisfies Record<string, DatasetSchema>;

export type DatasetName = keyof typeof DATASET_SCHEMAS;
export const DATASET_NAMES = Object.keys(DATASET_SCHEMAS) as DatasetName[];

const PARQUET_TYPES: Record<string, string> = {
  String: 'BYTE_ARRAY (UTF8)',
  Bool: 'BOOLEAN',
  Int16: 'INT32 (INT_16)',
  Int32: 'INT32',
  Int64: 'INT64',
  UInt8: 'INT32 (UINT_8)',
  UInt64: 'INT64 (UINT_64)',
  [DECIMAL]: 'FIXED_LEN_BYTE_ARRAY (DECIMAL(38, 6))',
  [TIME]: 'INT64 (TIMESTAMP, ms, UTC)',
};

/** The Parquet physical and logical type the engine writes for a column type (`optional` when nullable, `LIST` of arrays). */
export function parquetTypeOf(type: string): string {
  const nullable = /^Nullable\((.*)\)$/.exec(type);
  if (nullable) return `${parquetTypeOf(nullable[1]!)}, optional`;
  const array = /^Array\((.*)\)$/.exec(type);
  if (array) return `LIST of ${parquetTypeOf(array[1]!)}`;
  const known = PARQUET_TYPES[type];
  if (!known) throw new Error(`no Parquet type known for the column type ${type}; add it to PARQUET_TYPES`);
  return known;
}
