/**
 * The HTTP API. Stateless: every request reads the analytics and control stores (metering flushes
 * deltas), so several API processes can serve behind one load balancer. It reports the source health
 * of an ingest part in the same process. With the embedded control store (PGlite belongs to one
 * process) it writes DATA_DIR/admin.json so `npm run admin` goes through it.
 */
import { startApiServer } from '../api-server.js';
import { webhooksApi } from '../webhooks/start-webhooks.js';
import type { PartDefinition } from './part.js';

export const apiPart: PartDefinition = {
  name: 'api',
  description: 'serve the REST API under /v1 (stateless; run as many as needed)',
  engines: ['analytics', 'control', 'log'],
  async start(resources) {
    const { config } = resources;
    const logger = resources.logger.child({ part: 'api' });
    const [store, control, log] = await Promise.all([resources.analyticsStore(), resources.controlStore(), resources.eventLog()]);
    const webhooks = config.webhooks.enabled ? webhooksApi(config, control, () => resources.wakeDispatcher()) : undefined;
    const server = await startApiServer({
      config,
      store,
      control,
      log,
      logger: resources.logger,
      webhooks,
      sources: () => resources.sources(),
      upstreams: () => resources.upstreams(),
      metrics: () => resources.localMetrics(),
      chain: () => resources.chainStatus(),
      adminEndpoint: !config.engines.databaseUrl,
    });
    resources.local.apiUrl = server.url;
    logger.info({ url: server.url, adminUrl: server.adminUrl }, 'api is serving');
    return server;
  },
};
