/** Open interest: collateral locked per market at each poll (upstream Data API /oi). */
import { defineStream } from '../../events/stream.js';
import type { OpenInterest } from '../../events/types.generated.js';
import { iso } from '../../shared/time.js';
import { defineReadModel, migrationsBeside, project } from '../read-model.js';
import { openInterestRoutes } from './routes.js';

const openInterest = defineStream({
  name: 'openInterest',
  topic: 'tapeline.open-interest.v1',
  partitions: 2,
  schema: 'open-interest.v1',
  key: (oi) => oi.market_id,
  time: (oi) => oi.snapshot_at_ms,
});

function openInterestRow(e: OpenInterest) {
  return {
    market_id: e.market_id,
    open_interest_usdc: e.open_interest_usdc,
    snapshot_at: iso(e.snapshot_at_ms),
    source: e.source,
    ingested_at: iso(e.ingested_at_ms),
  };
}

export const openInterestReadModel = defineReadModel({
  name: 'open-interest',
  streams: { openInterest },
  projections: [project(openInterest, { table: 'open_interest', row: openInterestRow })],
  migrations: migrationsBeside(import.meta.url),
  routes: ({ store }) => openInterestRoutes(store),
});
