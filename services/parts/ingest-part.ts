/** Ingest alone: polls the upstream APIs and publishes events to the log. */
import { startIngest } from '../ingest/ingest-service.js';
import type { PartDefinition } from './registry.js';

export const ingestPart: PartDefinition = {
  name: 'ingest',
  description: 'poll Polymarket (or the simulator) and publish events to the event log',
  async start(resources) {
    const log = await resources.eventLog();
    return startIngest(resources.config, log, resources.logger.child({ part: 'ingest' }));
  },
};
