/**
 * Where settlement records wait for the catalog. A record whose token or condition the catalog does
 * not know yet is held (and kept in the source's checkpoint); so is a conversion until its market's
 * questions as of the conversion are known (the chain's preparations, neg-risk-book.ts, or its own
 * transaction, conversion-evidence.ts) and the catalog names their tokens. Holding one must not let a
 * later change of the same position overtake it: every later record of a wallet with a held record is
 * held too, so a position-ledger consumer still sees each (wallet, token) in chain order. Records of
 * other wallets, and resolutions, go through; preparations are learnt.
 *
 * Nothing is held forever: a record still waiting `holdMaxMs` after it was first held (wall clock,
 * kept with the record across restarts) is released with the best evidence there is (a conversion
 * with the catalog's questions of its market) or, when nothing prices it, dead-lettered with the
 * reason; either way the wallet's later records go on. Both are counted (`counts`).
 */
import type { ChainConditionResolved, ChainLedgerEvent } from '../events/types.js';
import type { ChainCatalog } from './catalog.js';
import { conversionQuestions, type EventContext, type LedgerOutcome, toLedgerEvent, toResolutionEvent } from './ledger-events.js';
import type { NegRiskBook } from './neg-risk-book.js';
import { type SettlementRecord, walletsOf } from './settlement-records.js';

export interface Released {
  ledger: ChainLedgerEvent[];
  resolutions: ChainConditionResolved[];
  rejected: Array<{ record: SettlementRecord; reason: string }>;
}

/** Since this gate started. */
export interface GateCounts {
  /** Conversions released with their question count from their own transaction's splits. */
  conversionsFromTransaction: number;
  /** Conversions released with fee 0 assumed: neither MarketPrepared nor their transaction told it. */
  conversionFeesAssumed: number;
  /** Records released only because they were held past the limit (conversions with the catalog's questions). */
  releasedAtHoldLimit: number;
  /** Records dead-lettered because they were held past the limit and nothing priced them. */
  deadLetteredAtHoldLimit: number;
}

export class SettlementGate {
  private held: SettlementRecord[];
  readonly counts: GateCounts = {
    conversionsFromTransaction: 0,
    conversionFeesAssumed: 0,
    releasedAtHoldLimit: 0,
    deadLetteredAtHoldLimit: 0,
  };

  constructor(
    private readonly catalog: ChainCatalog,
    private readonly negRisk: NegRiskBook,
    /** CHAIN_HOLD_MAX_MS. */
    readonly holdMaxMs: number,
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
      // A transfer changes two wallets: it waits behind either's held records, and holds both back.
      const wallets = walletsOf(record);
      // The limit counts from when the record was first held, for itself or behind its wallet's.
      const heldSinceMs = record.heldSinceMs ?? context.nowMs;
      const hold = () => stillHeld.push(record.heldSinceMs === undefined ? { ...record, heldSinceMs } : record);
      if (wallets.some((wallet) => blockedWallets.has(wallet))) {
        hold();
        for (const wallet of wallets) blockedWallets.add(wallet);
        continue;
      }
      let outcome = toLedgerEvent(record, this.catalog, context, this.negRisk);
      if (outcome.status === 'unknown' && context.nowMs - heldSinceMs >= this.holdMaxMs) {
        outcome = this.lastResort(record, outcome, context, heldSinceMs);
        if (outcome.status === 'ready') this.counts.releasedAtHoldLimit += 1;
        else this.counts.deadLetteredAtHoldLimit += 1;
      }
      if (outcome.status === 'ready') {
        released.ledger.push(outcome.event);
        const conversion = outcome.event.conversion;
        if (conversion?.questions_from === 'transaction') this.counts.conversionsFromTransaction += 1;
        if (conversion?.fee_from === 'assumed') this.counts.conversionFeesAssumed += 1;
      } else if (outcome.status === 'rejected') released.rejected.push({ record, reason: outcome.reason });
      else {
        hold();
        for (const wallet of wallets) blockedWallets.add(wallet);
      }
    }
    this.held = stillHeld;
    return released;
  }

  /** Held records that reached the limit by `nowMs` (the follower admits even without new logs then). */
  holdLimitReached(nowMs: number): boolean {
    return this.held.some((record) => record.heldSinceMs !== undefined && nowMs - record.heldSinceMs >= this.holdMaxMs);
  }

  /** A record held past the limit: the best evidence there is, or why nothing prices it. */
  private lastResort(
    record: Exclude<SettlementRecord, { kind: 'resolution' | 'prepared' }>,
    waiting: Extract<LedgerOutcome, { status: 'unknown' }>,
    context: EventContext,
    heldSinceMs: number,
  ): Exclude<LedgerOutcome, { status: 'unknown' }> {
    const held = `held ${Math.round((context.nowMs - heldSinceMs) / 1000)} s (limit ${Math.round(this.holdMaxMs / 1000)} s)`;
    if (record.kind === 'conversion') {
      const last = toLedgerEvent(record, this.catalog, context, this.negRisk, true);
      if (last.status !== 'unknown') return last;
      const missing = last.conditionIds ?? [];
      const why =
        missing.length > 0
          ? `the catalog does not name the tokens of question condition(s) ${missing.join(', ')}`
          : `neither the chain (MarketPrepared/QuestionPrepared, its transaction's splits${waiting.unfit ? `: ${waiting.unfit}` : ''}) nor the catalog tell market ${record.conversion.negRiskMarketId}'s questions`;
      return { status: 'rejected', reason: `conversion ${held}: ${why}` };
    }
    const unknown = waiting.tokenId ? `token ${waiting.tokenId}` : `condition ${waiting.conditionId ?? '?'}`;
    return { status: 'rejected', reason: `${record.kind} ${held}: the catalog does not know ${unknown}` };
  }

  /** Token and condition ids the held records wait for (a conversion's: its market's questions the catalog lacks). */
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
      } else if (record.kind === 'conversion') {
        const market = conversionQuestions(record, this.negRisk, { negRiskAdapter: this.negRisk.adapter }, this.catalog);
        for (const q of market.ok ? market.questions : []) if (!this.catalog.condition(q.conditionId)) conditions.add(q.conditionId);
      }
    }
    return { tokens: [...tokens], conditions: [...conditions] };
  }

  /**
   * Conversions held (for the catalog, for their market's questions, or behind an earlier record of
   * their wallet), the block time of the oldest, and how many of them have transaction evidence that
   * does not fit their index set.
   */
  waitingConversions(): { count: number; oldestBlockTimeMs: number | null; unfit: number } {
    let count = 0;
    let unfit = 0;
    let oldest: number | null = null;
    for (const record of this.held) {
      if (record.kind !== 'conversion') continue;
      count += 1;
      if (oldest === null || record.at.blockTimeMs < oldest) oldest = record.at.blockTimeMs;
      const market = conversionQuestions(record, this.negRisk, { negRiskAdapter: this.negRisk.adapter }, this.catalog);
      if (!market.ok && market.unfit) unfit += 1;
    }
    return { count, oldestBlockTimeMs: oldest, unfit };
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
