/**
 * GET /markets/:id/price/ticks: newest first, keyset on (timestamp, tick_id).
 * Bounded work: each outcome token is read on its own in the table's order (asset_id, ts, tick_id),
 * newest first, so a page reads about a page of rows per token however long the history is (one
 * query over both tokens would sort each token's whole history); the two are merged here.
 * Duplicates of a tick not yet merged away by the ReplacingMergeTree are dropped here (`LIMIT 1 BY`
 * or FINAL would defeat the ordered read); when they leave a page short, the read is repeated larger.
 * ClickHouse counts every row an ordered read may touch against max_rows_to_read, not the rows it
 * reads, so these reads lift that limit and stay bounded by their LIMIT and the time limit.
 */
import { queryOf } from '../../http/query.js';
import { Router } from 'express';
import { ApiError } from '../../http/errors.js';
import { keysetPage } from '../../http/keyset.js';
import { timeParam } from '../../http/time-params.js';
import type { PriceTick } from '../../http/types.generated.js';
import { type PriceTickRow, presentPriceTick } from './present.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { requireMarketWithTokens } from '../markets/queries.js';

type TickRow = Omit<PriceTickRow, 'market_id'>;

export function priceTickRoutes(store: AnalyticsStore): Router {
  const router = Router();
  router.get('/markets/:id/price/ticks', async (request, response) => {
    const market = await requireMarketWithTokens(store, request);
    const query = queryOf(request, 'listPriceTicks');
    const kind = query.kind;
    const from = timeParam('from', query.from);
    const to = timeParam('to', query.to);
    if (from !== undefined && to !== undefined && from >= to) throw ApiError.badRequest('from: must be before to');
    const newestFirst = (a: TickRow, b: TickRow) => Number(b.ts_ms) - Number(a.ts_ms) || (a.tick_id < b.tick_id ? 1 : -1);
    response.json(
      await keysetPage<TickRow, PriceTick>(request, {
        filters: { market: market.market_id, kind, from, to },
        shape: ['ms', 'string'],
        defaultLimit: 100,
        fetch: async (after, take) => {
          const read = (asset: string, n: number) =>
            store.query<TickRow>(
              `SELECT tick_id, asset_id, kind, price, best_bid, best_ask, side, size, toUnixTimestamp64Milli(ts) AS ts_ms, source
                 FROM price_ticks
                WHERE asset_id = {asset:String}
                  ${kind ? 'AND kind = {kind:String}' : ''}
                  ${from !== undefined ? 'AND ts >= fromUnixTimestamp64Milli({from:Int64})' : ''}
                  ${to !== undefined ? 'AND ts < fromUnixTimestamp64Milli({to:Int64})' : ''}
                  ${after ? 'AND (ts, tick_id) < (fromUnixTimestamp64Milli({after_ms:Int64}), {after_id:String})' : ''}
                ORDER BY ts DESC, tick_id DESC LIMIT {n:UInt32}`,
              { asset, kind, from, to, n, after_ms: after?.[0], after_id: after?.[1] },
              { limits: { maxRowsToRead: 0 } },
            );
          for (let n = take; ; n *= 2) {
            const perToken = await Promise.all(market.outcome_token_ids.map((asset) => read(asset, n)));
            const unique = [...new Map(perToken.flat().map((row) => [row.tick_id, row])).values()].sort(newestFirst);
            if (unique.length >= take || perToken.every((rows) => rows.length < n) || n >= take * 8) return unique.slice(0, take);
          }
        },
        keyOf: (row) => [Number(row.ts_ms), row.tick_id],
        present: (t) => presentPriceTick({ ...t, market_id: market.market_id }, market),
      }),
    );
  });
  return router;
}
