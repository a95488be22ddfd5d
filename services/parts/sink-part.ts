/**
 * Sink alone: consumes the log into ClickHouse, committing offsets after each insert, and keeps
 * the trader tables (leaderboards) recomputed, since it is the ClickHouse writer.
 */
import { startSink } from '../sink/sink-service.js';
import { startTraderStats } from '../traders/stats-job.js';
import type { PartDefinition } from './registry.js';

export const sinkPart: PartDefinition = {
  name: 'sink',
  description: 'consume events from the log into the analytics store (effectively once)',
  async start(resources) {
    const log = await resources.eventLog();
    const store = await resources.analyticsStore();
    const sink = await startSink(log, store, resources.logger.child({ part: 'sink' }));
    const traderStats = startTraderStats(store, resources.config.traderStatsIntervalMs, resources.logger.child({ part: 'trader-stats' }));
    return {
      async stop() {
        await traderStats.stop();
        await sink.stop();
      },
    };
  },
};
