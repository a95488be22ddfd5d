/**
 * Everything the simulated chain settles, in the order it happened: taker fills (with their maker),
 * splits, merges, redemptions, wallet-to-wallet ERC-1155 transfers, neg-risk preparations and
 * conversions, and resolutions. The simulator's blocks are one per simulated second, so
 * a block's transactions are the journal entries of its second, in journal order.
 */
import type { ActivityEntry, NegRiskConversion, ShareTransfer } from './ledger.js';
import type { NegRiskPlan } from './neg-risk.js';
import type { SimTrade } from './trades.js';

export type JournalEntry =
  | { kind: 'trade'; second: number; trade: SimTrade }
  | { kind: 'activity'; second: number; activity: ActivityEntry }
  | { kind: 'transfer'; second: number; transfer: ShareTransfer }
  | { kind: 'resolution'; second: number; marketIndex: number }
  /** The NegRiskAdapter preparing a neg-risk market (with `market`) and questions of it, by index. */
  | { kind: 'neg-risk-prepare'; second: number; plan: NegRiskPlan; market: boolean; questions: number[] }
  | { kind: 'conversion'; second: number; conversion: NegRiskConversion };

export class ChainJournal {
  readonly entries: JournalEntry[] = [];

  append(entry: JournalEntry): void {
    // Generation runs second by second; a settlement stamped at the closing second can follow that
    // second's trades, never an earlier one. Keep the order by second even if that ever changes.
    let at = this.entries.length;
    while (at > 0 && (this.entries[at - 1] as JournalEntry).second > entry.second) at--;
    this.entries.splice(at, 0, entry);
  }

  /** Index range [start, end) of the entries with fromSecond <= second <= toSecond. */
  range(fromSecond: number, toSecond: number): [number, number] {
    return [this.firstAtOrAfter(fromSecond), this.firstAtOrAfter(toSecond + 1)];
  }

  private firstAtOrAfter(second: number): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.entries[mid] as JournalEntry).second < second) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
