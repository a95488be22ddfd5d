/**
 * What paper trading needs to know about a market, read from the markets and market-resolutions
 * read models: its outcomes and tokens, lifecycle, tick size and fee schedule.
 */
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { isConditionId } from '../shared/ids.js';

export interface MarketTerms {
  marketId: string;
  title: string;
  category: string;
  status: 'active' | 'closed' | 'resolved' | 'voided';
  outcomes: string[];
  outcomeTokenIds: string[];
  yesIndex: number;
  tickSize: number | null;
  acceptingOrders: boolean | null;
  endDateMs: number | null;
  fees: { fees_enabled: boolean; fee_rate: number | null; fee_exponent: number | null; fee_taker_only: boolean | null };
  source: string;
  /** Set once a resolution was indexed (it can precede the market record's own status change). */
  resolution: { payouts: number[]; winningOutcome: string | null } | null;
}

interface Row {
  market_id: string;
  title: string;
  category: string;
  status: MarketTerms['status'];
  outcomes: string[];
  outcome_token_ids: string[];
  yes_index: number;
  tick_size: number | null;
  accepting_orders: boolean | null;
  end_ms: number | string | null;
  fees_enabled: boolean;
  fee_rate: number | null;
  fee_exponent: number | null;
  fee_taker_only: boolean | null;
  source: string;
}

const COLUMNS = `market_id, title, category, status, outcomes, outcome_token_ids, yes_index, tick_size, accepting_orders,
  toUnixTimestamp64Milli(end_date) AS end_ms, fees_enabled, fee_rate, fee_exponent, fee_taker_only, source`;

function toTerms(row: Row, resolution: MarketTerms['resolution']): MarketTerms {
  return {
    marketId: row.market_id,
    title: row.title,
    category: row.category,
    status: row.status,
    outcomes: row.outcomes,
    outcomeTokenIds: row.outcome_token_ids,
    yesIndex: Number(row.yes_index),
    tickSize: row.tick_size,
    acceptingOrders: row.accepting_orders,
    endDateMs: row.end_ms === null ? null : Number(row.end_ms),
    fees: {
      fees_enabled: Boolean(row.fees_enabled),
      fee_rate: row.fee_rate,
      fee_exponent: row.fee_exponent,
      fee_taker_only: row.fee_taker_only,
    },
    source: row.source,
    resolution,
  };
}

async function resolutionsOf(store: AnalyticsStore, marketIds: string[]) {
  if (marketIds.length === 0) return new Map<string, NonNullable<MarketTerms['resolution']>>();
  const rows = await store.query<{ market_id: string; payouts: number[]; winning_outcome: string | null }>(
    'SELECT market_id, payouts, winning_outcome FROM market_resolutions FINAL WHERE market_id IN {ids:Array(String)}',
    { ids: marketIds },
  );
  return new Map(rows.map((r) => [r.market_id, { payouts: r.payouts, winningOutcome: r.winning_outcome }]));
}

/** The market named by a condition id or slug, or null. */
export async function marketTerms(store: AnalyticsStore, idOrSlug: string): Promise<MarketTerms | null> {
  const byId = isConditionId(idOrSlug);
  if (byId) return (await marketTermsById(store, [idOrSlug.toLowerCase()])).get(idOrSlug.toLowerCase()) ?? null;
  const [row] = await store.query<Row>(`SELECT ${COLUMNS} FROM markets FINAL WHERE slug = {id:String} LIMIT 1`, { id: idOrSlug });
  if (!row) return null;
  const resolutions = await resolutionsOf(store, [row.market_id]);
  return toTerms(row, resolutions.get(row.market_id) ?? null);
}

/** Several markets by condition id (valuation and risk alerts). */
export async function marketTermsById(store: AnalyticsStore, marketIds: readonly string[]): Promise<Map<string, MarketTerms>> {
  const ids = [...new Set(marketIds)];
  if (ids.length === 0) return new Map();
  const [rows, resolutions] = await Promise.all([
    store.query<Row>(`SELECT ${COLUMNS} FROM markets FINAL WHERE market_id IN {ids:Array(String)}`, { ids }),
    resolutionsOf(store, ids),
  ]);
  return new Map(rows.map((row) => [row.market_id, toTerms(row, resolutions.get(row.market_id) ?? null)]));
}

/** YES / NO name the market's YES outcome and the other one; any other text must match an outcome name (case-insensitive). */
export function outcomeIndexOf(terms: MarketTerms, outcome: string): number {
  const wanted = outcome.trim().toLowerCase();
  const named = terms.outcomes.findIndex((o) => o.toLowerCase() === wanted);
  if (named >= 0) return named;
  if (terms.outcomes.length === 2 && wanted === 'yes') return terms.yesIndex;
  if (terms.outcomes.length === 2 && wanted === 'no') return 1 - terms.yesIndex;
  return -1;
}
