/**
 * Positions and trader intelligence: the position ledger (ledger.ts) applies every change of a
 * (wallet, outcome token) - chain fills of both sides, splits, merges, redemptions, neg-risk
 * conversions, transfers between wallets, and Data API records where the chain does not cover - and views over its rows keep
 * per-wallet, per-market and per-day figures; the snapshot refresher keeps each wallet's rows as one
 * value read by key; the valuation pass values wallets at current marks (the marks read model) for the
 * mark-dependent rankings. docs/POSITIONS.md.
 */
import { chainLedger, chainResolutions } from '../chain-ledger/streams.js';
import { marketResolutions } from '../market-resolutions/index.js';
import { defineReadModel, migrationsBeside, project } from '../read-model.js';
import { trades } from '../trades/index.js';
import { walletActivity } from '../wallets/index.js';
import { ledgerOf } from './ledger-projection.js';
import { traderRoutes } from './routes.js';
import { startTraderValuation } from './valuation.js';
import { startBoardPages } from './board-pages.js';
import { startWalletSnapshots } from './wallet-snapshots.js';
import { startPositionReconciliation } from './upstream-reconciliation.js';

export const positionsReadModel = defineReadModel({
  name: 'positions',
  streams: {},
  projections: [
    project(chainLedger, {
      table: 'position_ledger',
      row: () => ({}),
      apply: (store, events, token, logger) => ledgerOf(store, logger).applyChain(events, token),
    }),
    project(chainResolutions, {
      table: 'position_ledger',
      row: () => ({}),
      apply: (store, events, token, logger) => ledgerOf(store, logger).applyResolutions(events, token),
    }),
    project(marketResolutions, {
      table: 'position_ledger',
      row: () => ({}),
      apply: (store, events, token, logger) => ledgerOf(store, logger).applyCatalogResolutions(events, token),
    }),
    project(trades, {
      table: 'position_ledger',
      row: () => ({}),
      apply: (store, events, token, logger) => ledgerOf(store, logger).applyTrades(events, token),
    }),
    project(walletActivity, {
      table: 'position_ledger',
      row: () => ({}),
      apply: (store, events, token, logger) => ledgerOf(store, logger).applyActivity(events, token),
    }),
  ],
  migrations: migrationsBeside(import.meta.url),
  routes: ({ store }) => traderRoutes(store),
  jobs: ({ store, config, logger }) => [
    startWalletSnapshots(store, config.walletSnapshotsIntervalMs, logger.child({ part: 'wallet-snapshots' })),
    startTraderValuation(store, config.traderValuationIntervalMs, logger.child({ part: 'trader-valuation' })),
    startBoardPages(store, config.leaderboardBuildIntervalMs, logger.child({ part: 'leaderboard-pages' }), config.leaderboardPageDepth),
    startPositionReconciliation(store, config.positionReconciliationIntervalMs, logger.child({ part: 'position-reconciliation' })),
  ],
});
