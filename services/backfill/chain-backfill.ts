/**
 * `npm run backfill -- --source chain`: settlement events of a block range, read the way the follower
 * reads the head (services/chain/follower.ts, bounded to the range), into the service's event log.
 *
 * Resumable: the run is a follower with its own checkpoint (DATA_DIR/ingest/chain-backfill-*.json),
 * written after every range, so a kill -9 repeats at most one range, whose events carry the same ids
 * (the sink drops what it has). Finished, it hands over to the service's follower: with no follower
 * checkpoint yet, the follower continues right after the range; with one, the range extends its
 * coverage downwards (the default range ends where the follower started) and anything still waiting
 * for the catalog moves into the follower's checkpoint, which keeps retrying it.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ChainCatalog } from '../chain/catalog.js';
import type { CatalogLookup } from '../chain/catalog-lookup.js';
import type { ContractBook } from '../chain/contract-book.js';
import type { NegRiskBook } from '../chain/neg-risk-book.js';
import { extendCoverage, rangeRead } from '../chain/covered-ranges.js';
import { ChainFollower, type FollowerCheckpoint } from '../chain/follower.js';
import type { Config } from '../config.js';
import type { EventPublisher } from '../events/publisher.js';
import type { Source } from '../events/types.js';
import { CheckpointFile } from '../ingest/checkpoint.js';
import type { Logger } from '../logger.js';
import type { ChainReader } from '../ports/chain-reader.js';
import { type BackfillArguments, DEFAULT_RANGE_DAYS, requestKey, UsageError } from './arguments.js';
import { formatDuration, type ProgressOutput } from './progress.js';
import { chainLedger } from '../read-models/chain-ledger/index.js';

interface ChainBackfillRequest {
  version: 1;
  key: string;
  from_block: number;
  to_block: number;
  totals: ChainBackfillTotals;
}

interface ChainBackfillTotals {
  events: number;
  dead_letters: number;
}

export interface ChainBackfillFiles {
  request: string;
  progress: string;
  follower: string;
}

export function chainBackfillFiles(dataDir: string): ChainBackfillFiles {
  const folder = path.join(dataDir, 'ingest');
  return {
    request: path.join(folder, 'chain-backfill-request.json'),
    progress: path.join(folder, 'chain-backfill-checkpoint.json'),
    follower: path.join(folder, 'chain-checkpoint.json'),
  };
}

/** An unfinished chain backfill's range and how far it has read (api/openapi.yaml HealthCoverage.backfill). */
export interface ChainBackfillState {
  from_block: number;
  to_block: number;
  blocks_done: number;
  blocks_to_do: number;
  events: number;
}

/**
 * The progress of the chain backfill checkpointed in `files`, null when none is (never started, or
 * finished: a finished run clears its request). Read from its files, so the service shows the progress
 * of a backfill another process runs on the same data folder; both files are replaced whole on write.
 */
export function readChainBackfillState(files: ChainBackfillFiles): ChainBackfillState | null {
  const request = new CheckpointFile<ChainBackfillRequest | null>(files.request, null).read();
  if (!request) return null;
  const progress = new CheckpointFile<Pick<FollowerCheckpoint, 'next_block'> | null>(files.progress, null).read();
  const total = request.to_block - request.from_block + 1;
  // The run reads upwards from from_block; next_block is the first block it has not read.
  const done = progress ? Math.min(total, Math.max(0, progress.next_block - request.from_block)) : 0;
  return {
    from_block: request.from_block,
    to_block: request.to_block,
    blocks_done: done,
    blocks_to_do: total - done,
    events: request.totals.events,
  };
}

/** The first block whose time is at or after `ms` (binary search over block headers). */
export async function blockAt(reader: ChainReader, ms: number, low: number, high: number): Promise<number> {
  let lo = low;
  let hi = high;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const block = await reader.block(BigInt(mid));
    // A block the node does not have lies before the chain's (or the node's) history.
    if (!block || block.timestamp * 1000 < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The block range of a request: explicit blocks, dates, or the defaults (7 days, ending where the follower started or at the confirmed head). */
export async function planChainRange(
  args: BackfillArguments,
  reader: ChainReader,
  book: ContractBook,
  confirmations: number,
  follower: FollowerCheckpoint | null,
  nowMs: number,
): Promise<{ from: number; to: number }> {
  const head = Number(await reader.blockNumber());
  const confirmed = head - confirmations;
  const earliest = book.earliestStartBlock();
  const to =
    args.toBlock ??
    (args.toArg
      ? (await blockAt(reader, Date.parse(args.toArg), earliest, confirmed + 1)) - 1
      : follower
        ? follower.first_block - 1
        : confirmed);
  const from =
    args.fromBlock ??
    (await blockAt(reader, args.fromArg ? Date.parse(args.fromArg) : nowMs - DEFAULT_RANGE_DAYS * 86_400_000, earliest, confirmed + 1));
  if (to > confirmed)
    throw new UsageError(
      `the range ends at block ${to}, past the confirmed head ${confirmed} (head ${head} - ${confirmations} confirmations)`,
    );
  if (from > to) throw new UsageError(`nothing to backfill: block ${from} is after block ${to}`);
  return { from: Math.max(from, earliest), to };
}

export interface ChainBackfillOptions {
  args: BackfillArguments;
  config: Config;
  reader: ChainReader;
  book: ContractBook;
  catalog: ChainCatalog;
  lookup: CatalogLookup;
  publisher: EventPublisher;
  logger: Logger;
  source: Source;
  chainId: number;
  files: ChainBackfillFiles;
  out: ProgressOutput;
  shouldStop: () => boolean;
  clock?: () => number;
}

/** What a follower bounded to a block range needs (the CLI's backfill and the service's history fill). */
export interface RangeFollowerOptions {
  chain: Config['chain'];
  reader: ChainReader;
  book: ContractBook;
  catalog: ChainCatalog;
  lookup: CatalogLookup | null;
  publisher: EventPublisher;
  logger: Logger;
  source: Source;
  chainId: number;
  /** Its own checkpoint: where it is inside the range. */
  checkpointFile: string;
  /** Shared with the head's follower when both run in one process. */
  negRiskBook?: NegRiskBook;
}

/**
 * A follower that reads `from..to` upwards and stops there, checkpointed in its own file; its
 * watermarks state no coverage (the range counts once it joins the follower's: extendCoverage).
 */
export function rangeFollower(options: RangeFollowerOptions, from: number, to: number): ChainFollower {
  const { chain } = options;
  return new ChainFollower({
    reader: options.reader,
    book: options.book,
    catalog: options.catalog,
    lookup: options.lookup,
    publisher: options.publisher,
    logger: options.logger,
    checkpointFile: options.checkpointFile,
    chainId: options.chainId,
    source: options.source,
    confirmations: chain.confirmations,
    reorgWindowBlocks: chain.reorgWindowBlocks,
    logRangeBlocks: chain.logRangeBlocks,
    logRangeMaxBlocks: chain.logRangeMaxBlocks,
    startBlock: from,
    untilBlock: to,
    statesCoverage: false,
    negRiskAdapter: chain.contracts.negRiskAdapter.address,
    negRiskBook: options.negRiskBook,
    holdMaxMs: chain.holdMaxMs,
    ledgerPartitions: chainLedger.partitions,
  });
}

/** Whether a range follower has read its range to `to`. */
export function rangeDone(follower: ChainFollower, to: number): boolean {
  return (follower.status().ingested_block ?? -1) >= to;
}

export type ChainBackfillOutcome = { outcome: 'complete' | 'stopped'; request: ChainBackfillRequest; pending: number };

export async function runChainBackfill(options: ChainBackfillOptions): Promise<ChainBackfillOutcome> {
  const { args, config, files } = options;
  const clock = options.clock ?? Date.now;
  const requestFile = new CheckpointFile<ChainBackfillRequest | null>(files.request, null);
  const followerFile = new CheckpointFile<FollowerCheckpoint | null>(files.follower, null);
  let request = requestFile.read();
  const key = requestKey(args);
  if (request && !args.restart && request.key !== key)
    throw new UsageError(
      `an unfinished chain backfill with other arguments (${request.key}) is checkpointed; run it again with those arguments to finish it, or pass --restart to drop it`,
    );
  if (!request || args.restart || request.key !== key) {
    fs.rmSync(files.progress, { force: true });
    const range = await planChainRange(args, options.reader, options.book, config.chain.confirmations, followerFile.read(), clock());
    request = { version: 1, key, from_block: range.from, to_block: range.to, totals: { events: 0, dead_letters: 0 } };
    requestFile.write(request);
  } else {
    options.out.write(`backfill: resuming blocks ${request.from_block}..${request.to_block}\n`);
  }
  const follower = rangeFollower({ ...options, chain: config.chain, checkpointFile: files.progress }, request.from_block, request.to_block);
  const progress = new ChainBackfillProgress(options.out, request, clock);
  for (;;) {
    if (options.shouldStop()) {
      progress.finish(follower, 'stopped');
      return { outcome: 'stopped', request, pending: follower.status().pending_events };
    }
    const step = await follower.step();
    request.totals = { events: request.totals.events + step.published, dead_letters: request.totals.dead_letters + step.deadLettered };
    requestFile.write(request);
    progress.update(follower);
    if (step.caughtUp && rangeDone(follower, request.to_block)) break;
  }
  handOver(follower.checkpointState() as FollowerCheckpoint, followerFile);
  progress.finish(follower, 'complete');
  const pending = follower.status().pending_events;
  fs.rmSync(files.progress, { force: true });
  requestFile.write(null);
  return { outcome: 'complete', request, pending };
}

/**
 * The service's follower takes over: it continues after the range when it has no checkpoint yet;
 * otherwise the range extends its coverage down (when it reaches the follower's first block, or a
 * range kept below it that does: extendCoverage) and the records still waiting for the catalog join
 * the follower's (older ones first).
 */
function handOver(done: FollowerCheckpoint, followerFile: CheckpointFile<FollowerCheckpoint | null>): void {
  const follower = followerFile.read();
  if (!follower) {
    followerFile.write(done);
    return;
  }
  if (follower.chain_id !== done.chain_id)
    throw new Error(`the follower's checkpoint is of chain ${follower.chain_id}, the backfill read ${done.chain_id}`);
  followerFile.write({ ...follower, ...extendCoverage(follower, rangeRead(done)), pending: [...done.pending, ...follower.pending] });
}

/** Blocks/s and ETA: a redrawn bar on a terminal, a plain line every 5 s otherwise (stderr). */
class ChainBackfillProgress {
  private readonly startedAt: number;
  private startBlock: number | null = null;
  private lastDraw = 0;

  constructor(
    private readonly out: ProgressOutput,
    private readonly request: ChainBackfillRequest,
    private readonly clock: () => number,
  ) {
    this.startedAt = clock();
  }

  line(follower: ChainFollower): string {
    const { from_block: from, to_block: to } = this.request;
    const status = follower.status();
    const done = Math.max(0, (status.ingested_block ?? from - 1) - from + 1);
    const total = to - from + 1;
    this.startBlock ??= status.ingested_block ?? from - 1;
    const elapsedMs = Math.max(1, this.clock() - this.startedAt);
    const thisRun = (status.ingested_block ?? from - 1) - this.startBlock;
    const rate = (thisRun * 1000) / elapsedMs;
    const eta = rate > 0 ? formatDuration(((total - done) / rate) * 1000) : '?';
    const fraction = total > 0 ? done / total : 1;
    const bar = `${'█'.repeat(Math.round(fraction * 24))}${'░'.repeat(24 - Math.round(fraction * 24))}`;
    return `[${bar}] ${(fraction * 100).toFixed(1)}% · ${done.toLocaleString('en')}/${total.toLocaleString('en')} blocks · ${Math.round(rate).toLocaleString('en')} blocks/s · ~${eta} left · ${this.request.totals.events.toLocaleString('en')} events · ${status.pending_events} waiting for markets · window ${status.log_range_blocks}`;
  }

  update(follower: ChainFollower): void {
    const now = this.clock();
    if (now - this.lastDraw < (this.out.isTTY ? 100 : 5_000)) return;
    this.lastDraw = now;
    const text = this.line(follower);
    this.out.write(this.out.isTTY ? `\r\x1b[2K${text.slice(0, Math.max(20, (this.out.columns ?? 160) - 1))}` : `backfill: ${text}\n`);
  }

  finish(follower: ChainFollower, outcome: 'complete' | 'stopped'): void {
    if (this.out.isTTY) this.out.write('\r\x1b[2K');
    const elapsed = formatDuration(this.clock() - this.startedAt);
    this.out.write(
      outcome === 'complete'
        ? `backfill: complete in ${elapsed}: ${this.line(follower)}\n`
        : `backfill: stopped at ${this.line(follower)}; run the same command again to resume\n`,
    );
  }
}
