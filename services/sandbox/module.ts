/** The agent sandbox's routes: briefings, paper trading, fees and wallet links (`compose.ts` builds their services). */
import { walletRoutes } from '../access/wallet-routes.js';
import { briefingRoutes } from '../briefing/routes.js';
import { feeRoutes } from '../fees/routes.js';
import { defineModule } from '../modules/module.js';
import { paperRoutes } from '../paper/routes.js';

export const sandboxModule = defineModule({
  name: 'sandbox',
  routes: ({ sandbox }) =>
    sandbox ? [briefingRoutes(sandbox.briefings), paperRoutes(sandbox.paper), feeRoutes(sandbox.fees), walletRoutes(sandbox.wallet)] : [],
});
