/** Event -> ClickHouse row mappings (column names as in clickhouse/migrations). */
import type { MarketUpserted, TradeExecuted } from '../shared/events.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function tradeRow(t: TradeExecuted) {
  return {
    trade_id: t.event_id,
    market_id: t.market_id,
    market_title: t.market_title,
    asset_id: t.asset_id,
    wallet: t.wallet,
    side: t.side,
    outcome: t.outcome,
    outcome_index: t.outcome_index,
    price: t.price,
    yes_price: t.yes_price,
    size: t.size,
    size_usdc: t.size_usdc,
    ts: iso(t.timestamp_ms),
    tx_hash: t.tx_hash,
    source: t.source,
    ingested_at: iso(t.ingested_at_ms),
  };
}

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
    start_date: iso(m.start_ms),
    end_date: iso(m.end_ms),
    closed_at: iso(m.closed_ms),
    created_at: iso(m.created_ms),
    updated_at: iso(m.updated_at_ms),
    source: m.source,
    ingested_at: iso(m.ingested_at_ms),
    uma_resolution_status: m.uma_resolution_status ?? null,
    accepting_orders: m.accepting_orders ?? null,
    neg_risk_market_id: m.neg_risk_market_id ?? null,
    question_id: m.question_id ?? null,
    tick_size: m.tick_size ?? null,
    resolved_at: iso(m.resolved_at_ms ?? null),
  };
}
