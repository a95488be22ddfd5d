/**
 * The copy engine: leader fills from the log become trade intents and copy.executed / risk.blocked
 * events in the account feed and the webhook outbox (services/copy/copy-engine.ts); saved strategies
 * emit strategy.signal from the same consumer.
 */
import { startCopyEngine } from '../copy/copy-engine.js';
import type { PartDefinition } from './part.js';

export const copyPart: PartDefinition = {
  name: 'copy',
  description: 'copy leader fills into trade intents (copy.executed, risk.blocked) and evaluate saved strategies (strategy.signal)',
  engines: ['log', 'control', 'analytics'],
  async start(resources) {
    const { config } = resources;
    if (!config.copy.enabled || !config.webhooks.enabled) return { stop: async () => undefined };
    const [log, control, store] = await Promise.all([resources.eventLog(), resources.controlStore(), resources.analyticsStore()]);
    return startCopyEngine({
      log,
      control,
      store,
      logger: resources.logger.child({ part: 'copy' }),
      maxFillAgeMs: config.copy.maxFillAgeMs,
      fanoutChunk: config.copy.fanoutChunk,
      maxPendingPerSubscription: config.webhooks.pendingPerSubscription,
      accountEventRetentionMs: config.streams.accountEventRetentionMs,
      onEmitted: () => resources.wakeDispatcher(),
    });
  },
};
