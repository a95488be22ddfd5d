/** GET /markets/:id/price/ticks: newest first, keyset on (timestamp, tick_id). */
import { Router } from 'express';
import { keysetPage } from '../../../api/keyset.js';
import type { PriceTick } from '../../../api/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { iso } from '../../shared/time.js';
import { requireMarketWithTokens } from '../markets/queries.js';

interface TickRow {
  tick_id: string;
  asset_id: string;
  kind: string;
  price: number;
  best_bid: number | null;
  best_ask: number | null;
  side: string | null;
  size: number | null;
  ts_ms: number;
  source: string;
}

export function priceTickRoutes(store: AnalyticsStore): Router {
  const router = Router();
  router.get('/markets/:id/price/ticks', async (request, response) => {
    const market = await requireMarketWithTokens(store, request);
    const kind = request.query.kind ? String(request.query.kind) : undefined;
    const outcomeOf = (assetId: string) => market.outcomes[market.outcome_token_ids.indexOf(assetId)] ?? '';
    response.json(
      await keysetPage<TickRow, PriceTick>(request, {
        filters: { market: market.market_id, kind },
        shape: ['ms', 'string'],
        defaultLimit: 100,
        fetch: (after, take) =>
          store.query<TickRow>(
            `SELECT tick_id, asset_id, kind, price, best_bid, best_ask, side, size, toUnixTimestamp64Milli(ts) AS ts_ms, source
               FROM price_ticks FINAL
              WHERE asset_id IN {tokens:Array(String)}
                ${kind ? 'AND kind = {kind:String}' : ''}
                ${after ? 'AND (ts, tick_id) < (fromUnixTimestamp64Milli({after_ms:Int64}), {after_id:String})' : ''}
              ORDER BY ts DESC, tick_id DESC LIMIT {take:UInt32}`,
            { tokens: market.outcome_token_ids, kind, take, after_ms: after?.[0], after_id: after?.[1] },
          ),
        keyOf: (row) => [Number(row.ts_ms), row.tick_id],
        present: (t) => ({
          tick_id: t.tick_id,
          asset_id: t.asset_id,
          outcome: outcomeOf(t.asset_id),
          kind: t.kind,
          price: t.price,
          best_bid: t.best_bid,
          best_ask: t.best_ask,
          side: t.side,
          size_shares: t.size,
          timestamp: iso(t.ts_ms),
          source: t.source,
        }),
      }),
    );
  });
  return router;
}
