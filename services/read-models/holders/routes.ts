/** GET /markets/:id/holders: the latest snapshot's holders per outcome, largest first. */
import { Router } from 'express';
import { success } from '../../http/envelope.js';
import type { Holders } from '../../http/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { iso } from '../../shared/time.js';
import { requireMarket } from '../markets/queries.js';
import { servedAmount } from '../../shared/decimal.js';

export function holderRoutes(store: AnalyticsStore): Router {
  const router = Router();
  router.get('/markets/:id/holders', async (request, response) => {
    const market = await requireMarket(store, request);
    const rows = await store.query<{ asset_id: string; wallet: string; amount: number; snapshot_at_ms: number; source: string }>(
      `SELECT asset_id, wallet, amount, toUnixTimestamp64Milli(snapshot_at) AS snapshot_at_ms, source
         FROM market_holders FINAL
        WHERE market_id = {id:String}
          AND snapshot_at = (SELECT max(snapshot_at) FROM market_holders WHERE market_id = {id:String})
        ORDER BY asset_id, amount DESC`,
      { id: market.market_id },
    );
    // A known market with no snapshot yet is empty, not missing: the 404 is for unknown markets.
    const body: Holders = {
      market_id: market.market_id,
      as_of: rows[0] ? iso(rows[0].snapshot_at_ms) : null,
      source: rows[0]?.source ?? null,
      outcomes: market.outcome_token_ids.map((assetId, index) => ({
        outcome: market.outcomes[index] ?? String(index),
        asset_id: assetId,
        holders: rows
          .filter((r) => r.asset_id === assetId)
          .map((r, i) => ({ rank: i + 1, wallet: r.wallet, amount_shares: servedAmount(r.amount) })),
      })),
    };
    response.json(success(body));
  });
  return router;
}
