/** Holders: the top holders of each outcome token of the busiest markets, per poll. */
import { defineStream } from '../../events/stream.js';
import type { HolderSnapshot } from '../../events/types.generated.js';
import { iso } from '../../shared/time.js';
import { defineReadModel, migrationsBeside, project } from '../read-model.js';
import { holderRoutes } from './routes.js';

const holders = defineStream({
  name: 'holders',
  topic: 'tapeline.holders.v1',
  partitions: 4,
  schema: 'holder.snapshot.v1',
  key: (holder) => holder.market_id,
  time: (holder) => holder.snapshot_at_ms,
});

function holderRow(e: HolderSnapshot) {
  return {
    market_id: e.market_id,
    asset_id: e.asset_id,
    wallet: e.wallet,
    outcome_index: e.outcome_index,
    amount: e.amount,
    rank: e.rank,
    snapshot_at: iso(e.snapshot_at_ms),
    source: e.source,
    ingested_at: iso(e.ingested_at_ms),
  };
}

export const holdersReadModel = defineReadModel({
  name: 'holders',
  streams: { holders },
  projections: [project(holders, { table: 'market_holders', row: holderRow })],
  migrations: migrationsBeside(import.meta.url),
  routes: ({ store }) => holderRoutes(store),
});
