/**
 * Where settlement records wait for the catalog. A record whose token or condition the catalog does
 * not know yet is held (and kept in the source's checkpoint), never dropped. Holding one must not let
 * a later change of the same position overtake it: every later record of a wallet with a held record
 * is held too, so a position-ledger consumer still sees each (wallet, token) in chain order. Records
 * of other wallets, and resolutions, go through.
 */
import type { ChainConditionResolved, ChainLedgerEvent } from '../events/types.js';
import type { ChainCatalog } from './catalog.js';
import { type EventContext, toLedgerEvent, toResolutionEvent } from './ledger-events.js';
import { type SettlementRecord, walletsOf } from './settlement-records.js';

export interface Released {
  ledger: ChainLedgerEvent[];
  resolutions: ChainConditionResolved[];
  rejected: Array<{ record: SettlementRecord; reason: string }>;
}

export class SettlementGate {
  private held: SettlementRecord[];

  constructor(
    private readonly catalog: ChainCatalog,
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
    for (const record of [...this.held, ...fresh]) {
      if (record.kind === 'resolution') {
        released.resolutions.push(toResolutionEvent(record, context));
        continue;
      }
      // A transfer changes two wallets: it waits behind either's held records, and holds both back.
      const wallets = walletsOf(record);
      if (wallets.some((wallet) => blockedWallets.has(wallet))) {
        stillHeld.push(record);
        for (const wallet of wallets) blockedWallets.add(wallet);
        continue;
      }
      const outcome = toLedgerEvent(record, this.catalog, context);
      if (outcome.status === 'ready') released.ledger.push(outcome.event);
      else if (outcome.status === 'rejected') released.rejected.push({ record, reason: outcome.reason });
      else {
        stillHeld.push(record);
        for (const wallet of wallets) blockedWallets.add(wallet);
      }
    }
    this.held = stillHeld;
    return released;
  }

  /** Token and condition ids the held records wait for. */
  unknownIds(): { tokens: string[]; conditions: string[] } {
    const tokens = new Set<string>();
    const conditions = new Set<string>();
    for (const record of this.held) {
      if (record.kind === 'fill') {
        if (!this.catalog.token(record.fill.tokenId)) tokens.add(record.fill.tokenId);
      } else if (record.kind === 'transfer') {
        if (!this.catalog.token(record.transfer.tokenId)) tokens.add(record.transfer.tokenId);
      } else if (record.kind === 'split' || record.kind === 'merge' || record.kind === 'redemption') {
        if (!this.catalog.condition(record.change.conditionId)) conditions.add(record.change.conditionId);
      }
    }
    return { tokens: [...tokens], conditions: [...conditions] };
  }

  /** A reorg orphaned these blocks: their held records never happened. */
  dropBlocks(hashes: ReadonlySet<string>): number {
    const before = this.held.length;
    this.held = this.held.filter((record) => !hashes.has(record.at.blockHash));
    return before - this.held.length;
  }

  /** A reorg rewound the reader to `blockNumber`: held records above it are read again. */
  dropAfter(blockNumber: number): number {
    const before = this.held.length;
    this.held = this.held.filter((record) => record.at.blockNumber <= blockNumber);
    return before - this.held.length;
  }

  /** Records handed over (a backfill's leftovers, older than anything here) go first. */
  prepend(records: readonly SettlementRecord[]): void {
    this.held = [...records, ...this.held];
  }
}
