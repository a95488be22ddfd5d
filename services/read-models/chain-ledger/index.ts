/**
 * Chain ledger: Polymarket's settlement events read from Polygon (services/chain/) - every fill of
 * both sides, splits, merges, redemptions, neg-risk conversions and reorg retractions, plus condition
 * resolutions - with candles from on-chain taker fills and the hourly reconciliation of the Data API
 * feed against them. The trades feed and the candle routes read these tables (docs/CHAIN.md).
 */
import { defineStream } from '../../events/stream.js';
import { defineReadModel, migrationsBeside, project } from '../read-model.js';
import { startReconciliation } from './reconciliation.js';
import { applyRetractions } from './retraction.js';
import { ledgerRow, resolutionRow, unseenLedgerEvents } from './rows.js';

/**
 * Keyed by ledger group - the neg-risk market id for neg-risk markets, else the condition id - so
 * every change of one (wallet, token) lands on one partition in chain order: a later position-ledger
 * consumer applies fills of both sides, splits, merges, redemptions and conversions in order. The
 * condition id alone would not do: a conversion changes several condition ids of one neg-risk event
 * at once, and must not overtake a fill of any of them. A retraction travels on the partition of the
 * events it voids.
 */
export const chainLedger = defineStream({
  name: 'chainLedger',
  topic: 'tapeline.chain-ledger.v1',
  partitions: 8,
  schema: 'chain.ledger.v1',
  key: (event) => event.ledger_group,
  time: (event) => event.block_time_ms,
});

/** Keyed by condition id (the market), like the market lifecycle that consumes resolutions. */
export const chainResolutions = defineStream({
  name: 'chainResolutions',
  topic: 'tapeline.chain-resolutions.v1',
  partitions: 4,
  schema: 'chain.condition-resolved.v1',
  key: (resolution) => resolution.market_id,
  time: (resolution) => resolution.block_time_ms,
});

export const chainLedgerReadModel = defineReadModel({
  name: 'chain-ledger',
  streams: { chainLedger, chainResolutions },
  projections: [
    project(chainLedger, { table: 'chain_ledger', row: ledgerRow, unseen: unseenLedgerEvents, afterInsert: applyRetractions }),
    project(chainResolutions, { table: 'chain_resolutions', row: resolutionRow }),
  ],
  migrations: migrationsBeside(import.meta.url),
  jobs: ({ store, config, logger }) => [
    startReconciliation(store, config.reconciliationIntervalMs, logger.child({ part: 'reconciliation' })),
  ],
});
