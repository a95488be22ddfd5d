/**
 * The rows of position_ledger and their codec: a leg and its effect into a row, a stored row back
 * into the leg it applied, its event's fields, its place in the key's history and the state before it.
 */
import { iso } from '../../shared/time.js';
import { comparePositions, type EventMeta, type LedgerEvent, type LedgerPosition } from './ledger-events.js';
import { type LegAction, type LegEffect, maxBig, type PositionState } from './ledger-math.js';
import type { Leg } from './ledger-legs.js';

export const LEDGER_TABLE = 'position_ledger';

/** A row of position_ledger (columns in migrations/0041_position_ledger.sql). */
export interface LedgerRow {
  wallet: string;
  asset_id: string;
  market_id: string;
  outcome: string;
  outcome_index: number;
  time: string;
  block_number: number;
  log_index: number;
  event_id: string;
  rev: number;
  sign: number;
  of_rev: number;
  origin: string;
  source: string;
  kind: string;
  role: string;
  action: string;
  tx_hash: string;
  block_hash: string;
  ledger_group: string;
  in_qty: string;
  in_usdc: string;
  pay_num: string;
  pay_den: string;
  fee_micro: string;
  price: number;
  qty_delta: string;
  cash: string;
  realized: string;
  volume: string;
  trades: number;
  qty_after: string;
  cost_after: string;
  opened_at: string;
  /** A transfer's other wallet (migrations/0068); empty on other rows. */
  counterparty: string;
  /** A conversion leg's question index in its neg-risk market (migrations/0074); -1 on other rows. */
  question_index: number;
  /** A CTF redemption row: the collateral the whole redemption paid out, every leg's (migrations/0080); 0 on other rows. */
  paid_usdc: string;
}

/** position_ledger's columns as the ledger writes them, in the order of `rowValues`. */
export const LEDGER_COLUMNS = [
  'wallet',
  'asset_id',
  'market_id',
  'outcome',
  'outcome_index',
  'time',
  'block_number',
  'log_index',
  'event_id',
  'rev',
  'sign',
  'of_rev',
  'origin',
  'source',
  'kind',
  'role',
  'action',
  'tx_hash',
  'block_hash',
  'ledger_group',
  'in_qty',
  'in_usdc',
  'pay_num',
  'pay_den',
  'fee_micro',
  'price',
  'qty_delta',
  'cash',
  'realized',
  'volume',
  'trades',
  'qty_after',
  'cost_after',
  'opened_at',
  'counterparty',
  'question_index',
  'paid_usdc',
] as const satisfies ReadonlyArray<keyof LedgerRow>;

// Every field of a row is a column: a field left out of LEDGER_COLUMNS fails to compile here.
const everyColumn: Record<Exclude<keyof LedgerRow, (typeof LEDGER_COLUMNS)[number]>, never> = {};
void everyColumn;

/**
 * A row as one JSONCompactEachRow line (its values in LEDGER_COLUMNS order): the journal's text and
 * the insert's, serialised once (ledger.ts). Written out, not mapped over the columns: it runs once a row.
 */
export function encodeRow(r: LedgerRow): string {
  return JSON.stringify([
    r.wallet,
    r.asset_id,
    r.market_id,
    r.outcome,
    r.outcome_index,
    r.time,
    r.block_number,
    r.log_index,
    r.event_id,
    r.rev,
    r.sign,
    r.of_rev,
    r.origin,
    r.source,
    r.kind,
    r.role,
    r.action,
    r.tx_hash,
    r.block_hash,
    r.ledger_group,
    r.in_qty,
    r.in_usdc,
    r.pay_num,
    r.pay_den,
    r.fee_micro,
    r.price,
    r.qty_delta,
    r.cash,
    r.realized,
    r.volume,
    r.trades,
    r.qty_after,
    r.cost_after,
    r.opened_at,
    r.counterparty,
    r.question_index,
    r.paid_usdc,
  ]);
}

/** A line `encodeRow` wrote, back into its row. */
export function decodeRow(line: string): LedgerRow {
  const values = JSON.parse(line) as unknown[];
  return Object.fromEntries(LEDGER_COLUMNS.map((column, i) => [column, values[i]])) as unknown as LedgerRow;
}

/** The row of a leg applied with `effect`, leaving `after`; `isoOf` gives a time's ISO text. */
export function ledgerRow(
  leg: Leg,
  rev: number,
  sign: number,
  ofRev: number,
  effect: LegEffect,
  after: PositionState,
  isoOf: (ms: number) => string,
): LedgerRow {
  const a = leg.action;
  return {
    wallet: leg.meta.wallet,
    asset_id: leg.assetId,
    market_id: leg.marketId,
    outcome: leg.outcome,
    outcome_index: leg.outcomeIndex,
    time: isoOf(leg.meta.timeMs),
    block_number: leg.meta.block,
    log_index: leg.meta.logIndex,
    event_id: leg.meta.eventId,
    rev,
    sign,
    of_rev: ofRev,
    origin: leg.meta.origin,
    source: leg.meta.source,
    kind: leg.kind,
    role: leg.role,
    action: a.side,
    tx_hash: leg.meta.txHash,
    block_hash: leg.meta.blockHash,
    ledger_group: leg.meta.ledgerGroup,
    in_qty: (a.side === 'sell_all' ? 0n : a.qty).toString(),
    in_usdc: storedUsdc(a).toString(),
    pay_num: (a.side === 'sell_all' ? a.payoutNum : 0n).toString(),
    pay_den: (a.side === 'sell_all' ? a.payoutDen : 0n).toString(),
    fee_micro: leg.fee.toString(),
    price: leg.price,
    qty_delta: effect.qtyDelta.toString(),
    cash: effect.cash.toString(),
    realized: effect.realized.toString(),
    volume: leg.volume.toString(),
    trades: leg.trades,
    qty_after: after.qty.toString(),
    cost_after: after.cost.toString(),
    opened_at: isoOf(after.openedMs),
    counterparty: leg.counterparty ?? '',
    question_index: leg.questionIndex ?? -1,
    paid_usdc: (leg.paid ?? 0n).toString(),
  };
}

export function rowPosition(r: LedgerRow): LedgerPosition {
  return { timeMs: Date.parse(r.time), block: Number(r.block_number), logIndex: Number(r.log_index), eventId: r.event_id };
}

export function compareRows(a: LedgerRow, b: LedgerRow): number {
  return comparePositions(rowPosition(a), rowPosition(b));
}

/**
 * A (wallet, token)'s stored rows as a rewind from `from` on needs them: the live ones (not cancelled,
 * and not cancels) from there on, the newest live one before it, and the highest revision stored,
 * which a cancel may hold. A rewind numbers its rows on from that revision and replays from the live
 * rows; the dead ones, and the live ones further back, it never reads (a hot key holds several dead
 * rows per live one, and thousands of live ones).
 */
export interface StoredRows {
  /** The live rows at or after `from` (all of them when it is null), by revision. */
  live: LedgerRow[];
  /** The newest live row before `from` (null: none, or `from` is null). */
  base: LedgerRow | null;
  from: LedgerPosition | null;
  rev: number;
}

/** Rows neither cancelled nor cancels, in their order: a cancel (sign -1) takes out the row whose rev is its of_rev. */
export function liveOf(rows: LedgerRow[]): LedgerRow[] {
  const cancelled = new Set<number>();
  for (const r of rows) if (Number(r.sign) < 0) cancelled.add(Number(r.of_rev));
  return rows.filter((r) => Number(r.sign) > 0 && !cancelled.has(Number(r.rev)));
}

/** The highest revision among rows, or `floor` when higher. */
export function topRev(rows: LedgerRow[], floor = 0): number {
  let top = floor;
  for (const r of rows) if (Number(r.rev) > top) top = Number(r.rev);
  return top;
}

/** A row as read (its columns, with its times as `time_ms` and `opened_ms`) in the shape the ledger writes. */
export function normalizeStored(r: LedgerRow & { time_ms?: string; opened_ms?: string }): LedgerRow {
  const { time_ms, opened_ms, ...row } = r;
  return {
    ...row,
    time: iso(Number(time_ms)),
    opened_at: iso(Number(opened_ms)),
    rev: Number(r.rev),
    sign: Number(r.sign),
    of_rev: Number(r.of_rev),
    question_index: Number(r.question_index),
  };
}

/** A stored row back into the leg it applied, for replay after a rewind. */
export function legOfRow(r: LedgerRow): Leg {
  const qty = BigInt(r.in_qty);
  const usdc = BigInt(r.in_usdc);
  // A redemption's cap is in in_usdc (rows written without one hold 0 there); a sell at cost's signed
  // collateral is what it realized.
  const action: LegAction =
    r.action === 'buy'
      ? { side: 'buy', qty, usdc }
      : r.action === 'sell_all'
        ? { side: 'sell_all', payoutNum: BigInt(r.pay_num), payoutDen: BigInt(r.pay_den), ...(usdc > 0n ? { capUsdc: usdc } : {}) }
        : r.action === 'sell_at_cost'
          ? { side: 'sell_at_cost', qty, ...(BigInt(r.realized) !== 0n ? { usdc: BigInt(r.realized) } : {}) }
          : { side: 'sell', qty, usdc };
  const meta = { ...metaOfRow(r), kind: 'block_retracted' } as LedgerEvent;
  return {
    meta,
    assetId: r.asset_id,
    marketId: r.market_id,
    outcome: r.outcome,
    outcomeIndex: Number(r.outcome_index),
    kind: r.kind,
    role: r.role,
    action,
    fee: BigInt(r.fee_micro),
    price: Number(r.price),
    volume: BigInt(r.volume),
    trades: Number(r.trades),
    counterparty: r.counterparty ?? '',
    questionIndex: Number(r.question_index ?? -1),
    ...(r.kind === 'redemption' && r.action === 'sell_all' ? { paid: BigInt(r.paid_usdc ?? 0) } : {}),
  };
}

/** The event fields of a stored row (what a replayed or re-priced leg needs of its event). */
export function metaOfRow(r: LedgerRow): EventMeta {
  return {
    origin: r.origin as EventMeta['origin'],
    source: r.source,
    wallet: r.wallet,
    marketId: r.market_id,
    txHash: r.tx_hash,
    blockHash: r.block_hash,
    ledgerGroup: r.ledger_group,
    ...rowPosition(r),
  };
}

/** The state of a key just before the change a row applied (the row holds the state after and the change). */
export function stateBefore(r: LedgerRow): PositionState {
  const qty = BigInt(r.qty_after) - BigInt(r.qty_delta);
  // A buy added its collateral to the basis; a sell took out its cash less what it realized.
  const removed = r.action === 'buy' ? -BigInt(r.in_usdc) : BigInt(r.cash) - BigInt(r.realized);
  return { qty, cost: BigInt(r.cost_after) + removed, openedMs: 0 };
}

/** Whether a leg applies the same input as a row (what `ledgerRow` writes of its action). */
export function sameInput(leg: Leg, r: LedgerRow): boolean {
  const a = leg.action;
  const inQty = a.side === 'sell_all' ? 0n : a.qty;
  // A sell at cost realizes exactly its signed collateral, which in_usdc (unsigned) cannot hold when negative.
  const sameUsdc = a.side === 'sell_at_cost' ? BigInt(r.realized) === (a.usdc ?? 0n) : BigInt(r.in_usdc) === storedUsdc(a);
  // The fee too: a conversion's collateral fee sits on one leg, and a leg that lost or gained it is another leg.
  // And a redemption's price: a re-priced one may keep its cap (what it paid) and change its payout per share.
  const samePayout = a.side !== 'sell_all' || (BigInt(r.pay_num) === a.payoutNum && BigInt(r.pay_den) === a.payoutDen);
  return r.action === a.side && BigInt(r.in_qty) === inQty && sameUsdc && samePayout && BigInt(r.fee_micro) === leg.fee;
}

/**
 * The collateral a row stores of its action: a buy's cost, a sell's proceeds, a redemption's cap, and of
 * a sell at cost the collateral received beyond cost (0 when it is a loss: the signed amount is the
 * row's `realized`, which a sell at cost always equals).
 */
function storedUsdc(a: LegAction): bigint {
  if (a.side === 'buy' || a.side === 'sell') return a.usdc;
  if (a.side === 'sell_all') return a.capUsdc ?? 0n;
  return maxBig(a.usdc ?? 0n, 0n);
}
