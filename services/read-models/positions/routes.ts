/**
 * A wallet's open positions from its (wallet, token) rows, valued at the current marks
 * (position-value.ts), largest value first, a page at a time (a whale holds thousands). The response
 * carries data_as_of: how far the ledger held every change when the rows served were read (a
 * wallet's snapshot lags the ledger by up to a refresher run: wallet-snapshots.ts), and coverage: from
 * which block the positions are whole (coverage.ts).
 */
import { Router } from 'express';
import { success } from '../../http/envelope.js';
import { ApiError } from '../../http/errors.js';
import { keysetPage } from '../../http/keyset.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { divide, MICRO, servedAmount, servedAmountOrNull } from '../../shared/decimal.js';
import { iso } from '../../shared/time.js';
import { ledgerCoverage } from './coverage.js';
import type { ValuedPosition } from './position-value.js';
import { walletPositions } from './queries.js';

/** Page order: value descending (unmarked as 0), then the token id, which is unique per wallet. */
interface SortKey {
  value: bigint;
  asset_id: string;
}
const sortKey = (p: ValuedPosition): SortKey => ({ value: p.value ?? 0n, asset_id: p.asset_id });
function compare(a: SortKey, b: SortKey): number {
  if (a.value !== b.value) return a.value > b.value ? -1 : 1;
  return a.asset_id < b.asset_id ? -1 : a.asset_id > b.asset_id ? 1 : 0;
}

export function positionRoutes(store: AnalyticsStore): Router {
  const router = Router();

  router.get('/positions/:wallet', async (request, response) => {
    const wallet = String(request.params.wallet).toLowerCase();
    const found = await walletPositions(store, wallet);
    if (!found) throw ApiError.notFound(`no indexed trades for wallet ${wallet}`);
    const { markets, positions, asOf } = found;
    const open = positions.filter((p) => p.qty > 0n).sort((a, b) => compare(sortKey(a), sortKey(b)));
    const page = await keysetPage(request, {
      filters: { wallet },
      shape: ['id', 'string'],
      fetch: async (after, take) => {
        if (!after) return open.slice(0, take);
        const key = { value: BigInt(after[0]!), asset_id: String(after[1]) };
        return open.filter((p) => compare(sortKey(p), key) > 0).slice(0, take);
      },
      keyOf: (p) => [sortKey(p).value.toString(), p.asset_id],
      present: (p) => ({
        market_id: p.market_id,
        market_title: markets.get(p.market_id)?.title ?? '',
        market_status: markets.get(p.market_id)?.status ?? null,
        asset_id: p.asset_id,
        outcome: p.outcome,
        size_shares: servedAmount(p.qty),
        size_shares_micro: p.qty.toString(),
        avg_entry_price: servedAmount(divide(p.cost * MICRO, p.qty)),
        mark_price: servedAmountOrNull(p.mark),
        mark_basis: p.mark_basis,
        cost_basis_usdc: servedAmount(p.cost),
        cost_basis_micro: p.cost.toString(),
        current_value_usdc: servedAmountOrNull(p.value),
        unrealized_pnl_usdc: servedAmount(p.unrealized),
        realized_pnl_usdc: servedAmount(p.realized),
        fees_paid_usdc: servedAmount(p.fees),
        opened_at: iso(p.opened_ms),
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
        open_positions: open.length,
        positions: page.data,
        pagination: page.pagination,
      }),
    );
  });

  return router;
}
