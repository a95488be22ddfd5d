/** GET /markets/:id/oi: the latest open interest and up to 200 earlier snapshots, oldest first. */
import { Router } from 'express';
import { success } from '../../http/envelope.js';
import type { OpenInterest } from '../../http/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { iso } from '../../shared/time.js';
import { requireMarket } from '../markets/queries.js';
import { servedAmount } from '../../shared/decimal.js';

export function openInterestRoutes(store: AnalyticsStore): Router {
  const router = Router();
  router.get('/markets/:id/oi', async (request, response) => {
    const market = await requireMarket(store, request);
    const rows = await store.query<{ open_interest_usdc: number; snapshot_at_ms: number; source: string }>(
      `SELECT open_interest_usdc, toUnixTimestamp64Milli(snapshot_at) AS snapshot_at_ms, source FROM open_interest FINAL
        WHERE market_id = {id:String} ORDER BY snapshot_at DESC LIMIT 200`,
      { id: market.market_id },
    );
    const latest = rows[0];
    // A known market with no snapshot yet is empty, not missing: the 404 is for unknown markets.
    const body: OpenInterest = {
      market_id: market.market_id,
      open_interest_usdc: latest ? servedAmount(latest.open_interest_usdc) : null,
      as_of: latest ? iso(latest.snapshot_at_ms) : null,
      method: 'upstream Data API /oi: collateral locked in the market (complete sets outstanding, USDC)',
      source: latest?.source ?? null,
      history: rows.reverse().map((r) => ({ timestamp: iso(r.snapshot_at_ms), open_interest_usdc: servedAmount(r.open_interest_usdc) })),
    };
    response.json(success(body));
  });
  return router;
}
