/**
 * What the trader figures cover (docs/POSITIONS.md "Coverage"): the ledger holds every settlement
 * event of the blocks the chain source states it read without a hole (chain_contiguous), and Data API
 * records only outside them, so a wallet's figures are whole from `from_block` on and its history
 * before that is whatever the Data API gave. Every trader, positions and leaderboard response says so.
 */
import type { Coverage, TraderCoverage } from '../../http/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { iso } from '../../shared/time.js';
import { contiguousCoverage } from '../chain-ledger/queries.js';

/** The ledger's coverage now: null blocks and complete false when no chain source states one (Data API only). */
export async function ledgerCoverage(store: AnalyticsStore): Promise<Coverage> {
  const chain = await contiguousCoverage(store);
  if (!chain) return { from_block: null, from_time: null, to_block: null, to_time: null, complete: false };
  return {
    from_block: chain.fromBlock,
    from_time: iso(chain.fromMs),
    to_block: chain.toBlock,
    to_time: iso(chain.toMs),
    complete: chain.fromBlock <= chain.historyStartBlock,
  };
}

/**
 * The coverage with whether the wallet was active before it. Detectable from the ledger alone: it
 * holds a change of the wallet older than from_time (a Data API record of the time before the chain's
 * coverage, or a backfilled range below a hole), or it disposed of shares it never acquired within the
 * ledger (a sell, merge, conversion or transfer of more than it held: net over the live rows, so a
 * rewind that re-prices a sale counts as it stands now). Never when the coverage is complete: nothing
 * can predate the contracts' first block. Both facts are kept per wallet by wallet_coverage (0076).
 */
export async function walletCoverage(store: AnalyticsStore, wallet: string, coverage: Coverage): Promise<TraderCoverage> {
  return { ...coverage, wallet_predates: (await walletsPredating(store, [wallet], coverage)).has(wallet) };
}

/** Of `wallets`, those active before the coverage (walletCoverage's rule): one keyed read of their wallet_coverage rows. */
export async function walletsPredating(store: AnalyticsStore, wallets: readonly string[], coverage: Coverage): Promise<Set<string>> {
  if (coverage.complete || wallets.length === 0) return new Set();
  // Without a chain coverage no change is older than it; only a sale beyond holdings shows.
  const fromMs = coverage.from_time === null ? null : Date.parse(coverage.from_time);
  const rows = await store.query<{ wallet: string }>(
    `SELECT wallet FROM wallet_coverage WHERE wallet IN {wallets:Array(String)}
      GROUP BY wallet
     HAVING sum(unheld) > 0 OR (${fromMs === null ? '0' : 'min(first_time) < fromUnixTimestamp64Milli({from:Int64})'})`,
    { wallets, from: fromMs ?? 0 },
  );
  return new Set(rows.map((row) => row.wallet));
}

/** A page of wallet entries with each one's wallet_predates (one read for the page). */
export async function withWalletPredates<T extends { wallet: string }>(
  store: AnalyticsStore,
  entries: readonly T[],
  coverage: Coverage,
): Promise<Array<T & { wallet_predates: boolean }>> {
  const predating = await walletsPredating(
    store,
    entries.map((entry) => entry.wallet),
    coverage,
  );
  return entries.map((entry) => ({ ...entry, wallet_predates: predating.has(entry.wallet) }));
}
