/**
 * Trader statistics over the position ledger (the positions read model, which this one reads and
 * which never reads this one): views over the ledger's rows keep per-wallet, per-market and per-day
 * figures (trader_days, trader_lifetime, trader_market_pnl, the 30-day window, the curve's day
 * states); the valuation pass values wallets at current marks (the marks read model) for the
 * mark-dependent rankings and stores their curves; the board builder keeps the leaderboard pages.
 * Serves /traders/{wallet}, its /pnl, /traders/browse and /leaderboard. docs/POSITIONS.md.
 */
import { defineReadModel, migrationsBeside } from '../read-model.js';
import { startBoardPages } from './board-pages.js';
import { traderRoutes } from './routes.js';
import { startTraderValuation } from './valuation.js';

export const traderStatsReadModel = defineReadModel({
  name: 'trader-stats',
  streams: {},
  projections: [],
  migrations: migrationsBeside(import.meta.url),
  routes: ({ store }) => traderRoutes(store),
  jobs: ({ store, config, logger }) => [
    startTraderValuation(store, config.traderValuationIntervalMs, logger.child({ part: 'trader-valuation' })),
    startBoardPages(store, config.leaderboardBuildIntervalMs, logger.child({ part: 'leaderboard-pages' }), config.leaderboardPageDepth),
  ],
});
