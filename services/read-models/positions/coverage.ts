/**
 * What the trader figures cover (docs/POSITIONS.md "Coverage"): the ledger holds every settlement
 * event of the blocks the chain source states it read without a hole (chain_contiguous), and Data API
 * records only outside them, so a wallet's figures are whole from `from_block` on and its history
 * before that is whatever the Data API gave. Every trader, positions and leaderboard response says so.
 */
import type { Coverage, TraderCoverage } from '../../../api/types.generated.js';
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
 * can predate the contracts' first block. The first test reads the wallet's position_state rows (by
 * key); only when it does not decide does the second read the wallet's ledger rows.
 */
export async function walletCoverage(store: AnalyticsStore, wallet: string, coverage: Coverage): Promise<TraderCoverage> {
  return { ...coverage, wallet_predates: (await walletsPredating(store, [wallet], coverage)).has(wallet) };
}

/** Of `wallets`, those active before the coverage (walletCoverage's rule, two reads for them all). */
export async function walletsPredating(store: AnalyticsStore, wallets: readonly string[], coverage: Coverage): Promise<Set<string>> {
  const predating = new Set<string>();
  if (coverage.complete || wallets.length === 0) return predating;
  if (coverage.from_time !== null) {
    const firsts = await store.query<{ wallet: string }>(
      `SELECT wallet FROM position_state WHERE wallet IN {wallets:Array(String)}
        GROUP BY wallet HAVING min(first_time) < fromUnixTimestamp64Milli({from:Int64})`,
      { wallets, from: Date.parse(coverage.from_time) },
    );
    for (const row of firsts) predating.add(row.wallet);
  }
  const rest = wallets.filter((wallet) => !predating.has(wallet));
  if (rest.length === 0) return predating;
  const unheld = await store.query<{ wallet: string }>(
    `SELECT wallet FROM position_ledger WHERE wallet IN {wallets:Array(String)}
      GROUP BY wallet HAVING sumIf(sign * (toInt64(in_qty) + qty_delta), action IN ('sell', 'sell_at_cost')) > 0`,
    { wallets: rest },
  );
  for (const row of unheld) predating.add(row.wallet);
  return predating;
}
