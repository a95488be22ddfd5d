/**
 * Positions: the position ledger (ledger.ts) applies every change of a (wallet, outcome token) - chain
 * fills of both sides, splits, merges, redemptions, neg-risk conversions, transfers between wallets,
 * and Data API records where the chain does not cover - and views over its rows keep each key's state;
 * the snapshot refresher keeps each wallet's rows as one value read by key; the reconciliation compares
 * tracked wallets' positions with Polymarket's. GET /positions values a wallet's positions at current
 * marks (the marks read model). The trader figures built on the ledger are the trader-stats read model,
 * which reads this one (never the other way). docs/POSITIONS.md.
 */
import { chainLedger, chainResolutions } from '../chain-ledger/streams.js';
import { marketResolutions } from '../market-resolutions/index.js';
import { defineReadModel, migrationsBeside, project } from '../read-model.js';
import { trades } from '../trades/index.js';
import { walletActivity } from '../wallets/index.js';
import { ledgerOf } from './ledger-projection.js';
import { positionRoutes } from './routes.js';
import { startWalletSnapshots } from './wallet-snapshots.js';
import { startPositionReconciliation } from './upstream-reconciliation.js';

export const positionsReadModel = defineReadModel({
  name: 'positions',
  streams: {},
  projections: [
    project(chainLedger, {
      table: 'position_ledger',
      row: () => ({}),
      apply: (store, events, { dedupToken, logger, signal }) => ledgerOf(store, logger).applyChain(events, dedupToken, signal),
    }),
    project(chainResolutions, {
      table: 'position_ledger',
      row: () => ({}),
      apply: (store, events, { dedupToken, logger, signal }) => ledgerOf(store, logger).applyResolutions(events, dedupToken, signal),
    }),
    project(marketResolutions, {
      table: 'position_ledger',
      row: () => ({}),
      apply: (store, events, { dedupToken, logger, signal }) => ledgerOf(store, logger).applyCatalogResolutions(events, dedupToken, signal),
    }),
    project(trades, {
      table: 'position_ledger',
      row: () => ({}),
      apply: (store, events, { dedupToken, logger, signal }) => ledgerOf(store, logger).applyTrades(events, dedupToken, signal),
    }),
    project(walletActivity, {
      table: 'position_ledger',
      row: () => ({}),
      apply: (store, events, { dedupToken, logger, signal }) => ledgerOf(store, logger).applyActivity(events, dedupToken, signal),
    }),
  ],
  migrations: migrationsBeside(import.meta.url),
  routes: ({ store }) => positionRoutes(store),
  jobs: ({ store, config, logger }) => [
    startWalletSnapshots(store, config.walletSnapshotsIntervalMs, logger.child({ part: 'wallet-snapshots' })),
    startPositionReconciliation(store, config.positionReconciliationIntervalMs, logger.child({ part: 'position-reconciliation' })),
  ],
});
