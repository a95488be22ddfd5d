/**
 * Candles: OHLCV per market at 5m / 1h / 1d, aligned to UTC, maintained by materialized views over
 * the trades table (no stream of their own), and the platform volume timeseries.
 */
import { defineReadModel, migrationsBeside } from '../read-model.js';
import { candleRoutes } from './routes.js';

export const candlesReadModel = defineReadModel({
  name: 'candles',
  streams: {},
  projections: [],
  migrations: migrationsBeside(import.meta.url),
  routes: ({ store }) => candleRoutes(store),
});
