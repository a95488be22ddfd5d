/**
 * Chain ledger: Polymarket's settlement events read from Polygon (services/chain/) - every fill of
 * both sides, splits, merges, redemptions, neg-risk conversions and reorg retractions, plus condition
 * resolutions - with candles from on-chain taker fills and the hourly reconciliation of the Data API
 * feed against them. The trades feed and the candle routes read these tables (docs/CHAIN.md).
 */
import { defineReadModel, migrationsBeside, project } from '../read-model.js';
import { startReconciliation } from './reconciliation.js';
import { applyRetractions, rebuildViewsOf } from './retraction.js';
import { contiguousRow, ledgerRow, resolutionRow, unseenLedgerEvents, watermarkRow } from './rows.js';
import { chainLedger, chainResolutions } from './streams.js';

export { chainLedger } from './streams.js';

export const chainLedgerReadModel = defineReadModel({
  name: 'chain-ledger',
  streams: { chainLedger, chainResolutions },
  projections: [
    project(chainLedger, {
      table: 'chain_ledger',
      accepts: (event) => event.kind !== 'watermark',
      row: ledgerRow,
      unseen: unseenLedgerEvents,
      afterInsert: async (store, events, replayed) => {
        await applyRetractions(store, events);
        await rebuildViewsOf(store, replayed);
      },
    }),
    project(chainLedger, { table: 'chain_watermarks', accepts: (event) => event.kind === 'watermark', row: watermarkRow }),
    project(chainLedger, {
      table: 'chain_contiguous',
      accepts: (event) => event.kind === 'watermark' && event.coverage !== null,
      row: contiguousRow,
    }),
    project(chainResolutions, { table: 'chain_resolutions', row: resolutionRow }),
  ],
  migrations: migrationsBeside(import.meta.url),
  jobs: ({ store, config, logger }) => [
    startReconciliation(store, config.reconciliationIntervalMs, logger.child({ part: 'reconciliation' })),
  ],
});
