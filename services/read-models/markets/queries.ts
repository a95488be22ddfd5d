/** Reads of the `markets` table shared by every route that takes a market id or slug. */
import type { Request } from 'express';
import { ApiError } from '../../http/errors.js';
import type { CatalogEntry } from '../../chain/catalog.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import type { MarketUpserted } from '../../events/types.js';
import type { LookupResult, MarketLookupPort } from '../../ports/market-lookup.js';
import { isConditionId } from '../../shared/ids.js';

export interface MarketRow {
  market_id: string;
  gamma_id: string;
  slug: string;
  title: string;
  category: string;
  status: 'active' | 'closed' | 'resolved' | 'voided';
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
  start_date_ms: number | null;
  end_date_ms: number | null;
  closed_at_ms: number | null;
  created_at_ms: number | null;
  updated_at_ms: number;
  source: 'polymarket' | 'simulator';
}

export const MARKET_COLUMNS = `market_id, gamma_id, slug, title, category, status, outcomes, outcome_token_ids, outcome_prices,
  yes_index, best_bid, best_ask, last_trade_price, volume_24h_usdc, volume_total_usdc, liquidity_usdc, neg_risk,
  event_id, event_slug, event_title, resolved_outcome,
  toUnixTimestamp64Milli(start_date) AS start_date_ms, toUnixTimestamp64Milli(end_date) AS end_date_ms,
  toUnixTimestamp64Milli(closed_at) AS closed_at_ms, toUnixTimestamp64Milli(created_at) AS created_at_ms,
  toUnixTimestamp64Milli(updated_at) AS updated_at_ms, source`;

export async function findMarket(store: AnalyticsStore, idOrSlug: string): Promise<MarketRow | undefined> {
  const column = isConditionId(idOrSlug) ? 'market_id' : 'slug';
  const [row] = await store.query<MarketRow>(`SELECT ${MARKET_COLUMNS} FROM markets FINAL WHERE ${column} = {id:String} LIMIT 1`, {
    id: column === 'market_id' ? idOrSlug.toLowerCase() : idOrSlug,
  });
  return row;
}

/** The market named by the `:id` path parameter, or 404. */
export async function requireMarket(store: AnalyticsStore, request: Request): Promise<MarketRow> {
  const market = await findMarket(store, String(request.params.id));
  if (!market) throw ApiError.notFound(`market not found: ${request.params.id}`);
  return market;
}

const MISSING_REASONS: Record<Exclude<LookupResult, { found: MarketUpserted }>['missing'], string> = {
  'unknown-upstream': 'upstream does not list it either',
  'not-a-market-id': 'not a condition id (0x + 64 hex) or a slug',
  'rate-limited': 'not in the catalog yet and upstream lookups are at their rate limit; retry in a few seconds',
  'timed-out': 'not in the catalog yet and upstream did not answer in time; retry later',
  'upstream-error': 'not in the catalog yet and the upstream lookup failed; retry later',
};

/**
 * The market named by `:id` from the catalog, else from upstream on demand (bounded; see
 * services/ingest/market-lookup.ts), else 404 saying why.
 */
export async function requireMarketOrLookUp(
  store: AnalyticsStore,
  request: Request,
  lookup: MarketLookupPort | undefined,
): Promise<MarketRow> {
  const idOrSlug = String(request.params.id);
  const market = await findMarket(store, idOrSlug);
  if (market) return market;
  if (!lookup) throw ApiError.notFound(`market not found: ${idOrSlug}`);
  const result = await lookup.lookup(idOrSlug);
  if ('found' in result) return marketRowOf(result.found);
  throw ApiError.notFound(`market not found: ${idOrSlug} (${MISSING_REASONS[result.missing]})`);
}

/** A market event as the row the sink will write for it (for answering before it is indexed). */
function marketRowOf(m: MarketUpserted): MarketRow {
  return {
    market_id: m.market_id,
    gamma_id: m.gamma_id,
    slug: m.slug,
    title: m.title,
    category: m.category,
    status: m.status,
    outcomes: m.outcomes,
    outcome_token_ids: m.outcome_token_ids,
    outcome_prices: m.outcome_prices,
    yes_index: m.yes_index,
    best_bid: m.best_bid,
    best_ask: m.best_ask,
    last_trade_price: m.last_trade_price,
    volume_24h_usdc: m.volume_24h_usdc,
    volume_total_usdc: m.volume_total_usdc,
    liquidity_usdc: m.liquidity_usdc,
    neg_risk: m.neg_risk,
    event_id: m.event_id_upstream,
    event_slug: m.event_slug,
    event_title: m.event_title,
    resolved_outcome: m.resolved_outcome,
    start_date_ms: m.start_ms,
    end_date_ms: m.end_ms,
    closed_at_ms: m.closed_ms,
    created_at_ms: m.created_ms,
    updated_at_ms: m.updated_at_ms,
    source: m.source,
  };
}

/** The market named by `:id` (or `?market=`), or 404; also 404 when it has no outcome token ids (no book, no ticks). */
export async function requireMarketWithTokens(store: AnalyticsStore, request: Request): Promise<MarketRow> {
  const idOrSlug = String(request.params.id ?? request.query.market);
  const market = await findMarket(store, idOrSlug);
  if (!market) throw ApiError.notFound(`market not found: ${idOrSlug}`);
  if (market.outcome_token_ids.length === 0) {
    throw ApiError.notFound(`market ${market.market_id} has no indexed outcome token ids, so it has no order book`);
  }
  return market;
}

/** Every market's tokens and grouping, for the chain source's catalog (a few hundred thousand rows at most). */
export async function knownMarkets(store: AnalyticsStore): Promise<CatalogEntry[]> {
  return store.query<CatalogEntry>(
    'SELECT market_id, title, outcomes, outcome_token_ids, yes_index, neg_risk, neg_risk_market_id, market_maker_address FROM markets FINAL',
  );
}
