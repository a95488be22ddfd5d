/** Reads of the `markets` table shared by every route that takes a market id or slug. */
import type { Request } from 'express';
import { ApiError } from '../../../api/errors.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
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
