/**
 * Reads of the position ledger's per-wallet rows: the wallets' (wallet, token) states and day rows, as a
 * table read or from their snapshots (wallet-snapshots.ts), with the ledger's progress. GET /positions
 * reads them here; the trader figures (../trader-stats/queries.ts) read the same parts with their own.
 * Every read is bounded: per-wallet reads touch that wallet's pre-aggregated rows only.
 */
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { iso, startOfUtcDay } from '../../shared/time.js';
import { readParts } from '../../analytics/read-parts.js';
import { chainLedger } from '../chain-ledger/streams.js';
import { type MarketDataArrays, marketDataFrom, marketDataPart, marketDataRows, type MarketInfo } from './market-data.js';
import { type PositionRow, type ValuedPosition, valuePositions } from './position-value.js';

export type { MarketInfo } from './market-data.js';
export type { ValuedPosition } from './position-value.js';

const big = (v: unknown) => BigInt(String(v ?? '0'));

/** How far the ledger has applied the log: every change up to this block time and block (PROGRESS_TUPLE). */
export interface DataAsOf {
  time: string | null;
  block: number | null;
}

/** The ledger's progress as one tuple (time and chain block it holds every change up to, rows): asOfFrom reads it. */
export type Progress = [number | null, string, number];
/**
 * How far the ledger holds every change. With the chain source: the lowest over the chain ledger
 * topic's partitions of the newest watermark the ledger applied there (migrations/0087), once every
 * partition has one. The ledger applies one partition's batch at a time, so its newest change can be
 * ahead of a partition still waiting: the newest change would claim changes not applied yet. Without
 * the chain source (or before a watermark reached every partition): the newest change applied.
 */
/** The lowest watermark over the chain ledger's partitions (ms, block), and how many partitions have one. */
export const LEDGER_WATERMARKS = `(SELECT toUInt32(count()) AS partitions, min(ms) AS ms, toString(min(block)) AS block
     FROM (SELECT toUnixTimestamp64Milli(max(block_time)) AS ms, max(block_number) AS block FROM ledger_watermarks GROUP BY ledger_group))`;
/** Whether every partition of the chain ledger topic has a watermark (`marks`: LEDGER_WATERMARKS). */
export const WATERMARKS_WHOLE = `marks.partitions >= ${chainLedger.partitions}`;
const PROGRESS_FROM = `
  (SELECT toUnixTimestamp64Milli(max(last_time)) AS ms, toString(maxIf(last_block, origin = 'chain')) AS block, toUInt32(count()) AS rows
     FROM ledger_progress) AS applied
  CROSS JOIN ${LEDGER_WATERMARKS} AS marks`;
const PROGRESS_TUPLE = `(if(${WATERMARKS_WHOLE}, marks.ms, applied.ms), if(${WATERMARKS_WHOLE}, marks.block, applied.block), applied.rows)`;
/** The ledger's progress as a part of a statement of parts (read-parts.ts). */
export const PROGRESS_PART = `SELECT ${PROGRESS_TUPLE} AS value FROM ${PROGRESS_FROM}`;
/** The ledger's progress as a scalar subquery (a Progress). */
export const PROGRESS_SCALAR = `(SELECT ${PROGRESS_TUPLE} FROM ${PROGRESS_FROM})`;

export function asOfFrom([lastMs, lastBlock, count]: Progress): DataAsOf {
  if (Number(count) === 0) return { time: null, block: null };
  const block = Number(lastBlock);
  return { time: iso(Number(lastMs)), block: block > 0 ? block : null };
}

const num = (v: unknown) => Number(v ?? 0);

/** The wallets of a statement ({wallets:Array(String)}) and the markets they ever held a token of. */
export const IN_WALLETS = 'wallet IN {wallets:Array(String)}';
export const WALLET_MARKETS = `SELECT market_id FROM position_state WHERE ${IN_WALLETS}`;

/**
 * A (wallet, token) row of position_state; the fields after long_shot are what the wallet's totals and
 * per-market rows are summed from (../trader-stats/queries.ts walletData).
 */
type PositionTuple = [
  wallet: string,
  asset_id: string,
  market_id: string,
  outcome: string,
  outcome_index: number,
  qty: string,
  cost: string,
  opened_ms: number,
  last_ms: number,
  realized: string,
  bought: string,
  long_shot: string,
  volume: string,
  fills: number,
  /** USDC paid in by buys of any kind (splits included). */
  cost_in: string,
  first_fill_ms: number | null,
  last_fill_ms: number | null,
  /** Fees paid, USDC micro-units (as text). */
  fees: string,
];

/** A wallet's trader_days row of one UTC day: the day (ms), realized, volume, trades, ledger rows, fees, cash and cash paid. */
type DayTuple = [
  wallet: string,
  day_ms: number,
  realized: string,
  volume: string,
  trades: string,
  changes: string,
  fees: string,
  cash: string,
  paid: string,
];

/** The ledger parts of a wallet read, one tuple per row (JSON arrays); the trader figures add their stored curves. */
export interface WalletArrays extends MarketDataArrays {
  progress: Progress;
  daily: DayTuple[];
  positions: PositionTuple[];
}

/** The (wallet, token) rows of position_state under `where`, one per key in its current state. */
export const positionsGrouped = (where: string) => `
          SELECT wallet, asset_id, any(market_id) AS m, any(outcome) AS o, any(outcome_index) AS oi, argMaxMerge(state) AS s,
                 toUnixTimestamp64Milli(max(last_time)) AS l, sum(realized) AS r, sum(bought_usdc) AS b, sum(longshot_usdc) AS ls,
                 sum(volume) AS v, sum(trades) AS n, sum(cost_in) AS ci,
                 toUnixTimestamp64Milli(min(fill_first)) AS ff, toUnixTimestamp64Milli(max(fill_last)) AS fl, sum(fees) AS f
            FROM position_state WHERE ${where} GROUP BY wallet, asset_id`;
/** A grouped position row's fields after the wallet, as a PositionTuple has them (amounts as text). */
export const POSITION_FIELDS = `asset_id, m, o, toInt16(oi), toString(s.1), toString(s.2), toUnixTimestamp64Milli(s.3), l, toString(r), toString(b),
                          toString(ls), toString(v), n, toString(ci), ff, fl, toString(f)`;

/** Every (wallet, token) the wallets ever held, in its current state, as PositionTuples (a part: read-parts.ts). */
export const POSITIONS_PART = `SELECT groupArray((wallet, ${POSITION_FIELDS})) AS value FROM (${positionsGrouped(IN_WALLETS)})`;

/**
 * The wallets' trader_days rows under `where`, one per (wallet, UTC day). trader_days is a view of the
 * trader figures (../trader-stats/migrations) over this ledger's rows; a wallet's snapshot keeps its day
 * rows beside its states, so a trader read of one wallet is one key read too.
 */
export const daysGrouped = (where: string) =>
  `SELECT wallet, day, sum(realized) AS r, sum(volume) AS v, sum(trades) AS n, sum(changes) AS c, sum(fees) AS f, sum(cash) AS cs, sum(paid) AS p
     FROM trader_days WHERE ${where} GROUP BY wallet, day`;
/** A day row's fields after the wallet, as a DayTuple has them: the day (ms), then realized, volume, trades, ledger rows, fees, cash, cash paid (as text). */
export const DAY_FIELDS = `toUnixTimestamp(toDateTime(day, 'UTC')) * 1000, toString(r), toString(v), toString(n), toString(c), toString(f), toString(cs),
                          toString(p)`;
export const DAILY_PART = `SELECT groupArray((wallet, ${DAY_FIELDS})) AS value FROM (${daysGrouped(IN_WALLETS)})`;

export function positionRow([
  ,
  asset_id,
  market_id,
  outcome,
  oi,
  qty,
  cost,
  openedMs,
  lastMs,
  realized,
  bought,
  longshot,
  ,
  ,
  costIn,
  ,
  ,
  fees,
]: PositionTuple): PositionRow {
  return {
    asset_id,
    market_id,
    outcome,
    outcome_index: num(oi),
    qty: big(qty),
    cost: big(cost),
    opened_ms: num(openedMs),
    last_ms: num(lastMs),
    realized: big(realized),
    bought: big(bought),
    longshot: big(longshot),
    cost_in: big(costIn),
    fees: big(fees),
  };
}

/**
 * A wallet's snapshot (wallet_snapshots, migration 0066, kept by wallet-snapshots.ts): its position and
 * day rows as a table read selects them, and the ledger's progress read before them.
 */
type SnapshotTuple = [wallet: string, positions: Array<Tail<PositionTuple>>, daily: Array<Tail<DayTuple>>, asOf: Progress];
type Tail<T extends unknown[]> = T extends [unknown, ...infer Rest] ? Rest : never;
export const SNAPSHOT_PART = `SELECT groupArray((wallet, positions, daily, as_of)) AS value FROM wallet_snapshots WHERE ${IN_WALLETS}`;
/** The markets of the wallets' snapshots (what market_marks is read for). */
export const SNAPSHOT_MARKETS = `SELECT arrayJoin(markets) FROM wallet_snapshots WHERE ${IN_WALLETS}`;

/**
 * The wallets' rows from their snapshots, in the shape of a table read, with the market data and the
 * parts the caller names (the trader figures' stored curves): one statement, every table read by key. null when any wallet has no
 * snapshot yet (the caller reads the tables). The progress is the oldest snapshot's.
 */
export async function fromSnapshots<T extends object>(
  store: AnalyticsStore,
  wallets: string[],
  parts: { [K in keyof T]: string },
): Promise<(T & Pick<WalletArrays, 'progress' | 'positions' | 'daily'> & MarketDataArrays) | null> {
  const read = await readParts<T & { snapshots: SnapshotTuple[] } & MarketDataArrays>(
    store,
    { ...parts, snapshots: SNAPSHOT_PART, ...marketDataPart(SNAPSHOT_MARKETS) },
    { wallets },
  );
  if (read.snapshots.length !== new Set(wallets).size) return null;
  const oldest = read.snapshots.map((snapshot) => snapshot[3]).sort((a, b) => Number(a[0]) - Number(b[0]))[0]!;
  return {
    ...read,
    progress: oldest,
    positions: read.snapshots.flatMap(([wallet, positions]) => positions.map((p) => [wallet, ...p] as PositionTuple)),
    daily: read.snapshots.flatMap(([wallet, , daily]) => daily.map((d) => [wallet, ...d] as DayTuple)),
  };
}

/**
 * A wallet's positions at current marks, for /positions: its position rows and what their markets are
 * valued with, without the rows only statistics need (the curve), from its snapshot when it has one
 * (else from position_state). null when the wallet has no ledger rows.
 */
export async function walletPositions(
  store: AnalyticsStore,
  wallet: string,
): Promise<{ positions: ValuedPosition[]; markets: Map<string, MarketInfo>; asOf: DataAsOf } | null> {
  const row =
    (await fromSnapshots<object>(store, [wallet], {})) ??
    (await readParts<{ progress: Progress; positions: PositionTuple[] } & MarketDataArrays>(
      store,
      { progress: PROGRESS_PART, positions: POSITIONS_PART, ...marketDataPart(WALLET_MARKETS) },
      { wallets: [wallet] },
    ));
  if (row.positions.length === 0) return null;
  const data = marketDataFrom(marketDataRows(row, startOfUtcDay(Date.now())));
  return {
    positions: valuePositions(row.positions.map(positionRow), data.markets, data.quotes),
    markets: data.markets,
    asOf: asOfFrom(row.progress),
  };
}
