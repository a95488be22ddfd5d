/** GET /events and /series from Gamma, busiest first (24h volume), keyset-paginated. */
import { queryOf } from '../../http/query.js';
import { Router } from 'express';
import { keysetPage } from '../../http/keyset.js';
import type { Event, Series } from '../../http/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { isoOrNull } from '../../shared/time.js';
import { servedAmount } from '../../shared/decimal.js';

interface EventRow {
  id: string;
  slug: string;
  title: string;
  category: string;
  closed: boolean;
  neg_risk: boolean;
  volume_usdc: number;
  volume_24h_usdc: number;
  liquidity_usdc: number;
  open_interest_usdc: number;
  market_ids: string[];
  series_ids: string[];
  source: string;
  start_date_ms: number | null;
  end_date_ms: number | null;
}

interface SeriesRow {
  id: string;
  slug: string;
  ticker: string;
  title: string;
  series_type: string;
  recurrence: string;
  closed: boolean;
  volume_usdc: number;
  volume_24h_usdc: number;
  liquidity_usdc: number;
  event_ids: string[];
  source: string;
}

/** Both lists walk (volume_24h_usdc, id) downwards. */
const AFTER = 'AND (volume_24h_usdc, id) < ({after_value:Float64}, {after_id:String})';
const byVolume = <Row extends { volume_24h_usdc: number; id: string }>(row: Row) => [Number(row.volume_24h_usdc), row.id];

export function catalogRoutes(store: AnalyticsStore): Router {
  const router = Router();

  router.get('/events', async (request, response) => {
    const query = queryOf(request, 'listEvents');
    const status = query.status;
    const category = query.category || undefined;
    response.json(
      await keysetPage<EventRow, Event>(request, {
        filters: { status, category },
        shape: ['number', 'string'],
        fetch: (after, take) =>
          store.query<EventRow>(
            `SELECT event_id AS id, slug, title, category, active, closed, neg_risk, volume_usdc, volume_24h_usdc, liquidity_usdc,
                    open_interest_usdc, market_ids, series_ids, source,
                    toUnixTimestamp64Milli(start_date) AS start_date_ms, toUnixTimestamp64Milli(end_date) AS end_date_ms
               FROM gamma_events FINAL
              WHERE ({status:String} = 'all' OR ({status:String} = 'closed') = closed)
                ${category ? 'AND lower(category) = lower({category:String})' : ''}
                ${after ? AFTER : ''}
              ORDER BY volume_24h_usdc DESC, id DESC LIMIT {take:UInt32}`,
            { status, category, take, after_value: after?.[0], after_id: after?.[1] },
          ),
        keyOf: byVolume,
        present: (r) => ({
          id: r.id,
          slug: r.slug,
          title: r.title,
          category: r.category,
          status: r.closed ? 'closed' : 'active',
          neg_risk: Boolean(r.neg_risk),
          start_date: isoOrNull(r.start_date_ms),
          end_date: isoOrNull(r.end_date_ms),
          volume_usdc: servedAmount(r.volume_usdc),
          volume_24h_usdc: servedAmount(r.volume_24h_usdc),
          liquidity_usdc: servedAmount(r.liquidity_usdc),
          open_interest_usdc: servedAmount(r.open_interest_usdc),
          market_ids: r.market_ids,
          series_ids: r.series_ids,
          source: r.source,
        }),
      }),
    );
  });

  router.get('/series', async (request, response) => {
    response.json(
      await keysetPage<SeriesRow, Series>(request, {
        filters: {},
        shape: ['number', 'string'],
        fetch: (after, take) =>
          store.query<SeriesRow>(
            `SELECT series_id AS id, slug, ticker, title, series_type, recurrence, active, closed, volume_usdc, volume_24h_usdc,
                    liquidity_usdc, event_ids, source
               FROM gamma_series FINAL WHERE 1 ${after ? AFTER : ''}
              ORDER BY volume_24h_usdc DESC, id DESC LIMIT {take:UInt32}`,
            { take, after_value: after?.[0], after_id: after?.[1] },
          ),
        keyOf: byVolume,
        present: (r) => ({
          id: r.id,
          slug: r.slug,
          ticker: r.ticker,
          title: r.title,
          series_type: r.series_type,
          recurrence: r.recurrence,
          status: r.closed ? 'closed' : 'active',
          volume_usdc: servedAmount(r.volume_usdc),
          volume_24h_usdc: servedAmount(r.volume_24h_usdc),
          liquidity_usdc: servedAmount(r.liquidity_usdc),
          event_ids: r.event_ids,
          source: r.source,
        }),
      }),
    );
  });

  return router;
}
