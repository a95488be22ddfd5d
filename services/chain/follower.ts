/**
 * Follows Polygon's head for settlement events. Each step reads the next checkpointed block range up
 * to the confirmed head (head - CHAIN_CONFIRMATIONS), in a window that halves when the provider refuses
 * it and doubles after clean answers, and publishes what it found, then writes the checkpoint. A crash
 * between publishing and the checkpoint re-publishes the same events (ids are the logs' identities; the
 * sink drops what it has), so nothing is lost or doubled.
 *
 * Reorgs deeper than the confirmations are caught by hashes: the first block of every range must
 * name the last block read as its parent (and, when the head moved without a new confirmed block,
 * the last block read must still be on the node). On a mismatch the follower walks back the blocks it published (their hashes, kept for
 * CHAIN_REORG_WINDOW_BLOCKS blocks) to the newest one still on the chain, publishes a block_retracted
 * event for every ledger group of every orphaned block (and re-sends orphaned resolutions as
 * retracted), and reads again from there: the replacement events follow the retractions on the same
 * partitions.
 */
import path from 'node:path';
import type { ChainConditionResolved, ChainCoverageStatement, ChainLedgerEvent, DeadLetter, Source } from '../events/types.js';
import type { EventPublisher } from '../events/publisher.js';
import { CheckpointFile } from '../ingest/checkpoint.js';
import type { Logger } from '../logger.js';
import { type ChainReader, LogRangeTooLargeError } from '../ports/chain-reader.js';
import type { ChainCatalog } from './catalog.js';
import type { CatalogLookup } from './catalog-lookup.js';
import type { ContractBook } from './contract-book.js';
import { type CoveredRange, extendCoverage, rangeRead } from './covered-ranges.js';
import { blockRetraction, type EventContext, watermarkKeys, watermarks } from './ledger-events.js';
import { NegRiskBook } from './neg-risk-book.js';
import { AdaptiveWindow, type RangeRead, ReorgInFlightError, readRange } from './range-reader.js';
import { type Released, SettlementGate } from './settlement-gate.js';
import type { SettlementRecord } from './settlement-records.js';

/** A published block: what a reorg must take back. */
export interface PublishedBlock {
  number: number;
  hash: string;
  time_ms: number;
  groups: string[];
  resolutions: ChainConditionResolved[];
}

export interface FollowerCheckpoint {
  version: 1;
  chain_id: number;
  /** First block this source covers without a hole up to its tip (backfills that reach it move it down). */
  first_block: number;
  /** Time of first_block (ms); absent in checkpoints written before it was kept (then read from the node once). */
  first_time_ms?: number;
  /** Backfilled ranges below a hole: they join first_block once the blocks between are read (chain-backfill.ts). */
  covered_below?: CoveredRange[];
  next_block: number;
  /** The last block read and its hash (the parent the next range must name). */
  tip: { number: number; hash: string; time_ms: number } | null;
  recent: PublishedBlock[];
  pending: SettlementRecord[];
  log_window: number;
}

export interface FollowerOptions {
  reader: ChainReader;
  book: ContractBook;
  catalog: ChainCatalog;
  lookup: CatalogLookup | null;
  publisher: EventPublisher;
  logger: Logger;
  checkpointFile: string;
  chainId: number;
  source: Source;
  confirmations: number;
  reorgWindowBlocks: number;
  logRangeBlocks: number;
  logRangeMaxBlocks: number;
  /** Where a follower without a checkpoint starts; null = the confirmed head. */
  startBlock: number | null;
  /** Stop at this block (a backfill of a fixed range); default: follow the head. */
  untilBlock?: number;
  /**
   * Whether its watermarks state the contiguous coverage (ChainCoverageStatement): the service's
   * follower does; a backfill's range is not known to join the follower's until it hands over.
   */
  statesCoverage?: boolean;
  negRiskAdapter: string;
  /** The neg-risk markets the chain prepared (neg-risk-book.ts); default: `chain-neg-risk.json` beside the checkpoint. */
  negRiskFile?: string;
  /** A book shared with another follower of this process (the history fill learns what the head's follower needs). */
  negRiskBook?: NegRiskBook;
  /** Partitions of the ledger topic: a watermark goes to each after every range. */
  ledgerPartitions: number;
  /** Held records beyond this stop the follower from reading further (bounded memory and checkpoint). */
  maxPending?: number;
  /** CHAIN_HOLD_MAX_MS: a record held this long is released with the best evidence there is, or dead-lettered (settlement-gate.ts). */
  holdMaxMs: number;
  clock?: () => number;
}

export interface ChainStatus {
  chain_id: number;
  head_block: number | null;
  /** head - confirmations: what is treated as final and published. */
  final_block: number | null;
  /** The last block read and published. */
  ingested_block: number | null;
  lag_blocks: number | null;
  first_block: number | null;
  /** Time of the last block read (ms), for freshness. */
  ingested_block_time_ms: number | null;
  pending_events: number;
  /** Conversions among pending_events: waiting for the chain to prepare their questions or the catalog to name their tokens. */
  conversions_waiting: number;
  /** Block time of the oldest conversion waiting (ms), null when none waits. */
  oldest_conversion_waiting_ms: number | null;
  /** Conversions waiting whose own transaction's splits do not fit their index set. */
  conversions_unfit_evidence: number;
  /** Since start: conversions released with their question count from their own transaction. */
  conversions_from_transaction: number;
  /** Since start: conversions released with fee 0 assumed (neither MarketPrepared nor their transaction told it). */
  conversion_fees_assumed: number;
  /** Since start: records released only because they were held past hold_limit_ms. */
  released_at_hold_limit: number;
  /** Since start: records dead-lettered because they were held past hold_limit_ms and nothing priced them. */
  dead_lettered_at_hold_limit: number;
  /** CHAIN_HOLD_MAX_MS: how long a record may wait. */
  hold_limit_ms: number;
  reorgs: number;
  retracted_blocks: number;
  log_range_blocks: number;
  confirmations: number;
}

export interface StepResult {
  published: number;
  deadLettered: number;
  /** True when the follower is at the confirmed head (the caller can wait for the next block). */
  caughtUp: boolean;
}

const DEFAULT_MAX_PENDING = 50_000;

export class ChainFollower {
  private readonly checkpoint: CheckpointFile<FollowerCheckpoint | null>;
  private state: FollowerCheckpoint | null;
  private readonly gate: SettlementGate;
  private readonly negRisk: NegRiskBook;
  private readonly window: AdaptiveWindow;
  private head: number | null = null;
  private reorgs = 0;
  private retractedBlocks = 0;
  private readonly watermarkKeys: string[];
  private lastFullWarningMs = 0;

  constructor(private readonly options: FollowerOptions) {
    this.checkpoint = new CheckpointFile<FollowerCheckpoint | null>(options.checkpointFile, null);
    this.state = this.checkpoint.read();
    if (this.state && this.state.chain_id !== options.chainId)
      throw new Error(`${options.checkpointFile} belongs to chain ${this.state.chain_id}, the RPC serves ${options.chainId}`);
    const negRisk =
      options.negRiskBook ??
      new NegRiskBook(
        options.negRiskAdapter.toLowerCase(),
        options.negRiskFile ?? path.join(path.dirname(options.checkpointFile), 'chain-neg-risk.json'),
      );
    this.gate = new SettlementGate(options.catalog, negRisk, options.holdMaxMs, this.state?.pending ?? []);
    this.negRisk = negRisk;
    this.window = new AdaptiveWindow(this.state?.log_window ?? options.logRangeBlocks, options.logRangeMaxBlocks);
    this.watermarkKeys = watermarkKeys(options.ledgerPartitions);
  }

  private now(): number {
    return (this.options.clock ?? Date.now)();
  }

  private context(): EventContext {
    return { chainId: this.options.chainId, source: this.options.source, nowMs: this.now(), negRiskAdapter: this.options.negRiskAdapter };
  }

  status(): ChainStatus {
    const final = this.head === null ? null : this.head - this.options.confirmations;
    const ingested = this.state?.tip?.number ?? null;
    const conversions = this.gate.waitingConversions();
    const counts = this.gate.counts;
    return {
      chain_id: this.options.chainId,
      head_block: this.head,
      final_block: final,
      ingested_block: ingested,
      lag_blocks: final === null ? null : Math.max(0, final - (ingested ?? (this.state?.next_block ?? final + 1) - 1)),
      first_block: this.state?.first_block ?? null,
      ingested_block_time_ms: this.state?.tip?.time_ms ?? null,
      pending_events: this.gate.pending.length,
      conversions_waiting: conversions.count,
      oldest_conversion_waiting_ms: conversions.oldestBlockTimeMs,
      conversions_unfit_evidence: conversions.unfit,
      conversions_from_transaction: counts.conversionsFromTransaction,
      conversion_fees_assumed: counts.conversionFeesAssumed,
      released_at_hold_limit: counts.releasedAtHoldLimit,
      dead_lettered_at_hold_limit: counts.deadLetteredAtHoldLimit,
      hold_limit_ms: this.gate.holdMaxMs,
      reorgs: this.reorgs,
      retracted_blocks: this.retractedBlocks,
      log_range_blocks: this.window.size,
      confirmations: this.options.confirmations,
    };
  }

  /** One range (or a reorg repair): read, publish, checkpoint. */
  async step(): Promise<StepResult> {
    const { reader, confirmations } = this.options;
    const previousHead = this.head;
    this.head = Number(await reader.blockNumber());
    const target = Math.min(this.head - confirmations, this.options.untilBlock ?? Number.POSITIVE_INFINITY);
    this.state ??= this.fresh(target);
    const state = this.state;
    // A head that did not move brings nothing new; a reorg shows as a moved head (or, below, as a
    // range whose first block does not name the last block read as its parent).
    if (state.next_block > target && this.head !== previousHead && state.tip && (await this.repairReorg(state)))
      return { published: 0, deadLettered: 0, caughtUp: false };
    const learnt = await this.learnUnknown();
    // Markets learnt, or records at the hold limit, release held records even when no block is read.
    const releaseHeld = async (): Promise<{ published: number; deadLettered: number }> => {
      if (learnt === 0 && !this.gate.holdLimitReached(this.now())) return { published: 0, deadLettered: 0 };
      const out = await this.release([], state, this.gate.pending);
      this.save(state);
      return out;
    };
    if (state.next_block > target) return { ...(await releaseHeld()), caughtUp: true };
    if (this.gate.pending.length >= (this.options.maxPending ?? DEFAULT_MAX_PENDING)) {
      const out = await releaseHeld();
      if (out.published + out.deadLettered > 0) return { ...out, caughtUp: false };
      if (this.now() - this.lastFullWarningMs > 60_000) {
        this.lastFullWarningMs = this.now();
        this.options.logger.warn(
          { pending: this.gate.pending.length },
          'chain: too many events wait for unknown markets; not reading further',
        );
      }
      return { published: 0, deadLettered: 0, caughtUp: true };
    }
    const from = state.next_block;
    const to = Math.min(target, from + this.window.size - 1);
    // Blocks published ahead of a checkpoint that never landed (a crash): their hashes are checked too.
    const ahead = state.recent.filter((block) => block.number >= from && block.number <= to);
    let read: RangeRead;
    try {
      read = await readRange(
        reader,
        this.options.book,
        { from, to, extraHeaders: [from, to, ...ahead.map((block) => block.number)] },
        { source: this.options.source, nowMs: this.now() },
        (market) => this.negRisk.feeBips(market) !== null,
      );
    } catch (error) {
      if (error instanceof LogRangeTooLargeError) {
        this.window.refused();
        this.options.logger.info({ from, to, window: this.window.size }, 'chain: range refused; narrowing');
        return { published: 0, deadLettered: 0, caughtUp: false };
      }
      if (error instanceof ReorgInFlightError) {
        this.options.logger.info({ from, to, reason: error.message }, 'chain: reorg while reading; reading again');
        return { published: 0, deadLettered: 0, caughtUp: false };
      }
      throw error;
    }
    const first = read.headers.get(from);
    if (state.tip && first && first.parentHash !== state.tip.hash) {
      // The last block read is not this range's parent: a reorg replaced it (or is under way).
      await this.repairReorg(state);
      return { published: 0, deadLettered: 0, caughtUp: false };
    }
    const stale = ahead.filter((block) => read.headers.get(block.number)?.hash !== block.hash);
    if (stale.length > 0) await this.retract(state, stale);
    await this.options.publisher.deadLetter(read.deadLetters);
    const { published, deadLettered } = await this.release(read.records, state, this.gate.pending);
    const last = read.headers.get(to) as NonNullable<ReturnType<typeof read.headers.get>>;
    if (from === state.first_block && first) state.first_time_ms = first.timestamp * 1000;
    await this.options.publisher.publish(
      'chainLedger',
      watermarks(
        this.claimable({ number: to, hash: last.hash, timeMs: last.timestamp * 1000 }),
        this.watermarkKeys,
        this.context(),
        await this.coverageStatement(state),
      ),
    );
    state.tip = { number: to, hash: last.hash, time_ms: last.timestamp * 1000 };
    state.next_block = to + 1;
    state.recent = state.recent.filter((block) => block.number > to - this.options.reorgWindowBlocks);
    this.window.succeeded(to - from + 1);
    this.save(state);
    return { published, deadLettered: read.deadLetters.length + deadLettered, caughtUp: to >= target };
  }

  /**
   * The block a watermark may claim after reading up to `read`: a watermark says everything up to its
   * block is published, so while the gate holds a record it claims no further than the block before the
   * oldest one held (the time just before it). The claim stays there until that record goes out (at the
   * latest CHAIN_HOLD_MAX_MS later), and consumers' "as of" with it; the records of other wallets still go out.
   */
  private claimable(read: { number: number; hash: string; timeMs: number }): { number: number; hash: string; timeMs: number } {
    let oldest: SettlementRecord['at'] | undefined;
    for (const record of this.gate.pending) if (!oldest || record.at.blockNumber < oldest.blockNumber) oldest = record.at;
    if (!oldest || oldest.blockNumber > read.number) return read;
    return { number: oldest.blockNumber - 1, hash: oldest.blockHash, timeMs: oldest.blockTimeMs - 1 };
  }

  /** What this follower's watermarks say about its coverage (null for a backfill's). */
  private async coverageStatement(state: FollowerCheckpoint): Promise<ChainCoverageStatement | null> {
    if (this.options.statesCoverage === false) return null;
    if (state.first_time_ms === undefined) {
      const block = await this.options.reader.block(BigInt(state.first_block));
      if (!block) return null;
      state.first_time_ms = block.timestamp * 1000;
    }
    return { from_block: state.first_block, from_time_ms: state.first_time_ms, history_start_block: this.options.book.historyStartBlock() };
  }

  private fresh(target: number): FollowerCheckpoint {
    const start = this.options.startBlock ?? target;
    return {
      version: 1,
      chain_id: this.options.chainId,
      first_block: start,
      next_block: start,
      tip: null,
      recent: [],
      pending: [],
      log_window: this.window.size,
    };
  }

  /** `held`: the records to keep as pending (before publishing: the ones held before this step admitted any). */
  private save(state: FollowerCheckpoint, held: readonly SettlementRecord[] = this.gate.pending): void {
    state.pending = [...held];
    state.log_window = this.window.size;
    // First the markets learnt: the checkpoint must not move past blocks whose preparations are not kept.
    this.negRisk.save();
    this.checkpoint.write(state);
  }

  private async learnUnknown(): Promise<number> {
    if (!this.options.lookup || this.gate.pending.length === 0) return 0;
    const unknown = this.gate.unknownIds();
    if (unknown.tokens.length === 0 && unknown.conditions.length === 0) return 0;
    try {
      return await this.options.lookup.learn(unknown);
    } catch (error) {
      // The catalog lookup is a convenience: held records also go out once the market poller lists them.
      this.options.logger.warn({ err: error }, 'chain: catalog lookup failed');
      return 0;
    }
  }

  /**
   * Admits records through the gate and publishes what is released. The blocks and groups about to be
   * published are checkpointed first (with the held records as they were), so a crash mid-publish
   * leaves them known to the reorg check and the released records still pending. Returns the events
   * published and the records dead-lettered.
   */
  private async release(
    records: readonly SettlementRecord[],
    state: FollowerCheckpoint,
    heldBefore: readonly SettlementRecord[],
  ): Promise<{ published: number; deadLettered: number }> {
    const before = [...heldBefore];
    const released: Released = this.gate.admit(records, this.context());
    if (released.ledger.length + released.resolutions.length + released.rejected.length === 0) return { published: 0, deadLettered: 0 };
    this.remember(state, released.ledger, released.resolutions);
    this.save(state, before);
    const deadLetters: DeadLetter[] = released.rejected.map(({ record, reason }) => ({
      stage: 'ingest',
      source: this.options.source,
      origin: 'polygon/settlement',
      reason,
      raw: JSON.stringify(record),
      at_ms: this.now(),
    }));
    await this.options.publisher.deadLetter(deadLetters);
    await this.options.publisher.publish('chainLedger', released.ledger);
    await this.options.publisher.publish('chainResolutions', released.resolutions);
    return { published: released.ledger.length + released.resolutions.length, deadLettered: deadLetters.length };
  }

  private remember(state: FollowerCheckpoint, ledger: readonly ChainLedgerEvent[], resolutions: readonly ChainConditionResolved[]): void {
    const horizon = (state.tip?.number ?? state.next_block) - this.options.reorgWindowBlocks;
    const byNumber = new Map(state.recent.map((block) => [block.number, block]));
    const entry = (number: number, hash: string, timeMs: number) => {
      let block = byNumber.get(number);
      if (!block) {
        block = { number, hash, time_ms: timeMs, groups: [], resolutions: [] };
        byNumber.set(number, block);
      }
      return block;
    };
    for (const event of ledger) {
      if (event.block_number <= horizon) continue;
      const block = entry(event.block_number, event.block_hash, event.block_time_ms);
      if (!block.groups.includes(event.ledger_group)) block.groups.push(event.ledger_group);
    }
    for (const resolution of resolutions) {
      if (resolution.block_number <= horizon) continue;
      entry(resolution.block_number, resolution.block_hash, resolution.block_time_ms).resolutions.push(resolution);
    }
    state.recent = [...byNumber.values()].sort((a, b) => a.number - b.number);
  }

  /**
   * Checks that the last block read is still on the chain; if not, retracts every published block
   * above the newest one that is, and rewinds to it. Returns true when it repaired a reorg.
   */
  private async repairReorg(state: FollowerCheckpoint): Promise<boolean> {
    const tip = state.tip as NonNullable<FollowerCheckpoint['tip']>;
    const onChain = await this.options.reader.block(BigInt(tip.number));
    if (onChain?.hash === tip.hash) return false;
    const candidates = [...state.recent].reverse();
    const hashes = await this.options.reader.blocks(candidates.map((block) => BigInt(block.number)));
    let forkBlock: number | null = null;
    for (const block of candidates) {
      if (block.number < tip.number && hashes.get(BigInt(block.number))?.hash === block.hash) {
        forkBlock = block.number;
        break;
      }
    }
    const orphaned = state.recent.filter((block) => forkBlock === null || block.number > forkBlock);
    if (forkBlock === null) {
      // Deeper than every block remembered: rewind to just below the oldest remembered one (or the
      // reorg window below the tip); anything older that was orphaned cannot be named any more.
      forkBlock = Math.max(state.first_block - 1, (state.recent[0]?.number ?? tip.number - this.options.reorgWindowBlocks) - 1);
      this.options.logger.error({ tip, rewindTo: forkBlock }, 'chain: reorg deeper than the remembered window');
    }
    await this.retract(state, orphaned);
    // Held records above the fork are read again from the new chain.
    const dropped = this.gate.dropAfter(forkBlock);
    const fork = forkBlock >= state.first_block ? await this.options.reader.block(BigInt(forkBlock)) : null;
    state.recent = state.recent.filter((block) => block.number <= (forkBlock as number));
    state.next_block = forkBlock + 1;
    state.tip = fork ? { number: forkBlock, hash: fork.hash, time_ms: fork.timestamp * 1000 } : null;
    this.reorgs++;
    this.options.logger.warn(
      { from: forkBlock + 1, to: tip.number, retractedBlocks: orphaned.length, droppedPending: dropped },
      'chain: reorg; orphaned blocks retracted',
    );
    this.save(state);
    return true;
  }

  /**
   * Publishes the retraction of orphaned blocks (a block_retracted event per ledger group, each
   * resolution again as retracted), forgets them, and drops the held records read from them.
   */
  private async retract(state: FollowerCheckpoint, orphaned: readonly PublishedBlock[]): Promise<void> {
    const context = this.context();
    const retractions = orphaned.flatMap((block) =>
      block.groups.map((group) => blockRetraction({ number: block.number, hash: block.hash, timeMs: block.time_ms }, group, context)),
    );
    const resolutions = orphaned.flatMap((block) =>
      block.resolutions.map((resolution) => ({ ...resolution, retracted: true, ingested_at_ms: context.nowMs })),
    );
    await this.options.publisher.publish('chainLedger', retractions);
    await this.options.publisher.publish('chainResolutions', resolutions);
    const gone = new Set(orphaned.map((block) => `${block.number}:${block.hash}`));
    state.recent = state.recent.filter((block) => !gone.has(`${block.number}:${block.hash}`));
    this.retractedBlocks += orphaned.length;
    this.gate.dropBlocks(new Set(orphaned.map((block) => block.hash)));
  }

  /** The neg-risk markets this follower learnt, to share with another follower of this process. */
  get negRiskBook(): NegRiskBook {
    return this.negRisk;
  }

  /**
   * A range another (bounded) follower of this process read whole below this one's first block joins
   * the coverage (covered-ranges.ts), and the records it still holds for the catalog are held here,
   * first (they are older). Only between steps: a step works on the state across awaits.
   */
  adoptRange(done: FollowerCheckpoint): void {
    if (!this.state) throw new Error('chain: a range can join the coverage only after the first step');
    if (done.chain_id !== this.state.chain_id)
      throw new Error(`chain: the range read is of chain ${done.chain_id}, this follower reads ${this.state.chain_id}`);
    Object.assign(this.state, extendCoverage(this.state, rangeRead(done)));
    this.gate.prepend(done.pending);
    this.save(this.state);
  }

  /** The checkpoint as written (null before the first step). */
  checkpointState(): FollowerCheckpoint | null {
    return this.state;
  }
}
