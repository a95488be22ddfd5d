/**
 * The snapshot refresher: keeps wallet_snapshots (migration 0066), each wallet's rows as one value read
 * by key by the single-wallet reads (../trader-stats/queries.ts walletReports and queries.ts walletPositions), equal to what
 * position_state and trader_days hold for it, with the ledger's progress read before them. The
 * ledger notes each wallet it wrote a row of in trader_touches once its insert has returned (ledger.ts
 * touch), so a wallet read for a touch has the rows the touch stands for, and the refresher rebuilds the wallets touched since its previous run (../touch-refresher.ts); its first run,
 * and one after it was stopped for over half a day, rebuilds every wallet. It runs every
 * WALLET_SNAPSHOTS_INTERVAL_MS. A wallet's reads therefore lag the ledger by up to an interval and a
 * run, and say so: their data_as_of is the progress stored with the snapshot. A wallet the refresher
 * has not built yet is read from the tables (queries.ts).
 */
import type { Logger } from '../../logger.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { DAY_FIELDS, daysGrouped, POSITION_FIELDS, positionsGrouped, PROGRESS_SCALAR } from './queries.js';
import { OVERLAP_MS, PROGRESS_EVERY_MS, perStore, startRefresher, TouchRefresher } from '../touch-refresher.js';

/** Wallets rebuilt per statement: the chunk shares one statement's fixed cost. */
const CHUNK = 1_000;

const IN_CHUNK = 'wallet IN {wallets:Array(String)}';

/**
 * The snapshots of the wallets {wallets:Array(String)} that have ledger rows. The progress is a scalar
 * subquery, which the engine runs before the statement reads the wallets' rows, so a change written
 * after it is at most held without being claimed. The ledger's views write the progress and the rows
 * of one insert each in their own step: while one is under way a snapshot can claim a change whose rows
 * are not written yet, as a read of the tables could. The insert's touch is then read again by the
 * next run (its overlap), which rebuilds the wallet.
 */
export const SNAPSHOTS_OF_WALLETS = `
  SELECT p.wallet, p.ps, d.ds, p.ms, ${PROGRESS_SCALAR}, now64(3)
    FROM (SELECT wallet, groupArray((${POSITION_FIELDS})) AS ps, groupUniqArray(m) AS ms FROM (${positionsGrouped(IN_CHUNK)}) GROUP BY wallet) AS p
    LEFT JOIN (SELECT wallet, groupArray((${DAY_FIELDS})) AS ds FROM (${daysGrouped(IN_CHUNK)}) GROUP BY wallet) AS d ON d.wallet = p.wallet`;
const REFRESH = `INSERT INTO wallet_snapshots (wallet, positions, daily, markets, as_of, refreshed_at) ${SNAPSHOTS_OF_WALLETS}`;

export class WalletSnapshots extends TouchRefresher {
  constructor(store: AnalyticsStore, overlapMs = OVERLAP_MS, progressEveryMs = PROGRESS_EVERY_MS) {
    super(
      store,
      {
        touches: 'trader_touches',
        key: 'wallet',
        progress: 'wallet_snapshots_progress',
        allKeys: 'SELECT DISTINCT wallet FROM position_state',
        rebuild: (wallets, _nowMs, signal) => this.rebuild(wallets, signal),
      },
      overlapMs,
      progressEveryMs,
    );
  }

  /** Rebuilds these wallets' snapshots now, whatever was touched. */
  async rebuild(wallets: string[], signal?: AbortSignal): Promise<void> {
    for (let i = 0; i < wallets.length; i += CHUNK) {
      signal?.throwIfAborted();
      await this.store.command(REFRESH, { wallets: wallets.slice(i, i + CHUNK) });
    }
  }
}

/** The store's one snapshot refresher (runs are serialized, so two never write a wallet's value out of order). */
export const snapshotsOf = perStore((store) => new WalletSnapshots(store));

/** Refreshes the snapshots every `intervalMs` (first at once), never overlapping. */
export function startWalletSnapshots(store: AnalyticsStore, intervalMs: number, logger: Logger) {
  return startRefresher(snapshotsOf(store), 'wallet snapshots', intervalMs, logger);
}
