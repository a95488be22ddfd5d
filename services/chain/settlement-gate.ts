/**
 * Where settlement records wait for the catalog. A record whose token or condition the catalog does
 * not know yet is held (and kept in the source's checkpoint), never dropped; so is a conversion until
 * the chain has prepared its market's questions (neg-risk-book.ts) and the catalog names their tokens.
 * Holding one must not let a later change of the same position overtake it: every later record of a
 * wallet with a held record is held too, so a position-ledger consumer still sees each (wallet, token)
 * in chain order. Records of other wallets, and resolutions, go through; preparations are learnt.
 */
import type { ChainConditionResolved, ChainLedgerEvent } from '../events/types.js';
import type { ChainCatalog } from './catalog.js';
import { type EventContext, toLedgerEvent, toResolutionEvent } from './ledger-events.js';
import type { NegRiskBook } from './neg-risk-book.js';
import { type SettlementRecord, walletOf } from './settlement-records.js';

export interface Released {
  ledger: ChainLedgerEvent[];
  resolutions: ChainConditionResolved[];
  rejected: Array<{ record: SettlementRecord; reason: string }>;
}

export class SettlementGate {
  private held: SettlementRecord[];

  constructor(
    private readonly catalog: ChainCatalog,
    private readonly negRisk: NegRiskBook,
    held: readonly SettlementRecord[] = [],
  ) {
    this.held = [...held];
  }

  get pending(): readonly SettlementRecord[] {
    return this.held;
  }

  /** Held records first (they are older), then the fresh ones, in chain order. */
  admit(fresh: readonly SettlementRecord[], context: EventContext): Released {
    const released: Released = { ledger: [], resolutions: [], rejected: [] };
    const stillHeld: SettlementRecord[] = [];
    const blockedWallets = new Set<string>();
    // The book answers "as of" a record's position, so a held conversion is not changed by a question prepared after it.
    for (const record of fresh) {
      if (record.kind !== 'prepared') continue;
      const { prepared, at } = record;
      const point = { block: at.blockNumber, logIndex: at.logIndex, blockHash: at.blockHash };
      if (prepared.type === 'market_prepared')
        this.negRisk.marketPrepared(prepared.negRiskMarketId, prepared.oracle, prepared.feeBips, point);
      else this.negRisk.questionPrepared(prepared.negRiskMarketId, prepared.index, point);
    }
    for (const record of [...this.held, ...fresh]) {
      if (record.kind === 'prepared') continue;
      if (record.kind === 'resolution') {
        released.resolutions.push(toResolutionEvent(record, context));
        continue;
      }
      const wallet = walletOf(record);
      if (blockedWallets.has(wallet)) {
        stillHeld.push(record);
        continue;
      }
      const outcome = toLedgerEvent(record, this.catalog, context, this.negRisk);
      if (outcome.status === 'ready') released.ledger.push(outcome.event);
      else if (outcome.status === 'rejected') released.rejected.push({ record, reason: outcome.reason });
      else {
        stillHeld.push(record);
        blockedWallets.add(wallet);
      }
    }
    this.held = stillHeld;
    return released;
  }

  /** Token and condition ids the held records wait for (a conversion's: its market's questions the catalog lacks). */
  unknownIds(): { tokens: string[]; conditions: string[] } {
    const tokens = new Set<string>();
    const conditions = new Set<string>();
    for (const record of this.held) {
      if (record.kind === 'fill') {
        if (!this.catalog.token(record.fill.tokenId)) tokens.add(record.fill.tokenId);
      } else if (record.kind === 'split' || record.kind === 'merge' || record.kind === 'redemption') {
        if (!this.catalog.condition(record.change.conditionId)) conditions.add(record.change.conditionId);
      } else if (record.kind === 'conversion') {
        for (const q of this.negRisk.at(record.conversion.negRiskMarketId, record.at)?.questions ?? [])
          if (!this.catalog.condition(q.conditionId)) conditions.add(q.conditionId);
      }
    }
    return { tokens: [...tokens], conditions: [...conditions] };
  }

  /** Conversions held (for the catalog or for the chain's questions), and the block time of the oldest. */
  waitingConversions(): { count: number; oldestBlockTimeMs: number | null } {
    let count = 0;
    let oldest: number | null = null;
    for (const record of this.held) {
      if (record.kind !== 'conversion') continue;
      count += 1;
      if (oldest === null || record.at.blockTimeMs < oldest) oldest = record.at.blockTimeMs;
    }
    return { count, oldestBlockTimeMs: oldest };
  }

  /** A reorg orphaned these blocks: their held records and preparations never happened. */
  dropBlocks(hashes: ReadonlySet<string>): number {
    this.negRisk.dropBlocks(hashes);
    const before = this.held.length;
    this.held = this.held.filter((record) => !hashes.has(record.at.blockHash));
    return before - this.held.length;
  }

  /** A reorg rewound the reader to `blockNumber`: held records above it are read again. */
  dropAfter(blockNumber: number): number {
    this.negRisk.dropAfter(blockNumber);
    const before = this.held.length;
    this.held = this.held.filter((record) => record.at.blockNumber <= blockNumber);
    return before - this.held.length;
  }

  /** Records handed over (a backfill's leftovers, older than anything here) go first. */
  prepend(records: readonly SettlementRecord[]): void {
    this.held = [...records, ...this.held];
  }
}
