/**
 * The HTTP API alone. Stateless: every request reads the analytics and control stores, so several
 * API processes can serve behind one load balancer. It reads the log's positions for the sink lag
 * in /v1/health; ingest source health lives in the ingest process and is not reported here.
 */
import http from 'node:http';
import { createApp } from '../../api/app.js';
import { Accounts } from '../control/accounts.js';
import { SINK_GROUP_ID } from '../sink/sink-service.js';
import { SERVICE_VERSION } from '../stack.js';
import { TOPICS } from '../shared/topics.js';
import type { PartDefinition } from './registry.js';

export const apiPart: PartDefinition = {
  name: 'api',
  description: 'serve the REST API under /v1 (stateless; run as many as needed)',
  async start(resources) {
    const { config } = resources;
    const logger = resources.logger.child({ part: 'api' });
    const [store, control, log] = await Promise.all([resources.analyticsStore(), resources.controlStore(), resources.eventLog()]);
    const app = createApp({
      store,
      accounts: new Accounts(control),
      logger,
      health: {
        version: SERVICE_VERSION,
        sources: () => [],
        sinkLag: async () => {
          const lag: Record<string, number> = {};
          for (const topic of [TOPICS.markets.name, TOPICS.trades.name]) {
            const positions = await log.positions(SINK_GROUP_ID, topic);
            lag[topic] = positions.reduce((sum, p) => sum + (p.endOffset - p.committedOffset), 0);
          }
          return lag;
        },
      },
    });
    const server = http.createServer(app);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    const address = server.address();
    const url = `http://${config.host}:${typeof address === 'object' && address ? address.port : config.port}`;
    logger.info({ url }, 'api is serving');
    return {
      async stop() {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
      },
    };
  },
};
