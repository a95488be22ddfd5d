/**
 * Traders: per-wallet statistics (weighted-average-cost PnL, win rate, risk score, category PnL,
 * daily curve, positions) computed live per wallet, and leaderboards from trader_stats, which the
 * stats job recomputes periodically.
 */
import { defineReadModel, migrationsBeside } from '../read-model.js';
import { traderRoutes } from './routes.js';
import { startTraderStats } from './stats-job.js';

export const tradersReadModel = defineReadModel({
  name: 'traders',
  streams: {},
  projections: [],
  migrations: migrationsBeside(import.meta.url),
  routes: ({ store }) => traderRoutes(store),
  jobs: ({ store, config, logger }) => [startTraderStats(store, config.traderStatsIntervalMs, logger.child({ part: 'trader-stats' }))],
});
