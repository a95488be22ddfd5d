/**
 * Paper state as the API serves it (api/openapi.yaml PaperAccount, PaperPosition, PaperOrder, ...):
 * money, shares and prices as numbers rounded to their unit (servedAmount), computed exactly in micro-units. Valuation marks open positions at the live indexed books
 * (mid when the spread is at most 0.10, else the last trade; the payout once the market resolved)
 * and raises the epoch's peak equity, the reference of the drawdown.
 */
import type {
  PaperAccount as AccountView,
  PaperFill as FillView,
  PaperOrder as OrderView,
  PaperPosition as PositionView,
  PaperSettlement as SettlementView,
} from '../http/types.generated.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { SqlExecutor } from '../ports/control-store.js';
import { latestBooks, markMicros } from '../read-models/order-books/queries.js';
import { divide, formatScaled, MICRO, maxBig, microsOf, mulDiv, servedAmount, servedAmountOrNull } from '../shared/decimal.js';
import { iso, isoOrNull } from '../shared/time.js';
import { marketTermsById, type MarketTerms } from './market-terms.js';
import type { PaperAccount, PaperFill, PaperOrder, PaperPosition, PaperSettlement } from './paper-store.js';

const usdc = (value: bigint) => servedAmount(value);
const priceOrNull = (value: bigint | null) => servedAmountOrNull(value);

export function fillView(fill: PaperFill): FillView {
  return {
    fill_id: fill.fillId,
    order_id: fill.orderId,
    market_id: fill.marketId,
    asset_id: fill.assetId,
    outcome: fill.outcome,
    side: fill.side,
    price: servedAmount(fill.price),
    size: servedAmount(fill.size),
    notional_usdc: usdc(fill.notional),
    fee_usdc: usdc(fill.fee),
    liquidity: fill.liquidity,
    trigger: fill.trigger,
    level: fill.level > 0 ? fill.level : null,
    created_at: iso(fill.createdAt.getTime()),
  };
}

export function orderView(order: PaperOrder, fills?: PaperFill[]): OrderView {
  const submission = fills?.filter((f) => f.trigger === 'submission') ?? [];
  let slippage: bigint | null = null;
  let slippageBps: number | null = null;
  if (submission.length > 0 && order.bestPrice !== null) {
    const size = submission.reduce((sum, f) => sum + f.size, 0n);
    const notional = submission.reduce((sum, f) => sum + f.notional, 0n);
    const atBest = mulDiv(size, order.bestPrice, MICRO);
    slippage = order.side === 'buy' ? notional - atBest : atBest - notional;
    slippageBps = atBest > 0n ? Number(divide(slippage * 1_000_000n, atBest)) / 100 : null;
  }
  return {
    order_id: order.orderId,
    epoch: order.epoch,
    market_id: order.marketId,
    market_title: order.marketTitle,
    asset_id: order.assetId,
    outcome: order.outcome,
    outcome_index: order.outcomeIndex,
    side: order.side,
    type: order.type,
    time_in_force: order.timeInForce,
    status: order.status,
    cancel_reason: order.cancelReason as OrderView['cancel_reason'],
    size: servedAmount(order.size),
    limit_price: priceOrNull(order.limitPrice),
    filled_size: servedAmount(order.filledSize),
    remaining_size: servedAmount(order.size - order.filledSize),
    avg_fill_price: order.filledSize > 0n ? servedAmount(divide(order.filledNotional * MICRO, order.filledSize)) : null,
    filled_notional_usdc: usdc(order.filledNotional),
    fees_usdc: usdc(order.fees),
    best_price_at_submission: priceOrNull(order.bestPrice),
    mid_at_submission: priceOrNull(order.midPrice),
    slippage_usdc: slippage === null ? null : usdc(slippage),
    slippage_bps: slippageBps,
    fee_schedule: {
      rate: servedAmount(order.feeRate),
      exponent: order.feeExponent,
      basis: order.feeBasis as 'market' | 'fallback' | 'none',
    },
    book: {
      hash: order.bookHash,
      as_of: isoOrNull(order.bookAt?.getTime()),
      source: order.bookSource as OrderView['book']['source'],
    },
    idempotency_key: order.idempotencyKey,
    ...(fills ? { fills: fills.map(fillView) } : {}),
    created_at: iso(order.createdAt.getTime()),
    updated_at: iso(order.updatedAt.getTime()),
  };
}

export function settlementView(s: PaperSettlement): SettlementView {
  return {
    market_id: s.marketId,
    market_title: s.marketTitle,
    asset_id: s.assetId,
    outcome: s.outcome,
    kind: s.kind,
    winning_outcome: s.winningOutcome,
    shares: servedAmount(s.shares),
    price: servedAmount(s.price),
    proceeds_usdc: usdc(s.proceeds),
    cost_basis_usdc: usdc(s.cost),
    realized_pnl_usdc: usdc(s.realizedPnl),
    settled_at: iso(s.settledAt.getTime()),
  };
}

export interface Valuation {
  account: AccountView;
  positions: PositionView[];
  /** Terms of the markets of the positions valued (for risk alerts). */
  markets: Map<string, MarketTerms>;
}

interface ValuedPosition {
  view: PositionView;
  value: bigint;
  unrealized: bigint;
}

function positionView(
  position: PaperPosition,
  terms: MarketTerms | undefined,
  mark: bigint | null,
  basis: PositionView['mark_basis'],
): ValuedPosition {
  const open = position.status === 'open' && position.shares > 0n;
  const value = open && mark !== null ? mulDiv(position.shares, mark, MICRO) : 0n;
  const unrealized = open && mark !== null ? value - position.cost : 0n;
  const status: PositionView['status'] = position.status === 'open' ? (position.shares > 0n ? 'open' : 'closed') : position.status;
  const view: PositionView = {
    market_id: position.marketId,
    market_title: position.marketTitle,
    asset_id: position.assetId,
    outcome: position.outcome,
    outcome_index: position.outcomeIndex,
    status,
    shares: servedAmount(position.shares),
    reserved_shares: servedAmount(position.reservedShares),
    avg_entry_price: position.shares > 0n ? servedAmount(divide(position.cost * MICRO, position.shares)) : null,
    cost_basis_usdc: usdc(position.cost),
    mark_price: open ? priceOrNull(mark) : null,
    mark_basis: open ? basis : 'none',
    market_value_usdc: usdc(value),
    unrealized_pnl_usdc: usdc(unrealized),
    realized_pnl_usdc: usdc(position.realizedPnl),
    fees_paid_usdc: usdc(position.feesPaid),
    settlement_price: priceOrNull(position.settlementPrice),
    settled_at: isoOrNull(position.settledAt?.getTime()),
    market_end_date: isoOrNull(terms?.endDateMs),
    opened_at: iso(position.openedAt.getTime()),
    updated_at: iso(position.updatedAt.getTime()),
  };
  return { view, value, unrealized };
}

/** Values the account at the live marks and records a new peak equity; `positions` are the epoch's positions to show. */
export async function valueAccount(
  db: SqlExecutor,
  store: AnalyticsStore,
  account: PaperAccount,
  positions: PaperPosition[],
  openOrders: number,
  now: number,
): Promise<Valuation> {
  const open = positions.filter((p) => p.status === 'open' && p.shares > 0n);
  const [books, markets] = await Promise.all([
    latestBooks(
      store,
      open.map((p) => p.assetId),
    ),
    marketTermsById(
      store,
      positions.map((p) => p.marketId),
    ),
  ]);
  let positionsValue = 0n;
  let unrealized = 0n;
  const views = positions.map((position) => {
    const terms = markets.get(position.marketId);
    let mark: bigint | null = null;
    let basis: PositionView['mark_basis'] = 'none';
    const payoutIndex = terms?.resolution ? terms.outcomeTokenIds.indexOf(position.assetId) : -1;
    if (terms?.resolution && payoutIndex >= 0 && terms.resolution.payouts[payoutIndex] !== undefined) {
      // Resolved, settlement not applied yet: the payout is what the shares are worth.
      mark = microsOf(terms.resolution.payouts[payoutIndex]!);
      basis = 'payout';
    } else {
      const book = books.get(position.assetId);
      mark = markMicros(book);
      if (mark !== null) {
        const bid = book?.bids[0]?.priceMicros;
        const ask = book?.asks[0]?.priceMicros;
        basis = bid !== undefined && ask !== undefined && ask - bid <= 100_000n ? 'mid' : 'last_trade';
      }
    }
    const valued = positionView(position, terms, mark, basis);
    positionsValue += valued.value;
    unrealized += valued.unrealized;
    return valued.view;
  });
  const equity = account.cash + account.reserved + positionsValue;
  const peak = maxBig(equity, account.peakEquity);
  if (peak !== account.peakEquity)
    await db.query('UPDATE paper_accounts SET peak_equity = GREATEST(peak_equity, $2) WHERE account_id = $1 AND epoch = $3', [
      account.accountId,
      formatScaled(peak),
      account.epoch,
    ]);
  // Percent to 2 decimals: (peak - equity) / peak x 100, kept in hundredths of a percent until the end.
  const drawdown = peak > 0n ? Number(divide((peak - equity) * 10_000n, peak)) / 100 : 0;
  return {
    account: {
      epoch: account.epoch,
      starting_balance_usdc: usdc(account.startingBalance),
      cash_usdc: usdc(account.cash),
      reserved_usdc: usdc(account.reserved),
      positions_value_usdc: usdc(positionsValue),
      equity_usdc: usdc(equity),
      realized_pnl_usdc: usdc(account.realizedPnl),
      unrealized_pnl_usdc: usdc(unrealized),
      fees_paid_usdc: usdc(account.feesPaid),
      net_pnl_usdc: usdc(equity - account.startingBalance),
      peak_equity_usdc: usdc(peak),
      drawdown_pct: drawdown,
      open_positions: views.filter((v) => v.status === 'open').length,
      open_orders: openOrders,
      epoch_started_at: iso(account.epochStartedAt.getTime()),
      valued_at: iso(now),
    },
    positions: views,
    markets,
  };
}
