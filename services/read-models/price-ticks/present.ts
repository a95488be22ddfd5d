/** A price tick as the API serves it, from a price_ticks row (REST) or a tick event (the `prices` stream). */
import type { PriceTick as PriceTickEvent } from '../../events/types.generated.js';
import type { PriceTick } from '../../http/types.generated.js';
import { iso } from '../../shared/time.js';

export interface PriceTickRow {
  tick_id: string;
  market_id: string;
  asset_id: string;
  kind: string;
  price: number;
  best_bid: number | null;
  best_ask: number | null;
  side: string | null;
  size: number | null;
  ts_ms: number;
  source: string;
}

/** The market's outcome labels by token, for the `outcome` of its ticks. */
export interface TickMarket {
  outcomes: readonly string[];
  outcome_token_ids: readonly string[];
}

/** The taker's side of a last trade, in the API's one vocabulary (a trade's `side`); upstream sends BUY/SELL. */
function sideOf(side: string | null): 'buy' | 'sell' | null {
  const lower = side?.toLowerCase();
  return lower === 'buy' || lower === 'sell' ? lower : null;
}

export function presentPriceTick(t: PriceTickRow, market: TickMarket): PriceTick {
  return {
    tick_id: t.tick_id,
    market_id: t.market_id,
    asset_id: t.asset_id,
    outcome: market.outcomes[market.outcome_token_ids.indexOf(t.asset_id)] ?? '',
    kind: t.kind,
    price: t.price,
    best_bid: t.best_bid,
    best_ask: t.best_ask,
    side: sideOf(t.side),
    size_shares: t.size,
    timestamp: iso(t.ts_ms),
    source: t.source,
  };
}

export function priceTickRowOfEvent(e: PriceTickEvent): PriceTickRow {
  return {
    tick_id: e.event_id,
    market_id: e.market_id,
    asset_id: e.asset_id,
    kind: e.kind,
    price: e.price,
    best_bid: e.best_bid,
    best_ask: e.best_ask,
    side: e.side,
    size: e.size,
    ts_ms: e.timestamp_ms,
    source: e.source,
  };
}
