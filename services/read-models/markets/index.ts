/** Markets: the latest upstream view of every market (Gamma), listed, searched and looked up by id or slug. */
import { defineStream } from '../../events/stream.js';
import { defineReadModel, migrationsBeside, project } from '../read-model.js';
import { marketRow } from './rows.js';
import { marketRoutes } from './routes.js';

const markets = defineStream({
  name: 'markets',
  topic: 'tapeline.markets.v1',
  partitions: 4,
  schema: 'market.upserted.v1',
  key: (market) => market.market_id,
  time: (market) => market.ingested_at_ms,
});

export const marketsReadModel = defineReadModel({
  name: 'markets',
  streams: { markets },
  projections: [project(markets, { table: 'markets', row: marketRow })],
  migrations: migrationsBeside(import.meta.url),
  routes: ({ store, marketLookup, catalogNotice }) => marketRoutes(store, marketLookup, catalogNotice),
});
