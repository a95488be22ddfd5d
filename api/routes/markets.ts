/** Market read model: list (keyset over the chosen sort), detail with an indexed-trades snapshot, candles. */
import { Router, type Request } from 'express';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import { decodeCursor, encodeCursor, queryFingerprint } from '../cursor.js';
import { page, success } from '../envelope.js';
import { ApiError } from '../errors.js';
import { timeParam } from '../time-params.js';

interface MarketRow {
  market_id: string;
  gamma_id: string;
  slug: string;
  title: string;
  category: string;
  status: 'active' | 'closed' | 'resolved';
  outcomes: string[];
  outcome_token_ids: string[];
  outcome_prices: number[];
  yes_index: number;
  best_bid: number | null;
  best_ask: number | null;
  last_trade_price: number | null;
  volume_24h_usdc: number;
  volume_total_usdc: number;
  liquidity_usdc: number;
  neg_risk: boolean;
  event_id: string;
  event_slug: string;
  event_title: string;
  resolved_outcome: string | null;
  start_ms: number | null;
  end_ms: number | null;
  closed_ms: number | null;
  created_ms: number | null;
  updated_ms: number;
  source: 'polymarket' | 'simulator';
  sort_value: number;
}

const MARKET_COLUMNS = `market_id, gamma_id, slug, title, category, status, outcomes, outcome_token_ids, outcome_prices,
  yes_index, best_bid, best_ask, last_trade_price, volume_24h_usdc, volume_total_usdc, liquidity_usdc, neg_risk,
  event_id, event_slug, event_title, resolved_outcome,
  toUnixTimestamp64Milli(start_date) AS start_ms, toUnixTimestamp64Milli(end_date) AS end_ms,
  toUnixTimestamp64Milli(closed_at) AS closed_ms, toUnixTimestamp64Milli(created_at) AS created_ms,
  toUnixTimestamp64Milli(updated_at) AS updated_ms, source`;

/** Sort key per `sort` value; `direction` is the order of the first page. Missing dates sort last. */
const SORTS = {
  volume: { expression: 'volume_24h_usdc', direction: 'DESC' },
  volume_total: { expression: 'volume_total_usdc', direction: 'DESC' },
  liquidity: { expression: 'liquidity_usdc', direction: 'DESC' },
  created: { expression: 'ifNull(toUnixTimestamp64Milli(created_at), 0)', direction: 'DESC' },
  end_date: { expression: 'ifNull(toUnixTimestamp64Milli(end_date), 9007199254740991)', direction: 'ASC' },
} as const;

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

function presentMarket(row: MarketRow) {
  const yes = row.outcome_prices[row.yes_index] ?? null;
  const no = row.outcome_prices.length === 2 ? (row.outcome_prices[1 - row.yes_index] ?? null) : null;
  return {
    id: row.market_id,
    gamma_id: row.gamma_id,
    slug: row.slug,
    title: row.title,
    category: row.category,
    status: row.status,
    outcomes: row.outcomes,
    outcome_token_ids: row.outcome_token_ids,
    outcome_prices: row.outcome_prices,
    yes_price: yes,
    no_price: no,
    best_bid: row.best_bid,
    best_ask: row.best_ask,
    spread: row.best_bid !== null && row.best_ask !== null ? Math.round((row.best_ask - row.best_bid) * 1e6) / 1e6 : null,
    last_trade_price: row.last_trade_price,
    volume_24h_usdc: row.volume_24h_usdc,
    volume_total_usdc: row.volume_total_usdc,
    liquidity_usdc: row.liquidity_usdc,
    neg_risk: Boolean(row.neg_risk),
    event: row.event_id ? { id: row.event_id, slug: row.event_slug, title: row.event_title } : null,
    resolved_outcome: row.resolved_outcome,
    start_date: iso(row.start_ms),
    end_date: iso(row.end_ms),
    closed_at: iso(row.closed_ms),
    created_at: iso(row.created_ms),
    updated_at: iso(row.updated_ms)!,
    source: row.source,
  };
}

export async function findMarket(store: AnalyticsStore, idOrSlug: string): Promise<MarketRow | undefined> {
  const column = /^0x[0-9a-fA-F]{64}$/.test(idOrSlug) ? 'market_id' : 'slug';
  const [row] = await store.query<MarketRow>(
    `SELECT ${MARKET_COLUMNS}, 0 AS sort_value FROM markets FINAL WHERE ${column} = {id:String} LIMIT 1`,
    { id: column === 'market_id' ? idOrSlug.toLowerCase() : idOrSlug },
  );
  return row;
}

async function requireMarket(store: AnalyticsStore, request: Request): Promise<MarketRow> {
  const market = await findMarket(store, String(request.params.id));
  if (!market) throw ApiError.notFound(`market not found: ${request.params.id}`);
  return market;
}

const INTERVAL_TABLES = { '5m': 'candles_5m', '1h': 'candles_1h', '1d': 'candles_1d' } as const;

export function marketRoutes(store: AnalyticsStore): Router {
  const router = Router();

  router.get('/markets', async (request, response) => {
    const status = String(request.query.status ?? 'active');
    const sortName = String(request.query.sort ?? 'volume') as keyof typeof SORTS;
    const limit = Number(request.query.limit ?? 50);
    const sort = SORTS[sortName];
    const category = request.query.category ? String(request.query.category) : undefined;
    const search = request.query.search ? String(request.query.search) : undefined;
    const fingerprint = queryFingerprint({ status, sort: sortName, category, search });
    const after = request.query.cursor ? decodeCursor(String(request.query.cursor), fingerprint, ['number', 'string']) : null;
    const comparison = sort.direction === 'DESC' ? '<' : '>';
    const rows = await store.query<MarketRow>(
      `SELECT ${MARKET_COLUMNS}, ${sort.expression} AS sort_value
         FROM markets FINAL
        WHERE ({status:String} = 'all' OR status = {status:String})
          ${category ? 'AND lower(category) = lower({category:String})' : ''}
          ${search ? 'AND (positionCaseInsensitiveUTF8(title, {search:String}) > 0 OR positionCaseInsensitiveUTF8(slug, {search:String}) > 0 OR positionCaseInsensitiveUTF8(event_title, {search:String}) > 0)' : ''}
          ${after ? `AND (sort_value, market_id) ${comparison} ({after_value:Float64}, {after_id:String})` : ''}
        ORDER BY sort_value ${sort.direction}, market_id ${sort.direction}
        LIMIT {take:UInt32}`,
      { status, category, search, take: limit + 1, after_value: after?.[0], after_id: after?.[1] },
    );
    const hasMore = rows.length > limit;
    const pageRows = rows.slice(0, limit);
    const last = pageRows[pageRows.length - 1];
    response.json(
      page(pageRows.map(presentMarket), {
        limit,
        has_more: hasMore,
        next_cursor: hasMore && last ? encodeCursor([Number(last.sort_value), last.market_id], fingerprint) : null,
      }),
    );
  });

  router.get('/markets/categories', async (_request, response) => {
    const rows = await store.query<{ category: string; markets_active: number; markets_total: number; volume_24h_usdc: number }>(
      `SELECT category, countIf(status = 'active') AS markets_active, count() AS markets_total, sum(volume_24h_usdc) AS volume_24h_usdc
         FROM markets FINAL GROUP BY category ORDER BY volume_24h_usdc DESC, category`,
    );
    response.json(
      success(
        rows.map((r) => ({
          ...r,
          markets_active: Number(r.markets_active),
          markets_total: Number(r.markets_total),
          volume_24h_usdc: Math.round(r.volume_24h_usdc * 100) / 100,
        })),
      ),
    );
  });

  router.get('/volume/timeseries', async (request, response) => {
    const days = Number(request.query.range_days ?? 30);
    const rows = await store.query<{ day: string; volume_usdc: number; trade_count: number }>(
      `SELECT toString(toDate(bucket)) AS day, sum(volume_usdc) AS volume_usdc, sum(trade_count) AS trade_count
         FROM candles_1d WHERE bucket >= toStartOfDay(now()) - toIntervalDay({days:UInt32} - 1)
        GROUP BY day`,
      { days },
    );
    const byDay = new Map(rows.map((r) => [r.day, r]));
    const today = Date.parse(new Date().toISOString().slice(0, 10));
    const points = Array.from({ length: days }, (_, i) => {
      const day = new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10);
      const row = byDay.get(day);
      return { date: day, volume_usdc: row ? Math.round(row.volume_usdc * 1e6) / 1e6 : 0, trade_count: row ? Number(row.trade_count) : 0 };
    });
    response.json(success(points));
  });

  router.get('/markets/:id', async (request, response) => {
    const market = await requireMarket(store, request);
    // From the materialized views and the by_market projection, so the cost does not grow with the
    // market's history: 24h figures sum the 5-minute candles of [now - 24h, now) (5-minute resolution).
    const [snapshot] = await store.query<{
      last_yes: number | null;
      last_ms: number | null;
      trades_24h: number;
      volume_24h: number;
      total: number;
      now_ms: number;
    }>(
      `SELECT
         (SELECT yes_price FROM trades WHERE market_id = {id:String} ORDER BY market_id DESC, ts DESC, trade_id DESC LIMIT 1) AS last_yes,
         (SELECT toUnixTimestamp64Milli(ts) FROM trades WHERE market_id = {id:String} ORDER BY market_id DESC, ts DESC, trade_id DESC LIMIT 1) AS last_ms,
         (SELECT sum(trade_count) FROM candles_5m WHERE market_id = {id:String} AND bucket >= now() - INTERVAL 24 HOUR) AS trades_24h,
         (SELECT sum(volume_usdc) FROM candles_5m WHERE market_id = {id:String} AND bucket >= now() - INTERVAL 24 HOUR) AS volume_24h,
         (SELECT sum(trade_count) FROM candles_1d WHERE market_id = {id:String}) AS total,
         toUnixTimestamp64Milli(now64(3)) AS now_ms`,
      { id: market.market_id },
    );
    response.json(
      success({
        ...presentMarket(market),
        snapshot: {
          last_trade_price: snapshot?.last_yes ?? null,
          last_trade_at: iso(snapshot?.last_ms ?? null),
          trades_24h: Number(snapshot?.trades_24h ?? 0),
          volume_24h_usdc_indexed: Math.round(Number(snapshot?.volume_24h ?? 0) * 1e6) / 1e6,
          trades_total: Number(snapshot?.total ?? 0),
          as_of: iso(snapshot?.now_ms ?? Date.now())!,
        },
      }),
    );
  });

  router.get('/markets/:id/ohlcv', async (request, response) => {
    const market = await requireMarket(store, request);
    const interval = String(request.query.interval ?? '1h') as keyof typeof INTERVAL_TABLES;
    const limit = Number(request.query.limit ?? 168);
    const from = timeParam('from', request.query.from) ?? null;
    const to = timeParam('to', request.query.to) ?? null;
    if (from !== null && to !== null && from >= to) throw ApiError.badRequest('from: must be before to');
    const rows = await store.query<{
      bucket_ms: number;
      open: number;
      high: number;
      low: number;
      close: number;
      volume_usdc: number;
      volume_shares: number;
      trade_count: number;
    }>(
      `SELECT * FROM (
         SELECT toUnixTimestamp(bucket) * 1000 AS bucket_ms, argMinMerge(open) AS open, max(high) AS high, min(low) AS low,
                argMaxMerge(close) AS close, sum(volume_usdc) AS volume_usdc, sum(volume_shares) AS volume_shares,
                sum(trade_count) AS trade_count
           FROM ${INTERVAL_TABLES[interval]}
          WHERE market_id = {id:String}
            ${from !== null ? 'AND bucket >= toDateTime({from:Int64} / 1000)' : ''}
            ${to !== null ? 'AND bucket < toDateTime({to:Int64} / 1000)' : ''}
          GROUP BY bucket ORDER BY bucket DESC LIMIT {limit:UInt32}
       ) ORDER BY bucket_ms ASC`,
      { id: market.market_id, limit, from: from ?? undefined, to: to ?? undefined },
    );
    response.json(
      success(
        rows.map((r) => ({
          bucket_start: iso(r.bucket_ms)!,
          interval,
          open: r.open,
          high: r.high,
          low: r.low,
          close: r.close,
          volume_usdc: Math.round(r.volume_usdc * 1e6) / 1e6,
          volume_shares: Math.round(r.volume_shares * 1e6) / 1e6,
          trade_count: Number(r.trade_count),
        })),
      ),
    );
  });

  return router;
}
