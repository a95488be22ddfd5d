/**
 * Copy picks: leaders ranked per topic by what copying them would have earned (picks.ts), recomputed
 * by a job from the leader statistics and the copier simulation, served by GET /copy-picks.
 */
import { defineReadModel, migrationsBeside } from '../read-model.js';
import { startCopyPicks } from './picks-job.js';
import { copyPickRoutes } from './routes.js';

export const copyPicksReadModel = defineReadModel({
  name: 'copy-picks',
  streams: {},
  projections: [],
  migrations: migrationsBeside(import.meta.url),
  routes: ({ store, copyPicksMinResolved }) => copyPickRoutes(store, copyPicksMinResolved),
  jobs: ({ store, config, logger }) => [
    startCopyPicks(
      store,
      { ...config.copy.picks, feeFallback: config.sandbox.feeFallback },
      config.copy.picks.intervalMs,
      logger.child({ part: 'copy-picks' }),
    ),
  ],
});
