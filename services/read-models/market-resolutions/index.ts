/** Market resolutions: one row per resolved market, with the winning outcome and payouts. */
import { defineStream } from '../../events/stream.js';
import type { MarketResolved } from '../../events/types.generated.js';
import { iso, isoOrNull } from '../../shared/time.js';
import { defineReadModel, migrationsBeside, project } from '../read-model.js';

export const marketResolutions = defineStream({
  name: 'marketResolutions',
  topic: 'tapeline.market-resolutions.v1',
  partitions: 4,
  schema: 'market.resolved.v1',
  key: (resolution) => resolution.market_id,
  time: (resolution) => resolution.ingested_at_ms,
});

function resolutionRow(e: MarketResolved) {
  return {
    market_id: e.market_id,
    gamma_id: e.gamma_id,
    slug: e.slug,
    title: e.title,
    outcomes: e.outcomes,
    outcome_token_ids: e.outcome_token_ids,
    winning_outcome: e.winning_outcome,
    winning_outcome_index: e.winning_outcome_index,
    winning_asset_id: e.winning_asset_id,
    payouts: e.payouts,
    resolved_at: isoOrNull(e.resolved_at_ms),
    origin: e.origin,
    source: e.source,
    ingested_at: iso(e.ingested_at_ms),
  };
}

export const marketResolutionsReadModel = defineReadModel({
  name: 'market-resolutions',
  streams: { marketResolutions },
  projections: [project(marketResolutions, { table: 'market_resolutions', row: resolutionRow })],
  migrations: migrationsBeside(import.meta.url),
});
