/** Sink alone: consumes the log into ClickHouse, committing offsets after each insert. */
import { startSink } from '../sink/sink-service.js';
import type { PartDefinition } from './registry.js';

export const sinkPart: PartDefinition = {
  name: 'sink',
  description: 'consume events from the log into the analytics store (effectively once)',
  async start(resources) {
    const log = await resources.eventLog();
    const store = await resources.analyticsStore();
    return startSink(log, store, resources.logger.child({ part: 'sink' }));
  },
};
