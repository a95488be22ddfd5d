/** Signals alone: consumes trades and markets from the log and enqueues webhook deliveries in the outbox. */
import { startSignalsProcessor } from '../webhooks/start-webhooks.js';
import type { PartDefinition } from './part.js';

export const signalsPart: PartDefinition = {
  name: 'signals',
  description: 'detect trade, large-trade, price and resolution events and enqueue webhook deliveries',
  engines: ['log', 'control', 'analytics'],
  async start(resources) {
    if (!resources.config.webhooks.enabled) return { stop: async () => undefined };
    const [log, control, store] = await Promise.all([resources.eventLog(), resources.controlStore(), resources.analyticsStore()]);
    return startSignalsProcessor(resources.config, log, control, store, resources.logger, () => resources.wakeDispatcher());
  },
};
