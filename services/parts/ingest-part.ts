/** Ingest alone: polls the upstream APIs and publishes events to the log (off with INGEST_ENABLED=false). */
import { startIngest } from '../ingest/ingest-service.js';
import type { PartDefinition } from './part.js';

export const ingestPart: PartDefinition = {
  name: 'ingest',
  description: 'poll Polymarket (or the simulator) and publish events to the event log',
  engines: ['log'],
  async start(resources) {
    if (!resources.config.ingest.enabled) return { stop: async () => undefined };
    const ingest = await startIngest(resources.config, await resources.eventLog(), resources.logger.child({ part: 'ingest' }));
    resources.local.ingestHealth = ingest.health;
    resources.local.chainStatus = ingest.chain;
    resources.local.upstreams = () => ingest.reachability.snapshot();
    return ingest;
  },
};
