/** MarketUpserted -> a `markets` row (columns in migrations/0001 and 0010). */
import type { MarketUpserted } from '../../events/types.generated.js';
import { isoOrNull, iso } from '../../shared/time.js';

export function marketRow(m: MarketUpserted) {
  return {
    market_id: m.market_id,
    gamma_id: m.gamma_id,
    slug: m.slug,
    title: m.title,
    category: m.category,
    event_id: m.event_id_upstream,
    event_slug: m.event_slug,
    event_title: m.event_title,
    outcomes: m.outcomes,
    outcome_token_ids: m.outcome_token_ids,
    outcome_prices: m.outcome_prices,
    yes_index: m.yes_index,
    status: m.status,
    resolved_outcome: m.resolved_outcome,
    volume_total_usdc: m.volume_total_usdc,
    volume_24h_usdc: m.volume_24h_usdc,
    liquidity_usdc: m.liquidity_usdc,
    best_bid: m.best_bid,
    best_ask: m.best_ask,
    last_trade_price: m.last_trade_price,
    neg_risk: m.neg_risk,
    start_date: isoOrNull(m.start_ms),
    end_date: isoOrNull(m.end_ms),
    closed_at: isoOrNull(m.closed_ms),
    created_at: isoOrNull(m.created_ms),
    updated_at: iso(m.updated_at_ms),
    source: m.source,
    ingested_at: iso(m.ingested_at_ms),
    uma_resolution_status: m.uma_resolution_status,
    accepting_orders: m.accepting_orders,
    neg_risk_market_id: m.neg_risk_market_id,
    question_id: m.question_id,
    tick_size: m.tick_size,
    resolved_at: isoOrNull(m.resolved_at_ms),
  };
}
