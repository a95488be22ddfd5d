/** Lifecycle alone: market and resolution streams -> the market state machine -> lifecycle transitions. */
import { EventPublisher } from '../events/publisher.js';
import { startLifecycle } from '../lifecycle/lifecycle-processor.js';
import type { PartDefinition } from './part.js';

export const lifecyclePart: PartDefinition = {
  name: 'lifecycle',
  description: 'run the market lifecycle state machine (active -> closed -> resolved | voided) and publish its transitions',
  engines: ['log', 'control'],
  async start(resources) {
    const [log, control] = await Promise.all([resources.eventLog(), resources.controlStore()]);
    return startLifecycle({ log, control, publisher: new EventPublisher(log), logger: resources.logger.child({ part: 'lifecycle' }) });
  },
};
