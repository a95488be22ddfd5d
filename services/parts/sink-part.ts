/**
 * Sink alone: consumes the log into ClickHouse, committing offsets after each insert, beside it the
 * position ledger in its own consumer group, and the read models' maintenance jobs, since it is the
 * ClickHouse writer.
 */
import { READ_MODELS } from '../read-models/registry.js';
import { startSink, startStatefulProjections } from '../sink/sink-service.js';
import type { PartDefinition } from './part.js';

export const sinkPart: PartDefinition = {
  name: 'sink',
  description: 'consume events from the log into the analytics store (effectively once) and run read-model jobs',
  async start(resources) {
    const log = await resources.eventLog();
    const store = await resources.analyticsStore();
    const { config, logger } = resources;
    const sink = await startSink(log, store, logger.child({ part: 'sink' }), { poisonAfterFailures: config.sink.poisonAfterFailures });
    resources.local.sink = sink;
    const ledger = await startStatefulProjections(log, store, logger.child({ part: 'position-ledger' }));
    const jobs = READ_MODELS.flatMap((model) => model.jobs?.({ store, config, logger }) ?? []);
    return {
      async stop() {
        for (const job of jobs) await job.stop();
        await ledger.stop();
        await sink.stop();
      },
    };
  },
};
