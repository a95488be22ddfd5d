/**
 * The paper-trading operations behind /v1/paper/*: account (valued at the live books), reset,
 * orders (place, get, cancel, list), positions, fills and settlements, each scoped to the agent.
 */
import { ApiError } from '../http/errors.js';
import type { CursorKey } from '../http/cursor.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { ControlStore } from '../ports/control-store.js';
import { cancelRestingOrder } from './ledger.js';
import {
  FILL_COLUMNS,
  lockPaperAccount,
  ORDER_COLUMNS,
  openOrdersOf,
  paperAccount,
  type PaperOrder,
  positionsOf,
  SETTLEMENT_COLUMNS,
  toFill,
  toOrder,
  toSettlement,
} from './paper-store.js';
import { type OrderInput, type PaperSettings, type PlacedOrder, placeOrder } from './place-order.js';
import { orderView, valueAccount, type Valuation } from './views.js';

export class PaperService {
  constructor(
    readonly control: ControlStore,
    readonly store: AnalyticsStore,
    readonly settings: PaperSettings,
    readonly clock: () => number = Date.now,
  ) {}

  async valuation(accountId: string, positions: 'open' | 'all' = 'open'): Promise<Valuation> {
    const account = await paperAccount(this.control, accountId, this.settings.startingBalanceUsdc);
    const [held, resting] = await Promise.all([
      positionsOf(this.control, accountId, account.epoch, positions),
      this.control.query<{ count: string }>(
        `SELECT count(*)::text AS count FROM paper_orders WHERE account_id = $1 AND epoch = $2 AND status IN ('open', 'partial')`,
        [accountId, account.epoch],
      ),
    ]);
    return valueAccount(this.control, this.store, account, held, Number(resting[0]?.count ?? 0), this.clock());
  }

  async reset(accountId: string): Promise<Valuation> {
    const now = new Date(this.clock());
    await this.control.transaction(async (tx) => {
      const account = await paperAccount(tx, accountId, this.settings.startingBalanceUsdc, true);
      for (const order of await openOrdersOf(tx, accountId, account.epoch, 100_000)) await cancelRestingOrder(tx, order, 'reset', now);
      await tx.query(
        `UPDATE paper_accounts SET epoch = epoch + 1, starting_balance = $2, cash = $2, reserved = 0, realized_pnl = 0, fees_paid = 0,
                peak_equity = $2, epoch_started_at = $3 WHERE account_id = $1`,
        [accountId, this.settings.startingBalanceUsdc, now],
      );
    });
    return this.valuation(accountId);
  }

  place(accountId: string, input: OrderInput, idempotencyKey: string | null): Promise<PlacedOrder> {
    return placeOrder(this.control, this.store, this.settings, accountId, input, idempotencyKey, this.clock);
  }

  async order(accountId: string, orderId: string) {
    const [row] = await this.control.query(`SELECT ${ORDER_COLUMNS} FROM paper_orders WHERE order_id = $1 AND account_id = $2`, [
      orderId,
      accountId,
    ]);
    if (!row) throw ApiError.notFound(`paper order not found: ${orderId}`);
    return this.present(toOrder(row));
  }

  /** The order with all its fills, as the API serves a single order. */
  async present(order: PaperOrder) {
    const fills = (
      await this.control.query(`SELECT ${FILL_COLUMNS} FROM paper_fills WHERE order_id = $1 ORDER BY paper_fills.seq`, [order.orderId])
    ).map(toFill);
    return orderView(order, fills);
  }

  async cancel(accountId: string, orderId: string) {
    const now = new Date(this.clock());
    const order = await this.control.transaction(async (tx) => {
      await lockPaperAccount(tx, accountId);
      const [row] = await tx.query(`SELECT ${ORDER_COLUMNS} FROM paper_orders WHERE order_id = $1 AND account_id = $2 FOR UPDATE`, [
        orderId,
        accountId,
      ]);
      if (!row) throw ApiError.notFound(`paper order not found: ${orderId}`);
      const found = toOrder(row);
      if (found.status !== 'open' && found.status !== 'partial')
        throw new ApiError(
          409,
          'CONFLICT',
          `paper order ${orderId} is ${found.status}, not resting; only open or partial orders can be cancelled`,
        );
      await cancelRestingOrder(tx, found, 'cancelled_by_agent', now);
      return found.orderId;
    });
    return this.order(accountId, order);
  }

  async epochOf(accountId: string, requested: number | undefined): Promise<number> {
    if (requested !== undefined) return requested;
    return (await paperAccount(this.control, accountId, this.settings.startingBalanceUsdc)).epoch;
  }

  /** Newest first by sequence; `after` is the last served sequence. */
  async orders(accountId: string, epoch: number, status: string, after: CursorKey | null, take: number) {
    const statuses = {
      open: ['open', 'partial'],
      filled: ['filled'],
      cancelled: ['cancelled'],
      all: ['open', 'partial', 'filled', 'cancelled'],
    }[status] ?? ['open', 'partial', 'filled', 'cancelled'];
    const rows = await this.control.query(
      `SELECT ${ORDER_COLUMNS} FROM paper_orders WHERE account_id = $1 AND epoch = $2 AND status = ANY($3::text[])
          AND ($4::bigint IS NULL OR seq < $4::bigint) ORDER BY paper_orders.seq DESC LIMIT $5`,
      [accountId, epoch, statuses, after ? String(after[0]) : null, take],
    );
    return rows.map(toOrder);
  }

  async fills(accountId: string, epoch: number, after: CursorKey | null, take: number) {
    const rows = await this.control.query(
      `SELECT ${FILL_COLUMNS} FROM paper_fills WHERE account_id = $1 AND epoch = $2 AND ($3::bigint IS NULL OR seq < $3::bigint)
        ORDER BY paper_fills.seq DESC LIMIT $4`,
      [accountId, epoch, after ? String(after[0]) : null, take],
    );
    return rows.map(toFill);
  }

  async settlements(accountId: string, epoch: number, after: CursorKey | null, take: number) {
    const rows = await this.control.query(
      `SELECT ${SETTLEMENT_COLUMNS} FROM paper_settlements WHERE account_id = $1 AND epoch = $2 AND ($3::bigint IS NULL OR seq < $3::bigint)
        ORDER BY paper_settlements.seq DESC LIMIT $4`,
      [accountId, epoch, after ? String(after[0]) : null, take],
    );
    return rows.map(toSettlement);
  }
}
