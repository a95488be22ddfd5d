/**
 * Paper-ledger mutations, always inside the caller's transaction with the paper account's row
 * locked first (the one lock order every writer follows, so API requests and the sandbox processor
 * never deadlock). Weighted-average cost (docs/SANDBOX.md): a buy adds size x price to the cost
 * basis; a sell removes the sold share of it (all of it when the position closes) and realizes
 * proceeds - removed cost. Fees are kept apart from the cost basis. Cash: a taker buy pays
 * notional + fee, a taker sell receives notional - fee; makers pay no fee.
 */
import type { SqlExecutor } from '../ports/control-store.js';
import { formatScaled, mulDiv } from '../shared/decimal.js';
import type { Side } from './matching.js';
import type { PaperOrder } from './paper-store.js';
import { micro } from './paper-store.js';

const dec = (value: bigint) => formatScaled(value);

export interface FillRecord {
  fillId: string;
  order: Pick<PaperOrder, 'orderId' | 'accountId' | 'epoch' | 'marketId' | 'assetId' | 'outcome' | 'side'>;
  priceMicros: bigint;
  sizeMicros: bigint;
  notionalMicros: bigint;
  feeMicros: bigint;
  liquidity: 'taker' | 'maker';
  trigger: 'submission' | 'book' | 'trade';
  sourceRef: string;
  level: number;
  at: Date;
}

/** Records a fill; false when it was recorded before (a redelivered event), and then nothing else may change. */
export async function insertFill(tx: SqlExecutor, fill: FillRecord): Promise<boolean> {
  const rows = await tx.query(
    `INSERT INTO paper_fills (fill_id, order_id, account_id, epoch, market_id, asset_id, outcome, side, price, size, notional, fee,
                              liquidity, trigger, source_ref, level, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
     ON CONFLICT (order_id, source_ref, level) DO NOTHING RETURNING seq`,
    [
      fill.fillId,
      fill.order.orderId,
      fill.order.accountId,
      fill.order.epoch,
      fill.order.marketId,
      fill.order.assetId,
      fill.order.outcome,
      fill.order.side,
      dec(fill.priceMicros),
      dec(fill.sizeMicros),
      dec(fill.notionalMicros),
      dec(fill.feeMicros),
      fill.liquidity,
      fill.trigger,
      fill.sourceRef,
      fill.level,
      fill.at,
    ],
  );
  return rows.length > 0;
}

export interface PositionKey {
  accountId: string;
  epoch: number;
  assetId: string;
  marketId: string;
  marketTitle: string;
  outcome: string;
  outcomeIndex: number;
}

/**
 * Moves the position by a fill; returns the PnL it realized (sells only). `releaseReservedShares`
 * is the part of a resting sell's reservation this fill uses up.
 */
export async function applyToPosition(
  tx: SqlExecutor,
  key: PositionKey,
  side: Side,
  sizeMicros: bigint,
  notionalMicros: bigint,
  feeMicros: bigint,
  at: Date,
  releaseReservedShares = 0n,
): Promise<bigint> {
  if (side === 'buy') {
    await tx.query(
      `INSERT INTO paper_positions (account_id, epoch, asset_id, market_id, market_title, outcome, outcome_index, shares, cost,
                                    fees_paid, bought_shares, opened_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $8, $11, $11)
       ON CONFLICT (account_id, epoch, asset_id) DO UPDATE SET
         shares = paper_positions.shares + EXCLUDED.shares, cost = paper_positions.cost + EXCLUDED.cost,
         fees_paid = paper_positions.fees_paid + EXCLUDED.fees_paid, bought_shares = paper_positions.bought_shares + EXCLUDED.shares,
         updated_at = EXCLUDED.updated_at`,
      [
        key.accountId,
        key.epoch,
        key.assetId,
        key.marketId,
        key.marketTitle,
        key.outcome,
        key.outcomeIndex,
        dec(sizeMicros),
        dec(notionalMicros),
        dec(feeMicros),
        at,
      ],
    );
    return 0n;
  }
  const [row] = await tx.query<{ shares: string; cost: string }>(
    'SELECT shares::text AS shares, cost::text AS cost FROM paper_positions WHERE account_id = $1 AND epoch = $2 AND asset_id = $3 FOR UPDATE',
    [key.accountId, key.epoch, key.assetId],
  );
  const held = micro(row?.shares ?? null);
  const cost = micro(row?.cost ?? null);
  if (!row || held < sizeMicros) throw new Error(`paper sell of ${dec(sizeMicros)} shares exceeds the ${dec(held)} held`);
  const removed = sizeMicros === held ? cost : mulDiv(cost, sizeMicros, held);
  const realized = notionalMicros - removed;
  await tx.query(
    `UPDATE paper_positions SET shares = shares - $4, cost = cost - $5, realized_pnl = realized_pnl + $6, fees_paid = fees_paid + $7,
            sold_shares = sold_shares + $4, reserved_shares = reserved_shares - $8, updated_at = $9
      WHERE account_id = $1 AND epoch = $2 AND asset_id = $3`,
    [key.accountId, key.epoch, key.assetId, dec(sizeMicros), dec(removed), dec(realized), dec(feeMicros), dec(releaseReservedShares), at],
  );
  return realized;
}

export interface AccountDelta {
  cash?: bigint;
  reserved?: bigint;
  realizedPnl?: bigint;
  fees?: bigint;
}

export async function adjustAccount(tx: SqlExecutor, accountId: string, delta: AccountDelta): Promise<void> {
  await tx.query(
    `UPDATE paper_accounts SET cash = cash + $2, reserved = reserved + $3, realized_pnl = realized_pnl + $4, fees_paid = fees_paid + $5
      WHERE account_id = $1`,
    [accountId, dec(delta.cash ?? 0n), dec(delta.reserved ?? 0n), dec(delta.realizedPnl ?? 0n), dec(delta.fees ?? 0n)],
  );
}

/** Releases what a resting order still holds (cash for a buy, shares for a sell) and cancels it. */
export async function cancelRestingOrder(tx: SqlExecutor, order: PaperOrder, reason: string, at: Date): Promise<void> {
  if (order.side === 'buy') await adjustAccount(tx, order.accountId, { cash: order.reserved, reserved: -order.reserved });
  else
    await tx.query(
      'UPDATE paper_positions SET reserved_shares = reserved_shares - $4, updated_at = $5 WHERE account_id = $1 AND epoch = $2 AND asset_id = $3',
      [order.accountId, order.epoch, order.assetId, dec(order.reserved), at],
    );
  await tx.query(`UPDATE paper_orders SET status = 'cancelled', cancel_reason = $2, reserved = 0, updated_at = $3 WHERE order_id = $1`, [
    order.orderId,
    reason,
    at,
  ]);
}
