/**
 * The sandbox processor: resting paper orders meet new books and trades, resolved markets settle
 * paper positions, and briefing signals are recorded (services/sandbox/sandbox-processor.ts).
 */
import { startSandboxProcessor } from '../sandbox/sandbox-processor.js';
import type { PartDefinition } from './part.js';

export const sandboxPart: PartDefinition = {
  name: 'sandbox',
  description: 'fill resting paper orders from books and trades, settle paper positions at resolution, record briefing signals',
  engines: ['log', 'control', 'analytics'],
  async start(resources) {
    const { config } = resources;
    if (!config.sandbox.enabled) return { stop: async () => undefined };
    const [log, control, store] = await Promise.all([resources.eventLog(), resources.controlStore(), resources.analyticsStore()]);
    return startSandboxProcessor({
      log,
      control,
      store,
      logger: resources.logger.child({ part: 'sandbox' }),
      largeTradeUsdc: config.signals.largeTradeUsdc,
      priceChangePct: config.signals.priceChangePct,
      priceWindowMs: config.signals.priceWindowMs,
      signalRetentionDays: config.sandbox.signalRetentionDays,
    });
  },
};
