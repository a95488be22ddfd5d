/** Webhook subscriptions and their deliveries (`routes.ts`). */
import { defineModule } from '../modules/module.js';
import { webhookRoutes } from './routes.js';

export const webhooksModule = defineModule({
  name: 'webhooks',
  routes: ({ webhooks }) => (webhooks ? [webhookRoutes(webhooks)] : []),
});
