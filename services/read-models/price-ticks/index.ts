/** Price ticks: every price observation per outcome token (websocket trades and books, REST, price history). */
import { defineStream } from '../../events/stream.js';
import type { PriceTick } from '../../events/types.generated.js';
import { iso } from '../../shared/time.js';
import { defineReadModel, migrationsBeside, project } from '../read-model.js';
import { priceTickRoutes } from './routes.js';

export const priceTicks = defineStream({
  name: 'priceTicks',
  topic: 'tapeline.price-ticks.v1',
  partitions: 8,
  schema: 'price.tick.v1',
  key: (tick) => tick.market_id,
  time: (tick) => tick.timestamp_ms,
});

function priceTickRow(e: PriceTick) {
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
    ts: iso(e.timestamp_ms),
    origin: e.origin,
    source: e.source,
    ingested_at: iso(e.ingested_at_ms),
  };
}

export const priceTicksReadModel = defineReadModel({
  name: 'price-ticks',
  streams: { priceTicks },
  projections: [project(priceTicks, { table: 'price_ticks', row: priceTickRow })],
  migrations: migrationsBeside(import.meta.url),
  routes: ({ store }) => priceTickRoutes(store),
});
