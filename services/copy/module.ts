/** Copy trading's routes: subscriptions and intents, and (with a fee fallback to price fills) backtests and strategies. */
import { defineModule } from '../modules/module.js';
import { backtestRoutes } from './backtest/routes.js';
import { copyRoutes } from './routes.js';
import { strategyRoutes } from './strategy-routes.js';

export const copyModule = defineModule({
  name: 'copy',
  routes: ({ control, store, clock, feeFallback, copyLimits }) => [
    copyRoutes(control, clock, copyLimits?.subscriptionsPerAccount),
    ...(feeFallback
      ? [
          backtestRoutes(store, { feeFallback }, clock),
          strategyRoutes(control, store, { feeFallback }, clock, copyLimits?.strategiesPerAccount),
        ]
      : []),
  ],
});
