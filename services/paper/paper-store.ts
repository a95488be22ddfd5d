/**
 * Rows of the paper-trading tables (control store, migrations/0020) as exact values: NUMERIC
 * columns are selected as text and parsed to micro-unit bigints, never through a float.
 */
import type { SqlExecutor } from '../ports/control-store.js';
import { parseScaled } from '../shared/decimal.js';
import type { Side } from './matching.js';

export const micro = (text: string | null): bigint => (text === null ? 0n : (parseScaled(text) ?? 0n));
const microOrNull = (text: string | null): bigint | null => (text === null ? null : micro(text));

export interface PaperAccount {
  accountId: string;
  epoch: number;
  startingBalance: bigint;
  cash: bigint;
  reserved: bigint;
  realizedPnl: bigint;
  feesPaid: bigint;
  peakEquity: bigint;
  epochStartedAt: Date;
}

const ACCOUNT_COLUMNS = `account_id::text AS account_id, epoch, starting_balance::text AS starting_balance, cash::text AS cash,
  reserved::text AS reserved, realized_pnl::text AS realized_pnl, fees_paid::text AS fees_paid, peak_equity::text AS peak_equity,
  epoch_started_at`;

function toAccount(row: Record<string, string | number | Date>): PaperAccount {
  return {
    accountId: String(row.account_id),
    epoch: Number(row.epoch),
    startingBalance: micro(row.starting_balance as string),
    cash: micro(row.cash as string),
    reserved: micro(row.reserved as string),
    realizedPnl: micro(row.realized_pnl as string),
    feesPaid: micro(row.fees_paid as string),
    peakEquity: micro(row.peak_equity as string),
    epochStartedAt: new Date(row.epoch_started_at as Date),
  };
}

/** The paper account, created with the starting balance on first use; `lock` takes its row lock for the transaction. */
export async function paperAccount(db: SqlExecutor, accountId: string, startingBalance: string, lock = false): Promise<PaperAccount> {
  const read = () =>
    db.query<Record<string, string>>(`SELECT ${ACCOUNT_COLUMNS} FROM paper_accounts WHERE account_id = $1${lock ? ' FOR UPDATE' : ''}`, [
      accountId,
    ]);
  const [existing] = await read();
  if (existing) return toAccount(existing);
  await db.query(
    `INSERT INTO paper_accounts (account_id, starting_balance, cash, peak_equity) VALUES ($1, $2, $2, $2) ON CONFLICT (account_id) DO NOTHING`,
    [accountId, startingBalance],
  );
  const [row] = await read();
  return toAccount(row!);
}

/** Locks an existing paper account (the first lock every paper mutation takes, so they never deadlock). */
export async function lockPaperAccount(db: SqlExecutor, accountId: string): Promise<PaperAccount | null> {
  const [row] = await db.query<Record<string, string>>(`SELECT ${ACCOUNT_COLUMNS} FROM paper_accounts WHERE account_id = $1 FOR UPDATE`, [
    accountId,
  ]);
  return row ? toAccount(row) : null;
}

type OrderStatus = 'open' | 'partial' | 'filled' | 'cancelled';
export type OrderType = 'market' | 'limit';
export type TimeInForce = 'GTC' | 'IOC' | 'FOK';

export interface PaperOrder {
  seq: string;
  orderId: string;
  accountId: string;
  epoch: number;
  marketId: string;
  marketTitle: string;
  assetId: string;
  outcome: string;
  outcomeIndex: number;
  side: Side;
  type: OrderType;
  timeInForce: TimeInForce;
  size: bigint;
  limitPrice: bigint | null;
  status: OrderStatus;
  cancelReason: string | null;
  filledSize: bigint;
  filledNotional: bigint;
  fees: bigint;
  reserved: bigint;
  bestPrice: bigint | null;
  midPrice: bigint | null;
  bookHash: string | null;
  bookAt: Date | null;
  bookSource: string | null;
  feeRate: bigint;
  feeExponent: number;
  feeBasis: string;
  idempotencyKey: string | null;
  requestHash: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const ORDER_COLUMNS = `seq::text AS seq, order_id, account_id::text AS account_id, epoch, market_id, market_title, asset_id, outcome,
  outcome_index, side, type, time_in_force, size::text AS size, limit_price::text AS limit_price, status, cancel_reason,
  filled_size::text AS filled_size, filled_notional::text AS filled_notional, fees::text AS fees, reserved::text AS reserved,
  best_price::text AS best_price, mid_price::text AS mid_price, book_hash, book_at, book_source, fee_rate::text AS fee_rate, fee_exponent,
  fee_basis, idempotency_key, request_hash, created_at, updated_at`;

// biome-ignore lint/suspicious/noExplicitAny: a database row, typed by the column list above.
export function toOrder(row: any): PaperOrder {
  return {
    seq: row.seq,
    orderId: row.order_id,
    accountId: row.account_id,
    epoch: Number(row.epoch),
    marketId: row.market_id,
    marketTitle: row.market_title,
    assetId: row.asset_id,
    outcome: row.outcome,
    outcomeIndex: Number(row.outcome_index),
    side: row.side,
    type: row.type,
    timeInForce: row.time_in_force,
    size: micro(row.size),
    limitPrice: microOrNull(row.limit_price),
    status: row.status,
    cancelReason: row.cancel_reason,
    filledSize: micro(row.filled_size),
    filledNotional: micro(row.filled_notional),
    fees: micro(row.fees),
    reserved: micro(row.reserved),
    bestPrice: microOrNull(row.best_price),
    midPrice: microOrNull(row.mid_price),
    bookHash: row.book_hash,
    bookAt: row.book_at ? new Date(row.book_at) : null,
    bookSource: row.book_source,
    feeRate: micro(row.fee_rate),
    feeExponent: Number(row.fee_exponent),
    feeBasis: row.fee_basis,
    idempotencyKey: row.idempotency_key,
    requestHash: row.request_hash,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

export interface PaperFill {
  seq: string;
  fillId: string;
  orderId: string;
  marketId: string;
  assetId: string;
  outcome: string;
  side: Side;
  price: bigint;
  size: bigint;
  notional: bigint;
  fee: bigint;
  liquidity: 'taker' | 'maker';
  trigger: 'submission' | 'book' | 'trade';
  sourceRef: string;
  level: number;
  createdAt: Date;
}

export const FILL_COLUMNS = `seq::text AS seq, fill_id, order_id, market_id, asset_id, outcome, side, price::text AS price, size::text AS size,
  notional::text AS notional, fee::text AS fee, liquidity, trigger, source_ref, level, created_at`;

// biome-ignore lint/suspicious/noExplicitAny: a database row, typed by the column list above.
export function toFill(row: any): PaperFill {
  return {
    seq: row.seq,
    fillId: row.fill_id,
    orderId: row.order_id,
    marketId: row.market_id,
    assetId: row.asset_id,
    outcome: row.outcome,
    side: row.side,
    price: micro(row.price),
    size: micro(row.size),
    notional: micro(row.notional),
    fee: micro(row.fee),
    liquidity: row.liquidity,
    trigger: row.trigger,
    sourceRef: row.source_ref,
    level: Number(row.level),
    createdAt: new Date(row.created_at),
  };
}

export interface PaperPosition {
  assetId: string;
  marketId: string;
  marketTitle: string;
  outcome: string;
  outcomeIndex: number;
  shares: bigint;
  reservedShares: bigint;
  cost: bigint;
  realizedPnl: bigint;
  feesPaid: bigint;
  boughtShares: bigint;
  soldShares: bigint;
  status: 'open' | 'settled' | 'voided';
  settlementPrice: bigint | null;
  settledAt: Date | null;
  openedAt: Date;
  updatedAt: Date;
}

export const POSITION_COLUMNS = `asset_id, market_id, market_title, outcome, outcome_index, shares::text AS shares,
  reserved_shares::text AS reserved_shares, cost::text AS cost, realized_pnl::text AS realized_pnl, fees_paid::text AS fees_paid,
  bought_shares::text AS bought_shares, sold_shares::text AS sold_shares, status, settlement_price::text AS settlement_price,
  settled_at, opened_at, updated_at`;

// biome-ignore lint/suspicious/noExplicitAny: a database row, typed by the column list above.
export function toPosition(row: any): PaperPosition {
  return {
    assetId: row.asset_id,
    marketId: row.market_id,
    marketTitle: row.market_title,
    outcome: row.outcome,
    outcomeIndex: Number(row.outcome_index),
    shares: micro(row.shares),
    reservedShares: micro(row.reserved_shares),
    cost: micro(row.cost),
    realizedPnl: micro(row.realized_pnl),
    feesPaid: micro(row.fees_paid),
    boughtShares: micro(row.bought_shares),
    soldShares: micro(row.sold_shares),
    status: row.status,
    settlementPrice: microOrNull(row.settlement_price),
    settledAt: row.settled_at ? new Date(row.settled_at) : null,
    openedAt: new Date(row.opened_at),
    updatedAt: new Date(row.updated_at),
  };
}

export async function positionsOf(db: SqlExecutor, accountId: string, epoch: number, status: 'open' | 'all'): Promise<PaperPosition[]> {
  const rows = await db.query(
    `SELECT ${POSITION_COLUMNS} FROM paper_positions WHERE account_id = $1 AND epoch = $2 ${status === 'open' ? "AND status = 'open' AND shares > 0" : ''}
      ORDER BY opened_at, asset_id`,
    [accountId, epoch],
  );
  return rows.map(toPosition);
}

export async function openOrdersOf(db: SqlExecutor, accountId: string, epoch: number, limit: number): Promise<PaperOrder[]> {
  const rows = await db.query(
    `SELECT ${ORDER_COLUMNS} FROM paper_orders WHERE account_id = $1 AND epoch = $2 AND status IN ('open', 'partial') ORDER BY paper_orders.seq LIMIT $3`,
    [accountId, epoch, limit],
  );
  return rows.map(toOrder);
}

export interface PaperSettlement {
  seq: string;
  marketId: string;
  marketTitle: string;
  assetId: string;
  outcome: string;
  kind: 'resolved' | 'voided';
  shares: bigint;
  price: bigint;
  proceeds: bigint;
  cost: bigint;
  realizedPnl: bigint;
  winningOutcome: string | null;
  settledAt: Date;
}

export const SETTLEMENT_COLUMNS = `seq::text AS seq, market_id, market_title, asset_id, outcome, kind, shares::text AS shares, price::text AS price,
  proceeds::text AS proceeds, cost::text AS cost, realized_pnl::text AS realized_pnl, winning_outcome, settled_at`;

// biome-ignore lint/suspicious/noExplicitAny: a database row, typed by the column list above.
export function toSettlement(row: any): PaperSettlement {
  return {
    seq: row.seq,
    marketId: row.market_id,
    marketTitle: row.market_title,
    assetId: row.asset_id,
    outcome: row.outcome,
    kind: row.kind,
    shares: micro(row.shares),
    price: micro(row.price),
    proceeds: micro(row.proceeds),
    cost: micro(row.cost),
    realizedPnl: micro(row.realized_pnl),
    winningOutcome: row.winning_outcome,
    settledAt: new Date(row.settled_at),
  };
}
