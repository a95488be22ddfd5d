/** GET /markets (keyset over the chosen sort), /markets/categories and /markets/:id (detail with an indexed-trades snapshot). */
import { queryOf } from '../../http/query.js';
import { Router } from 'express';
import { success } from '../../http/envelope.js';
import { keysetPage } from '../../http/keyset.js';
import type { Category, Market, MarketDetail } from '../../http/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { iso, isoOrNull } from '../../shared/time.js';
import { marketLifecycle } from '../market-lifecycle/queries.js';
import type { MarketLookupPort } from '../../ports/market-lookup.js';
import { MARKET_COLUMNS, type MarketRow, requireMarketOrLookUp } from './queries.js';
import { servedAmount, servedAmountOrNull } from '../../shared/decimal.js';
import { CHAIN_BUCKET, INTERVAL_SECONDS, INTERVAL_TABLES } from '../candles/routes.js';
import { chainCoverage } from '../chain-ledger/queries.js';
import { CHAIN_CANDLE_TABLES } from '../chain-ledger/retraction.js';

/** Sort key per `sort` value; `direction` is the order of the first page. Missing dates sort last. */
const SORTS = {
  volume: { expression: 'volume_24h_usdc', direction: 'DESC' },
  volume_total: { expression: 'volume_total_usdc', direction: 'DESC' },
  liquidity: { expression: 'liquidity_usdc', direction: 'DESC' },
  created: { expression: 'ifNull(toUnixTimestamp64Milli(created_at), 0)', direction: 'DESC' },
  end_date: { expression: 'ifNull(toUnixTimestamp64Milli(end_date), 9007199254740991)', direction: 'ASC' },
} as const;

function presentMarket(row: MarketRow): Market {
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
    outcome_prices: row.outcome_prices.map((p) => servedAmount(p)),
    yes_price: servedAmountOrNull(yes),
    no_price: servedAmountOrNull(no),
    best_bid: servedAmountOrNull(row.best_bid),
    best_ask: servedAmountOrNull(row.best_ask),
    spread: row.best_bid !== null && row.best_ask !== null ? servedAmount(row.best_ask - row.best_bid) : null,
    last_trade_price: servedAmountOrNull(row.last_trade_price),
    volume_24h_usdc: servedAmount(row.volume_24h_usdc),
    volume_total_usdc: servedAmount(row.volume_total_usdc),
    liquidity_usdc: servedAmount(row.liquidity_usdc),
    neg_risk: Boolean(row.neg_risk),
    event: row.event_id ? { id: row.event_id, slug: row.event_slug, title: row.event_title } : null,
    resolved_outcome: row.resolved_outcome,
    start_date: isoOrNull(row.start_date_ms),
    end_date: isoOrNull(row.end_date_ms),
    closed_at: isoOrNull(row.closed_at_ms),
    created_at: isoOrNull(row.created_at_ms),
    updated_at: iso(row.updated_at_ms),
    source: row.source,
  };
}

/**
 * The trade count and volume of a market's candles of one interval, each bucket from one source as
 * /ohlcv takes it: the chain candles where the chain's coverage holds the whole bucket, the Data API
 * candles elsewhere, so a match is counted once whichever sources run.
 */
function bucketsOf(interval: '5m', chain: boolean, range: string): string {
  const inChain = CHAIN_BUCKET.replace('{seconds:UInt32}', String(INTERVAL_SECONDS[interval]));
  const dataApi = `SELECT sum(trade_count) AS trades, sum(volume_usdc) AS volume FROM ${INTERVAL_TABLES[interval]}
     WHERE market_id = {id:String} ${chain ? `AND NOT ${inChain}` : ''} ${range}`;
  if (!chain) return dataApi;
  return `${dataApi} UNION ALL SELECT sum(trade_count), sum(volume_usdc_micro) / 1e6 FROM ${CHAIN_CANDLE_TABLES[interval]}
     WHERE market_id = {id:String} AND ${inChain} ${range}`;
}

export function marketRoutes(store: AnalyticsStore, lookup?: MarketLookupPort, catalogNotice?: () => string | null): Router {
  const router = Router();

  router.get('/markets', async (request, response) => {
    const query = queryOf(request, 'listMarkets');
    const status = query.status;
    const sortName = query.sort;
    const sort = SORTS[sortName];
    const category = query.category || undefined;
    const search = query.search || undefined;
    const comparison = sort.direction === 'DESC' ? '<' : '>';
    type Listed = MarketRow & { sort_value: number };
    const listed = await keysetPage<Listed, Market>(request, {
      filters: { status, sort: sortName, category, search },
      shape: ['number', 'string'],
      fetch: (after, take) =>
        store.query<Listed>(
          `SELECT ${MARKET_COLUMNS}, ${sort.expression} AS sort_value
               FROM markets FINAL
              WHERE ({status:String} = 'all' OR status = {status:String})
                ${category ? 'AND lower(category) = lower({category:String})' : ''}
                ${search ? 'AND (positionCaseInsensitiveUTF8(title, {search:String}) > 0 OR positionCaseInsensitiveUTF8(slug, {search:String}) > 0 OR positionCaseInsensitiveUTF8(event_title, {search:String}) > 0)' : ''}
                ${after ? `AND (sort_value, market_id) ${comparison} ({after_value:Float64}, {after_id:String})` : ''}
              ORDER BY sort_value ${sort.direction}, market_id ${sort.direction}
              LIMIT {take:UInt32}`,
          { status, category, search, take, after_value: after?.[0], after_id: after?.[1] },
        ),
      keyOf: (row) => [Number(row.sort_value), row.market_id],
      present: presentMarket,
    });
    // An empty list says why when no catalog has been indexed yet (an offline start).
    const notice = listed.data.length === 0 ? (catalogNotice?.() ?? null) : null;
    response.json(notice ? { ...listed, notice } : listed);
  });

  router.get('/markets/categories', async (_request, response) => {
    const rows = await store.query<{ category: string; markets_active: number; markets_total: number; volume_24h_usdc: number }>(
      `SELECT category, countIf(status = 'active') AS markets_active, count() AS markets_total, sum(volume_24h_usdc) AS volume_24h_usdc
         FROM markets FINAL GROUP BY category ORDER BY volume_24h_usdc DESC, category`,
    );
    const categories: Category[] = rows.map((r) => ({
      category: r.category,
      markets_active: Number(r.markets_active),
      markets_total: Number(r.markets_total),
      volume_24h_usdc: Math.round(r.volume_24h_usdc * 100) / 100,
    }));
    response.json(success(categories));
  });

  router.get('/markets/:id', async (request, response) => {
    const market = await requireMarketOrLookUp(store, request, lookup);
    // From the materialized views and the by_market projection: 24h figures sum the 5-minute candles of
    // [now - 24h, now), the total all of them (a row per 5 minutes of trading at most), each bucket from
    // one source as /ohlcv takes it. Five minutes rather than days: a day the chain covers only in part
    // would come wholly from the Data API, which can lag the chain for a new market (a chain-covered
    // market then showed trades in its feed and 0 in trades_total).
    const coverage = await chainCoverage(store);
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
         (SELECT sum(trades) FROM (${bucketsOf('5m', coverage !== null, 'AND bucket >= now() - INTERVAL 24 HOUR')})) AS trades_24h,
         (SELECT sum(volume) FROM (${bucketsOf('5m', coverage !== null, 'AND bucket >= now() - INTERVAL 24 HOUR')})) AS volume_24h,
         (SELECT sum(trades) FROM (${bucketsOf('5m', coverage !== null, '')})) AS total,
         toUnixTimestamp64Milli(now64(3)) AS now_ms`,
      { id: market.market_id, covered_from: coverage?.firstMs, covered_to: coverage?.lastMs },
    );
    const lifecycle = await marketLifecycle(store, market.market_id);
    const presented = presentMarket(market);
    const detail: MarketDetail = {
      ...presented,
      // The lifecycle is the state machine (it also follows the CLOB's resolution messages); the
      // catalog row can trail it by a poll.
      status: lifecycle?.state ?? presented.status,
      lifecycle,
      snapshot: {
        last_trade_price: snapshot?.last_yes ?? null,
        last_trade_at: isoOrNull(snapshot?.last_ms),
        trades_24h: Number(snapshot?.trades_24h ?? 0),
        volume_24h_usdc_indexed: servedAmount(Number(snapshot?.volume_24h ?? 0)),
        trades_total: Number(snapshot?.total ?? 0),
        as_of: iso(snapshot?.now_ms ?? Date.now()),
      },
    };
    response.json(success(detail));
  });

  return router;
}
