/** Events and series from Gamma, busiest first (24h volume), keyset-paginated. */
import { Router, type Request } from 'express';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import { decodeCursor, encodeCursor, queryFingerprint } from '../cursor.js';
import { page } from '../envelope.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

async function keysetPage<Row extends { volume_24h_usdc: number; id: string }>(
  store: AnalyticsStore,
  request: Request,
  sql: (afterCondition: string) => string,
  params: Record<string, unknown>,
  present: (row: Row) => unknown,
) {
  const limit = Number(request.query.limit ?? 50);
  const fingerprint = queryFingerprint(params);
  const after = request.query.cursor ? decodeCursor(String(request.query.cursor), fingerprint, ['number', 'string']) : null;
  const rows = await store.query<Row>(sql(after ? 'AND (volume_24h_usdc, id) < ({after_value:Float64}, {after_id:String})' : ''), {
    ...params,
    take: limit + 1,
    after_value: after?.[0],
    after_id: after?.[1],
  });
  const hasMore = rows.length > limit;
  const pageRows = rows.slice(0, limit);
  const last = pageRows[pageRows.length - 1];
  return page(pageRows.map(present), {
    limit,
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor([Number(last.volume_24h_usdc), last.id], fingerprint) : null,
  });
}

export function catalogRoutes(store: AnalyticsStore): Router {
  const router = Router();

  router.get('/events', async (request, response) => {
    const status = String(request.query.status ?? 'active');
    const category = request.query.category ? String(request.query.category) : undefined;
    type EventRow = Record<string, any> & { volume_24h_usdc: number; id: string };
    response.json(
      await keysetPage<EventRow>(
        store,
        request,
        (
          afterCondition,
        ) => `SELECT event_id AS id, slug, title, category, active, closed, neg_risk, volume_usdc, volume_24h_usdc, liquidity_usdc,
                   open_interest_usdc, market_ids, series_ids, source,
                   toUnixTimestamp64Milli(start_date) AS start_ms, toUnixTimestamp64Milli(end_date) AS end_ms
              FROM gamma_events FINAL
             WHERE ({status:String} = 'all' OR ({status:String} = 'closed') = closed)
               ${category ? 'AND lower(category) = lower({category:String})' : ''}
               ${afterCondition}
             ORDER BY volume_24h_usdc DESC, id DESC LIMIT {take:UInt32}`,
        { status, category },
        (r) => ({
          id: r.id,
          slug: r.slug,
          title: r.title,
          category: r.category,
          status: r.closed ? 'closed' : 'active',
          neg_risk: Boolean(r.neg_risk),
          start_date: iso(r.start_ms),
          end_date: iso(r.end_ms),
          volume_usdc: r.volume_usdc,
          volume_24h_usdc: r.volume_24h_usdc,
          liquidity_usdc: r.liquidity_usdc,
          open_interest_usdc: r.open_interest_usdc,
          market_ids: r.market_ids,
          series_ids: r.series_ids,
          source: r.source,
        }),
      ),
    );
  });

  router.get('/series', async (request, response) => {
    type SeriesRow = Record<string, any> & { volume_24h_usdc: number; id: string };
    response.json(
      await keysetPage<SeriesRow>(
        store,
        request,
        (
          afterCondition,
        ) => `SELECT series_id AS id, slug, ticker, title, series_type, recurrence, active, closed, volume_usdc, volume_24h_usdc,
                   liquidity_usdc, event_ids, source
              FROM gamma_series FINAL WHERE 1 ${afterCondition}
             ORDER BY volume_24h_usdc DESC, id DESC LIMIT {take:UInt32}`,
        {},
        (r) => ({
          id: r.id,
          slug: r.slug,
          ticker: r.ticker,
          title: r.title,
          series_type: r.series_type,
          recurrence: r.recurrence,
          status: r.closed ? 'closed' : 'active',
          volume_usdc: r.volume_usdc,
          volume_24h_usdc: r.volume_24h_usdc,
          liquidity_usdc: r.liquidity_usdc,
          event_ids: r.event_ids,
          source: r.source,
        }),
      ),
    );
  });

  return router;
}
