/** Catalog events -> rows of gamma_events, gamma_series and gamma_tags (migrations/0012-0014). */
import type { GammaEventUpserted, SeriesUpserted, TagUpserted } from '../../events/types.generated.js';
import { iso, isoOrNull } from '../../shared/time.js';

export function gammaEventRow(e: GammaEventUpserted) {
  return {
    event_id: e.gamma_event_id,
    slug: e.slug,
    title: e.title,
    category: e.category,
    active: e.active,
    closed: e.closed,
    archived: e.archived,
    neg_risk: e.neg_risk,
    neg_risk_market_id: e.neg_risk_market_id,
    start_date: isoOrNull(e.start_ms),
    end_date: isoOrNull(e.end_ms),
    closed_at: isoOrNull(e.closed_ms),
    volume_usdc: e.volume_usdc,
    volume_24h_usdc: e.volume_24h_usdc,
    liquidity_usdc: e.liquidity_usdc,
    open_interest_usdc: e.open_interest_usdc,
    market_ids: e.market_ids,
    series_ids: e.series_ids,
    tag_ids: e.tag_ids,
    updated_at: iso(e.updated_at_ms),
    source: e.source,
    ingested_at: iso(e.ingested_at_ms),
  };
}

export function seriesRow(e: SeriesUpserted) {
  return {
    series_id: e.series_id,
    slug: e.slug,
    ticker: e.ticker,
    title: e.title,
    series_type: e.series_type,
    recurrence: e.recurrence,
    active: e.active,
    closed: e.closed,
    archived: e.archived,
    volume_usdc: e.volume_usdc,
    volume_24h_usdc: e.volume_24h_usdc,
    liquidity_usdc: e.liquidity_usdc,
    event_ids: e.event_ids,
    created_at: isoOrNull(e.created_ms),
    updated_at: iso(e.updated_at_ms),
    source: e.source,
    ingested_at: iso(e.ingested_at_ms),
  };
}

export function tagRow(e: TagUpserted) {
  return {
    tag_id: e.tag_id,
    label: e.label,
    slug: e.slug,
    force_show: e.force_show,
    created_at: isoOrNull(e.created_ms),
    updated_at: iso(e.updated_at_ms),
    source: e.source,
    ingested_at: iso(e.ingested_at_ms),
  };
}
