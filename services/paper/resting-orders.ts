/**
 * Resting paper orders meet the market after they were placed: the sandbox processor hands every
 * new book snapshot and trade of a token with resting orders here. A book whose opposite side
 * reaches the order's price, or a trade printed through it, fills the order as the maker at its own
 * price, no fee (matching.ts says how much). Only events newer than the order count. Each fill is
 * keyed by (order, event), so a redelivered batch changes nothing.
 */
import type { SqlExecutor } from '../ports/control-store.js';
import { formatScaled } from '../shared/decimal.js';
import { adjustAccount, applyToPosition, insertFill } from './ledger.js';
import { type Level, notionalOf, restingFillFromBook, restingFillFromTrade } from './matching.js';
import { lockPaperAccount, ORDER_COLUMNS, type PaperOrder, toOrder } from './paper-store.js';
import { fillIdOf } from './place-order.js';

export type MarketEvent =
  | { kind: 'book'; ref: string; assetId: string; atMs: number; bids: Level[]; asks: Level[] }
  | { kind: 'trade'; ref: string; assetId: string; atMs: number; trade: Level };

/** Tokens among these with resting orders (one cheap query per batch; most batches find none). */
export async function tokensWithRestingOrders(db: SqlExecutor, assetIds: string[]): Promise<Set<string>> {
  if (assetIds.length === 0) return new Set();
  const rows = await db.query<{ asset_id: string }>(
    `SELECT DISTINCT asset_id FROM paper_orders WHERE status IN ('open', 'partial') AND asset_id = ANY($1::text[])`,
    [[...new Set(assetIds)]],
  );
  return new Set(rows.map((r) => r.asset_id));
}

/** Applies one event to the token's resting orders; returns the number of fills made. */
export async function applyMarketEvent(tx: SqlExecutor, event: MarketEvent, now: Date): Promise<number> {
  const candidates = await tx.query<{ account_id: string }>(
    `SELECT DISTINCT account_id::text AS account_id FROM paper_orders
      WHERE asset_id = $1 AND status IN ('open', 'partial') AND created_at < $2 ORDER BY account_id`,
    [event.assetId, new Date(event.atMs)],
  );
  let fills = 0;
  for (const { account_id } of candidates) {
    // Account row first, then its orders: the lock order every paper writer follows.
    const account = await lockPaperAccount(tx, account_id);
    if (!account) continue;
    const orders = (
      await tx.query(
        `SELECT ${ORDER_COLUMNS} FROM paper_orders
          WHERE account_id = $1 AND asset_id = $2 AND status IN ('open', 'partial') AND created_at < $3 ORDER BY paper_orders.seq FOR UPDATE`,
        [account_id, event.assetId, new Date(event.atMs)],
      )
    ).map(toOrder);
    for (const order of orders) if (await fillResting(tx, order, event, now)) fills += 1;
  }
  return fills;
}

async function fillResting(tx: SqlExecutor, order: PaperOrder, event: MarketEvent, now: Date): Promise<boolean> {
  const remaining = order.size - order.filledSize;
  const limit = order.limitPrice!;
  const size =
    event.kind === 'book'
      ? restingFillFromBook(order.side, remaining, limit, order.side === 'buy' ? event.asks : event.bids)
      : restingFillFromTrade(order.side, remaining, limit, event.trade);
  if (size <= 0n) return false;
  const notional = notionalOf(size, limit);
  const sourceRef = `${event.kind}:${event.ref}`;
  const fresh = await insertFill(tx, {
    fillId: fillIdOf(order.orderId, sourceRef, 0),
    order,
    priceMicros: limit,
    sizeMicros: size,
    notionalMicros: notional,
    feeMicros: 0n,
    liquidity: 'maker',
    trigger: event.kind,
    sourceRef,
    level: 0,
    at: now,
  });
  if (!fresh) return false;
  const left = remaining - size;
  // What the order still holds after this fill; the difference is released (for a buy, exactly the cash the fill spends, to the micro).
  const stillReserved = order.side === 'buy' ? notionalOf(left, limit) : left;
  const released = order.reserved - stillReserved;
  const realized = await applyToPosition(
    tx,
    {
      accountId: order.accountId,
      epoch: order.epoch,
      assetId: order.assetId,
      marketId: order.marketId,
      marketTitle: order.marketTitle,
      outcome: order.outcome,
      outcomeIndex: order.outcomeIndex,
    },
    order.side,
    size,
    notional,
    0n,
    now,
    order.side === 'sell' ? released : 0n,
  );
  if (order.side === 'buy') await adjustAccount(tx, order.accountId, { cash: released - notional, reserved: -released });
  else await adjustAccount(tx, order.accountId, { cash: notional, realizedPnl: realized });
  await tx.query(
    `UPDATE paper_orders SET filled_size = filled_size + $2, filled_notional = filled_notional + $3, reserved = $4,
            status = $5, updated_at = $6 WHERE order_id = $1`,
    [order.orderId, formatScaled(size), formatScaled(notional), formatScaled(stillReserved), left === 0n ? 'filled' : 'partial', now],
  );
  return true;
}
