/**
 * Reads the population: every wallet the service ranks (the volume board, paged to its end) and every
 * wallet the simulator's truth knows, then per wallet its statistics, positions and daily curve read at
 * one ledger position (the three responses must name the same data_as_of; read again otherwise), and
 * the truth's account as of that same block time and, on a live demo, now: a wallet that moved between
 * the two, or one still that differs from its truth, is read again after a pause (a wallet never still
 * is held to bounds; one still and different at the last read is a violation).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { forEachBounded } from './http.js';
import type { ApiCurve, ApiPositions, ApiTrader, ServiceApi, SimulatorTruthApi, TruthWallet } from './sources.js';

export interface WalletObservation {
  wallet: string;
  trader: ApiTrader;
  positions: ApiPositions;
  curve: ApiCurve;
  /** The truth at the API's data_as_of (null without a truth, or when the truth does not know the wallet). */
  truth: TruthWallet | null;
  /**
   * The truth after the reads, when it differed from `truth` at every attempt: the wallet moved (a fill,
   * a resolution of one of its markets) between the API's data_as_of and the reads, so the API may
   * serve any state between the two (data_as_of is how far the ledger holds every change; a partition
   * applied further, or a resolution the catalog learnt, shows already). Held to bounds (check 4), not
   * to exact equality, but for the markets it did not move in: those are held exactly (checks 2, 3 and
   * unrealized in 4), as is its curve before the day it moved; check 1 and realized skip it.
   */
  movedTo?: TruthWallet;
  /**
   * The truth after the reads, when only the resolutions of its markets changed since data_as_of (its
   * fills, splits, merges, redemptions and transfers did not): won and lost are held between the two,
   * as the service counts a resolution once its catalog has it, whatever its data_as_of.
   */
  resolvedTo?: TruthWallet;
  /** Reads it took (1: the first agreed, or there is no truth). */
  reads: number;
}

/** The two accounts agree but for what a market's resolution changes (its payout, won and lost). */
function sameFlows(a: TruthWallet, b: TruthWallet): boolean {
  const flows = ({ won: _won, lost: _lost, markets, ...rest }: TruthWallet) => ({
    ...rest,
    markets: markets.map(({ payout: _payout, resolved_at: _at, payout_value_micro: _value, ...market }) => market),
  });
  return JSON.stringify(flows(a)) === JSON.stringify(flows(b));
}

/**
 * A listed wallet the verifier could not read: the API does not know it (404), or its three reads never
 * named one data_as_of. `truth` is its account at the truth's head (null without a truth or when the
 * truth does not know it): the zero sum counts an unknown wallet as holding nothing by the API, and
 * skips only the markets a wallet read inconsistently touched.
 */
interface UnreadWallet {
  wallet: string;
  reason: 'unknown' | 'inconsistent';
  detail: string;
  truth: TruthWallet | null;
}

export interface Population {
  wallets: WalletObservation[];
  /** Wallets listed but not read (reported by check 0 and failing the run). */
  unread: UnreadWallet[];
  listed: { board: number; truth: number; union: number; truncated: boolean };
}

export interface CollectOptions {
  maxPages: number;
  concurrency: number;
  curveDays: number;
  /** Read attempts per wallet before giving up on reads that agree (or, for a wallet that moved, on reading it still). */
  readAttempts: number;
  /** Wait before reading a wallet that moved (or differs from its truth) again, times the attempt. */
  settleMs: number;
  /** Whether a still wallet's figures agree with its truth (checks.ts); one that does not is read again. */
  agrees: (observation: WalletObservation) => boolean;
}

export async function collect(api: ServiceApi, truth: SimulatorTruthApi | null, options: CollectOptions): Promise<Population> {
  const board = await api.pages<{ wallet: string }>('/leaderboard', { sort_by: 'volume', limit: '500' }, options.maxPages);
  const listedByTruth = truth ? await truth.wallets(options.maxPages) : { addresses: [], truncated: false };
  const all = [...new Set([...board.items.map((entry) => entry.wallet.toLowerCase()), ...listedByTruth.addresses])].sort();

  const wallets: WalletObservation[] = [];
  const unread: Population['unread'] = [];
  await forEachBounded(all, options.concurrency, async (wallet) => {
    for (let attempt = 1; attempt <= options.readAttempts; attempt++) {
      const [trader, positions, curve] = await Promise.all([
        api.trader(wallet),
        api.positions(wallet),
        api.curve(wallet, options.curveDays),
      ]);
      if (!trader || !positions || !curve) {
        const account = truth ? await truth.wallet(wallet) : null;
        unread.push({ wallet, reason: 'unknown', detail: 'the API does not know the wallet (404)', truth: account });
        return;
      }
      const asOf = trader.data_as_of;
      if (asOf !== positions.data_as_of || asOf !== curve.data_as_of) continue;
      const account = truth && asOf !== null ? await truth.wallet(wallet, asOf) : null;
      // On a live demo: the truth now, read after the API's answers, bounds what they can hold.
      const now = account && truth ? await truth.wallet(wallet) : null;
      const observation: WalletObservation = { wallet, trader, positions, curve, truth: account, reads: attempt };
      const last = attempt === options.readAttempts;
      // Only a resolution of its markets since: its flows are still, won and lost held between the two.
      if (now && account && JSON.stringify(now) !== JSON.stringify(account) && sameFlows(now, account)) observation.resolvedTo = now;
      if (!now || observation.resolvedTo || JSON.stringify(now) === JSON.stringify(account)) {
        // A still wallet the service has not caught up with (the catalog learns a resolution seconds
        // after the chain's) is read again; what still differs at the last read is a violation.
        if (!now || last || options.agrees(observation)) {
          wallets.push(observation);
          return;
        }
      } else if (options.agrees({ ...observation, truth: now })) {
        // The answers hold a later state than data_as_of says (it is a lower bound: a wallet's snapshot
        // keeps the progress of its last rebuild), and agree exactly with the truth now.
        wallets.push({ ...observation, truth: now });
        return;
      } else if (last) {
        wallets.push({ ...observation, movedTo: now });
        return;
      }
      // A wallet trading right now is read again once it has been still a moment.
      await sleep(options.settleMs * attempt);
    }
    unread.push({
      wallet,
      reason: 'inconsistent',
      detail: `statistics, positions and curve named different data_as_of ${options.readAttempts} times`,
      truth: truth ? await truth.wallet(wallet) : null,
    });
  });
  wallets.sort((a, b) => a.wallet.localeCompare(b.wallet));
  unread.sort((a, b) => a.wallet.localeCompare(b.wallet));

  return {
    wallets,
    unread,
    listed: {
      board: board.items.length,
      truth: listedByTruth.addresses.length,
      union: all.length,
      truncated: board.truncated || listedByTruth.truncated,
    },
  };
}
