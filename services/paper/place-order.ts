/**
 * Placing a paper order: validate it against the market's terms, match it against the latest
 * indexed book of the outcome token (services/paper/matching.ts), then in one control-store
 * transaction - the paper account's row locked first - check cash or shares, and write the order,
 * its fills, the position and the account. An Idempotency-Key maps one key to one order per agent:
 * the same key with the same body returns the stored order, with another body a 409.
 */
import crypto from 'node:crypto';
import { ApiError } from '../http/errors.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { ControlStore, SqlExecutor } from '../ports/control-store.js';
import { latestBooks, type LiveBook } from '../read-models/order-books/queries.js';
import { formatScaled, MICRO, parseScaled } from '../shared/decimal.js';
import { feeScheduleOf, takerFeeMicros } from '../fees/taker-fee.js';
import { adjustAccount, applyToPosition, insertFill } from './ledger.js';
import { marketTerms, outcomeIndexOf, type MarketTerms } from './market-terms.js';
import { type BookFill, type Level, matchAgainstBook, notionalOf, type Side } from './matching.js';
import { ORDER_COLUMNS, type OrderType, paperAccount, type PaperOrder, type TimeInForce, toOrder } from './paper-store.js';

export interface OrderInput {
  market_id: string;
  outcome: string;
  side: Side;
  type: OrderType;
  size: string | number;
  price?: string | number;
  time_in_force?: TimeInForce;
}

export interface PaperSettings {
  startingBalanceUsdc: string;
  maxOpenOrders: number;
  feeFallback: { rate: string; exponent: number };
  /** PAPER_MAX_BOOK_AGE_MS: an order against an older book is refused. */
  maxBookAgeMs: number;
}

export interface PlacedOrder {
  order: PaperOrder;
  replayed: boolean;
}

/** Decimal places the CLOB accepts for an order size. */
const SIZE_DECIMALS = 2;
const DEFAULT_TICK = 0.01;

interface Validated {
  terms: MarketTerms;
  outcomeIndex: number;
  assetId: string;
  side: Side;
  type: OrderType;
  tif: TimeInForce;
  size: bigint;
  limit: bigint | null;
  book: LiveBook;
}

async function validateOrder(store: AnalyticsStore, input: OrderInput): Promise<Validated> {
  const size = parseScaled(input.size);
  if (size === null || size % 10n ** BigInt(6 - SIZE_DECIMALS) !== 0n)
    throw ApiError.badRequest(`size: must be a number of shares with at most ${SIZE_DECIMALS} decimals`);
  if (size <= 0n) throw ApiError.badRequest('size: must be greater than 0');
  if (size > 1_000_000_000n * MICRO) throw ApiError.badRequest('size: at most 1,000,000,000 shares');
  const type = input.type;
  const tif = input.time_in_force ?? (type === 'market' ? 'IOC' : 'GTC');
  if (type === 'market' && tif === 'GTC')
    throw ApiError.badRequest('time_in_force: a market order is IOC or FOK; use a limit order to rest');
  if (type === 'limit' && input.price === undefined) throw ApiError.badRequest('price: required for a limit order');

  const terms = await marketTerms(store, input.market_id.trim());
  if (!terms) throw ApiError.badRequest(`market_id: unknown market ${input.market_id}`);
  if (terms.status === 'resolved' || terms.status === 'voided' || terms.resolution)
    throw ApiError.badRequest(`market_id: market ${terms.marketId} is ${terms.status === 'voided' ? 'voided' : 'resolved'}`);
  if (terms.status === 'closed' || terms.acceptingOrders === false)
    throw ApiError.badRequest(`market_id: market ${terms.marketId} is closed and not accepting orders`);
  const outcomeIndex = outcomeIndexOf(terms, input.outcome);
  if (outcomeIndex < 0) throw ApiError.badRequest(`outcome: not an outcome of this market (${terms.outcomes.join(', ')}; or YES/NO)`);
  const assetId = terms.outcomeTokenIds[outcomeIndex];
  if (!assetId) throw ApiError.badRequest(`market_id: market ${terms.marketId} has no token id for ${terms.outcomes[outcomeIndex]}`);
  const book = (await latestBooks(store, [assetId])).get(assetId);
  if (!book) throw ApiError.badRequest(`market_id: no order book indexed yet for ${terms.outcomes[outcomeIndex]} of ${terms.marketId}`);

  let limit: bigint | null = null;
  if (input.price !== undefined) {
    const tick = parseScaled(book.tickSize ?? terms.tickSize ?? DEFAULT_TICK) ?? 10_000n;
    limit = parseScaled(input.price);
    if (limit === null || limit <= 0n || limit >= MICRO) throw ApiError.badRequest('price: must be strictly between 0 and 1');
    if (limit % tick !== 0n) throw ApiError.badRequest(`price: must be a multiple of the market's tick size ${formatScaled(tick)}`);
  }
  return { terms, outcomeIndex, assetId, side: input.side, type, tif, size, limit, book };
}

/** The canonical body an Idempotency-Key is bound to. */
function requestHash(input: OrderInput): string {
  const canonical = JSON.stringify([
    input.market_id.trim().toLowerCase(),
    input.outcome.trim().toLowerCase(),
    input.side,
    input.type,
    formatScaled(parseScaled(input.size) ?? -1n),
    input.price === undefined ? null : formatScaled(parseScaled(input.price) ?? -1n),
    input.time_in_force ?? null,
  ]);
  return crypto.createHash('sha256').update(canonical).digest('hex');
}

const newOrderId = () => `po_${crypto.randomBytes(12).toString('hex')}`;
export const fillIdOf = (orderId: string, sourceRef: string, level: number) =>
  `pf_${crypto.createHash('sha256').update(`${orderId}|${sourceRef}|${level}`).digest('hex').slice(0, 24)}`;

async function orderByKey(db: SqlExecutor, accountId: string, key: string): Promise<PaperOrder | null> {
  const [row] = await db.query(`SELECT ${ORDER_COLUMNS} FROM paper_orders WHERE account_id = $1 AND idempotency_key = $2`, [
    accountId,
    key,
  ]);
  return row ? toOrder(row) : null;
}

function replay(existing: PaperOrder, hash: string): PlacedOrder {
  if (existing.requestHash !== hash)
    throw new ApiError(409, 'CONFLICT', 'Idempotency-Key: already used for a different order body; use a new key for a new order');
  return { order: existing, replayed: true };
}

export async function placeOrder(
  control: ControlStore,
  store: AnalyticsStore,
  settings: PaperSettings,
  accountId: string,
  input: OrderInput,
  idempotencyKey: string | null,
  now: () => number,
): Promise<PlacedOrder> {
  const hash = requestHash(input);
  if (idempotencyKey) {
    const existing = await orderByKey(control, accountId, idempotencyKey);
    if (existing) return replay(existing, hash);
  }
  const v = await validateOrder(store, input);
  const bookAgeMs = now() - v.book.timestampMs;
  if (bookAgeMs > settings.maxBookAgeMs)
    throw ApiError.badRequest(
      `market_id: the newest indexed book of ${v.terms.outcomes[v.outcomeIndex]} is ${Math.round(bookAgeMs / 1000)} s old, older than ${settings.maxBookAgeMs / 1000} s (PAPER_MAX_BOOK_AGE_MS); paper orders fill only against a fresh book`,
    );
  const levels = v.side === 'buy' ? v.book.asks : v.book.bids;
  const bestPrice = levels[0]?.priceMicros ?? null;
  const bid = v.book.bids[0]?.priceMicros;
  const ask = v.book.asks[0]?.priceMicros;
  const mid = bid !== undefined && ask !== undefined ? (bid + ask) / 2n : null;
  const schedule = feeScheduleOf(v.terms.fees, { rate: Number(settings.feeFallback.rate), exponent: settings.feeFallback.exponent });

  const at = new Date(now());
  const orderId = newOrderId();
  try {
    return await control.transaction(async (tx) => {
      const account = await paperAccount(tx, accountId, settings.startingBalanceUsdc, true);
      if (idempotencyKey) {
        // Another request with this key may have committed while this one waited for the account lock.
        const existing = await orderByKey(tx, accountId, idempotencyKey);
        if (existing) return replay(existing, hash);
      }
      // Matched under the account lock: what this account's earlier orders took from this book is gone.
      const left = await liquidityLeft(tx, accountId, account.epoch, v, levels);
      let match = matchAgainstBook(v.side, v.size, v.limit, left);
      let cancelReason: string | null = null;
      if (v.tif === 'FOK' && match.remainingMicros > 0n) {
        match = { fills: [], filledMicros: 0n, notionalMicros: 0n, remainingMicros: v.size };
        cancelReason = 'fok_not_fillable';
      }
      const fees = match.fills.map((fill) => takerFeeMicros(fill.sizeMicros, fill.priceMicros, schedule));
      const feeTotal = fees.reduce((sum, fee) => sum + fee, 0n);
      const rests = v.tif === 'GTC' && match.remainingMicros > 0n;
      if (!rests && match.remainingMicros > 0n && !cancelReason) cancelReason = match.filledMicros > 0n ? 'ioc_remainder' : 'no_liquidity';
      const status = rests ? (match.filledMicros > 0n ? 'partial' : 'open') : match.remainingMicros === 0n ? 'filled' : 'cancelled';
      // A resting buy holds remaining x limit of cash; a resting sell holds its remaining shares.
      const reserved = rests ? (v.side === 'buy' ? notionalOf(match.remainingMicros, v.limit!) : match.remainingMicros) : 0n;
      if (rests) {
        const [{ count }] = (await tx.query<{ count: string }>(
          `SELECT count(*)::text AS count FROM paper_orders WHERE account_id = $1 AND epoch = $2 AND status IN ('open', 'partial')`,
          [accountId, account.epoch],
        )) as [{ count: string }];
        if (Number(count) >= settings.maxOpenOrders)
          throw ApiError.badRequest(`time_in_force: ${settings.maxOpenOrders} orders already rest; cancel one or use IOC/FOK`);
      }
      if (v.side === 'buy') {
        const needed = match.notionalMicros + feeTotal + reserved;
        if (needed > account.cash)
          throw ApiError.badRequest(
            `size: insufficient paper cash: this order needs ${formatScaled(needed)} USDC (fills, fees and the resting remainder), ${formatScaled(account.cash)} is free`,
          );
      } else {
        const [position] = await tx.query<{ shares: string; reserved_shares: string }>(
          `SELECT shares::text AS shares, reserved_shares::text AS reserved_shares FROM paper_positions
            WHERE account_id = $1 AND epoch = $2 AND asset_id = $3 AND status = 'open' FOR UPDATE`,
          [accountId, account.epoch, v.assetId],
        );
        const free = position ? (parseScaled(position.shares) ?? 0n) - (parseScaled(position.reserved_shares) ?? 0n) : 0n;
        if (v.size > free)
          throw ApiError.badRequest(
            `size: more than the ${formatScaled(free)} shares of ${v.terms.outcomes[v.outcomeIndex]} held and not already offered`,
          );
      }
      const [row] = await tx.query(
        `INSERT INTO paper_orders (order_id, account_id, epoch, market_id, market_title, asset_id, outcome, outcome_index, side, type,
                                   time_in_force, size, limit_price, status, cancel_reason, filled_size, filled_notional, fees, reserved,
                                   best_price, mid_price, book_hash, book_at, fee_rate, fee_exponent, fee_basis, idempotency_key,
                                   request_hash, created_at, updated_at, book_source)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26,
                 $27, $28, $29, $29, $30)
         RETURNING ${ORDER_COLUMNS}`,
        [
          orderId,
          accountId,
          account.epoch,
          v.terms.marketId,
          v.terms.title,
          v.assetId,
          v.terms.outcomes[v.outcomeIndex],
          v.outcomeIndex,
          v.side,
          v.type,
          v.tif,
          formatScaled(v.size),
          v.limit === null ? null : formatScaled(v.limit),
          status,
          cancelReason,
          formatScaled(match.filledMicros),
          formatScaled(match.notionalMicros),
          formatScaled(feeTotal),
          formatScaled(reserved),
          bestPrice === null ? null : formatScaled(bestPrice),
          mid === null ? null : formatScaled(mid),
          v.book.hash,
          new Date(v.book.timestampMs),
          formatScaled(schedule.rateMicros),
          schedule.exponent,
          schedule.basis,
          idempotencyKey,
          hash,
          at,
          v.book.source,
        ],
      );
      const order = toOrder(row);
      await recordSubmissionFills(tx, order, v, match.fills, fees, at);
      const realized = match.fills.length > 0 ? await positionFromFills(tx, order, v, match.fills, fees, at) : 0n;
      if (v.side === 'buy') {
        await adjustAccount(tx, accountId, { cash: -(match.notionalMicros + feeTotal + reserved), reserved, fees: feeTotal });
      } else {
        await adjustAccount(tx, accountId, { cash: match.notionalMicros - feeTotal, realizedPnl: realized, fees: feeTotal });
        if (reserved > 0n)
          await tx.query(
            'UPDATE paper_positions SET reserved_shares = reserved_shares + $4 WHERE account_id = $1 AND epoch = $2 AND asset_id = $3',
            [accountId, account.epoch, v.assetId, formatScaled(reserved)],
          );
      }
      return { order, replayed: false };
    });
  } catch (error) {
    // The unique (account, key) index is the last word when two requests with one key race.
    if (idempotencyKey && (error as { code?: string }).code === '23505') {
      const existing = await orderByKey(control, accountId, idempotencyKey);
      if (existing) return replay(existing, hash);
    }
    throw error;
  }
}

/**
 * The side of the book an order takes from, less what this account's earlier orders (this epoch)
 * already took from the same book: a book's liquidity is used once, until a newer book replaces it.
 * Other accounts' orders do not take it (each agent's paper trading is its own).
 */
async function liquidityLeft(tx: SqlExecutor, accountId: string, epoch: number, v: Validated, levels: readonly Level[]): Promise<Level[]> {
  const taken = await tx.query<{ price: string; size: string }>(
    `SELECT price::text AS price, sum(size)::text AS size FROM paper_fills
      WHERE account_id = $1 AND epoch = $2 AND source_ref = $3 AND side = $4 AND trigger = 'submission'
      GROUP BY price`,
    [accountId, epoch, `book:${v.book.hash}`, v.side],
  );
  if (taken.length === 0) return [...levels];
  const byPrice = new Map(taken.map((row) => [parseScaled(row.price)!, parseScaled(row.size)!]));
  return levels.map((level) => ({ priceMicros: level.priceMicros, sizeMicros: level.sizeMicros - (byPrice.get(level.priceMicros) ?? 0n) }));
}

async function recordSubmissionFills(tx: SqlExecutor, order: PaperOrder, v: Validated, fills: BookFill[], fees: bigint[], at: Date) {
  for (const [i, fill] of fills.entries()) {
    const sourceRef = `book:${v.book.hash}`;
    await insertFill(tx, {
      fillId: fillIdOf(order.orderId, sourceRef, fill.level),
      order,
      priceMicros: fill.priceMicros,
      sizeMicros: fill.sizeMicros,
      notionalMicros: fill.notionalMicros,
      feeMicros: fees[i]!,
      liquidity: 'taker',
      trigger: 'submission',
      sourceRef,
      level: fill.level,
      at,
    });
  }
}

/** One position update for all of the order's submission fills (the same outcome, side and moment). */
async function positionFromFills(tx: SqlExecutor, order: PaperOrder, v: Validated, fills: BookFill[], fees: bigint[], at: Date) {
  const size = fills.reduce((sum, f) => sum + f.sizeMicros, 0n);
  const notional = fills.reduce((sum, f) => sum + f.notionalMicros, 0n);
  const fee = fees.reduce((sum, f) => sum + f, 0n);
  return applyToPosition(
    tx,
    {
      accountId: order.accountId,
      epoch: order.epoch,
      assetId: v.assetId,
      marketId: v.terms.marketId,
      marketTitle: v.terms.title,
      outcome: v.terms.outcomes[v.outcomeIndex]!,
      outcomeIndex: v.outcomeIndex,
    },
    order.side,
    size,
    notional,
    fee,
    at,
  );
}
