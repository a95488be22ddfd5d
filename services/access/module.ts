/** An account's usage per day and its refused calls (`usage-routes.ts`); keys and tiers are the shell's (api/). */
import { defineModule } from '../modules/module.js';
import { usageHistoryRoutes } from './usage-routes.js';

export const usageModule = defineModule({
  name: 'usage',
  routes: ({ usageHistory }) => (usageHistory ? [usageHistoryRoutes(usageHistory)] : []),
});
