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
  engines: ['log', 'analytics'],
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
        // Concurrently: each waits for its own statement in flight, so one stop costs the slowest of
        // them, not their sum; each one's time is logged, so a slow stop names what it waited for.
        const timed = async (step: string, stop: () => Promise<void>) => {
          const started = performance.now();
          await stop();
          return [step, Math.round(performance.now() - started)] as const;
        };
        const steps = await Promise.all([
          timed('jobs', () => Promise.all(jobs.map((job) => job.stop())).then(() => undefined)),
          timed('ledger', () => ledger.stop()),
          timed('sink', () => sink.stop()),
        ]);
        logger.info({ part: 'sink', steps_ms: Object.fromEntries(steps) }, 'sink part steps stopped');
      },
    };
  },
};
