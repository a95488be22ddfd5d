/** The webhook dispatcher alone: leases due deliveries from the outbox, signs and sends them, retries. */
import { startWebhookDispatcher } from '../webhooks/start-webhooks.js';
import type { PartDefinition } from './part.js';

export const webhooksPart: PartDefinition = {
  name: 'webhooks',
  description: 'deliver signed webhooks from the durable outbox (several dispatchers may share it)',
  engines: ['control'],
  async start(resources) {
    if (!resources.config.webhooks.enabled) return { stop: async () => undefined };
    const delivery = startWebhookDispatcher(resources.config, await resources.controlStore(), resources.logger);
    resources.local.dispatcher = delivery.dispatcher;
    return delivery;
  },
};
