/**
 * The HTTP API alone, with the same access layer as the one-process stack. Stateless: every request
 * reads the analytics and control stores (metering flushes deltas), so several API processes can serve
 * behind one load balancer. Ingest source health lives in the ingest process and is not reported here.
 * Webhook subscriptions are served here; the `webhooks` part delivers from the outbox it polls.
 */
import { startApiServer } from '../api-server.js';
import { webhooksApi } from '../webhooks/start-webhooks.js';
import type { PartDefinition } from './registry.js';

export const apiPart: PartDefinition = {
  name: 'api',
  description: 'serve the REST API under /v1 (stateless; run as many as needed)',
  async start(resources) {
    const logger = resources.logger.child({ part: 'api' });
    const [store, control, log] = await Promise.all([resources.analyticsStore(), resources.controlStore(), resources.eventLog()]);
    const webhooks = resources.config.webhooks.enabled ? webhooksApi(resources.config, control) : undefined;
    const server = await startApiServer({ config: resources.config, store, control, log, logger, webhooks });
    logger.info({ url: server.url }, 'api is serving');
    return { stop: () => server.stop() };
  },
};
