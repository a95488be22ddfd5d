/**
 * A wallet's open positions (largest value first) or closed ones (largest realized PnL first) from its
 * (wallet, token) rows, valued at the current marks (position-value.ts), a page at a time (a whale holds thousands). The response
 * carries data_as_of: how far the ledger held every change when the rows served were read (a
 * wallet's snapshot lags the ledger by up to a refresher run: wallet-snapshots.ts), and coverage: from
 * which block the positions are whole (coverage.ts).
 */
import { Router } from 'express';
import { success } from '../../http/envelope.js';
import { ApiError } from '../../http/errors.js';
import { keysetPage } from '../../http/keyset.js';
import { queryOf } from '../../http/query.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { divide, MICRO, servedAmount, servedAmountOrNull } from '../../shared/decimal.js';
import { iso } from '../../shared/time.js';
import { ledgerCoverage } from './coverage.js';
import type { ValuedPosition } from './position-value.js';
import { walletPositions } from './queries.js';

/**
 * Page order: a figure descending, then the token id, which is unique per wallet. The figure is the
 * value (unmarked as 0) for open positions and for all, the realized PnL for closed ones.
 */
interface SortKey {
  figure: bigint;
  asset_id: string;
}
type Status = 'open' | 'closed' | 'all';
const sortKeyOf =
  (status: Status) =>
  (p: ValuedPosition): SortKey => ({ figure: status === 'closed' ? p.realized : (p.value ?? 0n), asset_id: p.asset_id });
function compare(a: SortKey, b: SortKey): number {
  if (a.figure !== b.figure) return a.figure > b.figure ? -1 : 1;
  return a.asset_id < b.asset_id ? -1 : a.asset_id > b.asset_id ? 1 : 0;
}
const isOpen = (p: ValuedPosition) => p.qty > 0n;
/**
 * Closed: no share held now, and money moved while it was held (a cost brought in, a PnL realized or a
 * fee paid). Not a token a wallet never held, whose row a redemption or merge of the other outcome
 * leaves at zero.
 */
const isClosed = (p: ValuedPosition) => p.qty <= 0n && (p.cost_in > 0n || p.realized !== 0n || p.fees > 0n);

export function positionRoutes(store: AnalyticsStore): Router {
  const router = Router();

  router.get('/positions/:wallet', async (request, response) => {
    const wallet = String(request.params.wallet).toLowerCase();
    const { status } = queryOf(request, 'getPositions');
    const found = await walletPositions(store, wallet);
    if (!found) throw ApiError.notFound(`no indexed trades for wallet ${wallet}`);
    const { markets, positions, asOf } = found;
    const sortKey = sortKeyOf(status);
    const held = positions.filter((p) => isOpen(p) || isClosed(p));
    const listed = held
      .filter((p) => status === 'all' || isOpen(p) === (status === 'open'))
      .sort((a, b) => compare(sortKey(a), sortKey(b)));
    const openCount = held.filter(isOpen).length;
    const page = await keysetPage(request, {
      // The status is part of the cursor's query: a cursor of one order cannot page another.
      filters: { wallet, status },
      shape: ['signed', 'string'],
      fetch: async (after, take) => {
        if (!after) return listed.slice(0, take);
        const key = { figure: BigInt(after[0]!), asset_id: String(after[1]) };
        return listed.filter((p) => compare(sortKey(p), key) > 0).slice(0, take);
      },
      keyOf: (p) => [sortKey(p).figure.toString(), p.asset_id],
      present: (p) => ({
        market_id: p.market_id,
        market_title: markets.get(p.market_id)?.title ?? '',
        market_status: markets.get(p.market_id)?.status ?? null,
        asset_id: p.asset_id,
        outcome: p.outcome,
        size_shares: servedAmount(p.qty),
        size_shares_micro: p.qty.toString(),
        avg_entry_price: isOpen(p) ? servedAmount(divide(p.cost * MICRO, p.qty)) : null,
        mark_price: servedAmountOrNull(p.mark),
        mark_basis: p.mark_basis,
        cost_basis_usdc: servedAmount(p.cost),
        cost_basis_micro: p.cost.toString(),
        current_value_usdc: servedAmountOrNull(p.value),
        unrealized_pnl_usdc: servedAmount(p.unrealized),
        realized_pnl_usdc: servedAmount(p.realized),
        fees_paid_usdc: servedAmount(p.fees),
        opened_at: isOpen(p) ? iso(p.opened_ms) : null,
        last_trade_at: iso(p.last_ms),
      }),
    });
    const coverage = await ledgerCoverage(store);
    // One object (the wallet's report), its list paged inside it: the pagination sits beside the list.
    response.json(
      success({
        wallet,
        as_of: iso(Date.now()),
        data_as_of: asOf.time,
        data_as_of_block: asOf.block,
        coverage,
        open_positions: openCount,
        closed_positions: held.length - openCount,
        positions: page.data,
        pagination: page.pagination,
      }),
    );
  });

  return router;
}
