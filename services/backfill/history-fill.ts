/**
 * The history fill: while the chain source follows the head, the service reads the past in the
 * background, from just below the follower's first block down to the history start (the earliest
 * configured contract start block), newest chunk first, so recent weeks are complete soonest. Each
 * chunk is read upwards by a follower bounded to it (chain-backfill.ts `rangeFollower`, the CLI
 * backfill's reader) and, finished, joins the head follower's coverage (covered-ranges.ts), so the
 * stated coverage moves down chunk by chunk without a hole.
 *
 * Resumable: the plan and the chunk under way are in DATA_DIR/ingest/chain-history.json, the chunk's
 * reader has its own checkpoint (chain-history-chunk.json, written after every range), and finished
 * chunks live on as the follower's first block: a restart re-reads at most one range. The caller
 * (chain-source.ts) gives it a step only while the head's follower is caught up: the head keeps the
 * RPC budget it needs and the history gets the rest.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ChainFollower } from '../chain/follower.js';
import { CheckpointFile } from '../ingest/checkpoint.js';
import { formatDuration } from './progress.js';
import { type RangeFollowerOptions, rangeDone, rangeFollower } from './chain-backfill.js';

/** A plain progress line on the console at most this often (and one when the fill starts and ends). */
const PROGRESS_LINE_INTERVAL_MS = 30_000;

export interface HistoryFiles {
  plan: string;
  chunk: string;
}

export function historyFiles(dataDir: string): HistoryFiles {
  const folder = path.join(dataDir, 'ingest');
  return { plan: path.join(folder, 'chain-history.json'), chunk: path.join(folder, 'chain-history-chunk.json') };
}

interface HistoryPlan {
  version: 1;
  chain_id: number;
  /** The lowest block to read (the earliest configured contract start). */
  history_start_block: number;
  /** The highest: the block below the follower's first block when the fill was planned. */
  top_block: number;
  /** The chunk being read (upwards; next_block is its first block not read yet), null between chunks. */
  chunk: { from_block: number; to_block: number; next_block: number } | null;
  /** The follower's first block after the last chunk joined: everything from it up is covered. */
  covered_from: number;
  events: number;
  done: boolean;
  /** Of the process filling, over its run so far; null before it has read a range. */
  blocks_per_second: number | null;
  updated_at_ms: number;
}

/** The fill's progress (api/openapi.yaml HealthCoverage.history). */
export interface HistoryProgress {
  state: 'off' | 'starting' | 'running' | 'done';
  from_block: number | null;
  to_block: number | null;
  blocks_done: number;
  blocks_to_do: number;
  blocks_per_second: number | null;
  eta_seconds: number | null;
  events: number;
  updated_at_ms: number | null;
}

const OFF: HistoryProgress = {
  state: 'off',
  from_block: null,
  to_block: null,
  blocks_done: 0,
  blocks_to_do: 0,
  blocks_per_second: null,
  eta_seconds: null,
  events: 0,
  updated_at_ms: null,
};

function progressOf(plan: HistoryPlan): HistoryProgress {
  const total = Math.max(0, plan.top_block - plan.history_start_block + 1);
  const joined = plan.top_block - plan.covered_from + 1;
  const inChunk = plan.chunk ? plan.chunk.next_block - plan.chunk.from_block : 0;
  const done = plan.done ? total : Math.min(total, Math.max(0, joined + inChunk));
  const rate = plan.blocks_per_second;
  return {
    state: plan.done ? 'done' : 'running',
    from_block: plan.history_start_block,
    to_block: plan.top_block,
    blocks_done: done,
    blocks_to_do: total - done,
    blocks_per_second: rate,
    eta_seconds: plan.done ? 0 : rate && rate > 0 ? Math.round((total - done) / rate) : null,
    events: plan.events,
    updated_at_ms: plan.updated_at_ms,
  };
}

/**
 * The fill's progress as its files say, whichever process runs it: `off` when the setting or the
 * chain source is off, `starting` before the fill has planned (the head's follower has not read yet).
 */
export function readHistoryProgress(files: HistoryFiles | null, enabled: boolean): HistoryProgress {
  if (!enabled || !files) return OFF;
  const plan = new CheckpointFile<HistoryPlan | null>(files.plan, null).read();
  return plan ? progressOf(plan) : { ...OFF, state: 'starting' };
}

export interface HistoryFillOptions extends Omit<RangeFollowerOptions, 'checkpointFile' | 'negRiskBook'> {
  /** The head's follower: its first block is where the history ends upwards, and finished chunks join it. */
  live: ChainFollower;
  files: HistoryFiles;
  chunkBlocks: number;
  clock?: () => number;
}

export class HistoryFill {
  private readonly planFile: CheckpointFile<HistoryPlan | null>;
  private plan: HistoryPlan | null;
  private reader: ChainFollower | null = null;
  private readonly clock: () => number;
  private runStart: { atMs: number; blocksDone: number } | null = null;
  private lastLineMs = 0;

  constructor(private readonly options: HistoryFillOptions) {
    this.planFile = new CheckpointFile<HistoryPlan | null>(options.files.plan, null);
    this.plan = this.planFile.read();
    this.clock = options.clock ?? Date.now;
  }

  progress(): HistoryProgress {
    return this.plan ? progressOf(this.plan) : { ...OFF, state: 'starting' };
  }

  /**
   * One range of history (or the join of a finished chunk). Returns false when there is nothing to
   * read now: the fill is done, the head's follower has not read its first range yet, or the chunk's
   * reader holds as many records waiting for the catalog as it may.
   */
  async step(): Promise<boolean> {
    const { live, book, chainId } = this.options;
    const head = live.checkpointState();
    if (!head) return false;
    const bottom = book.historyStartBlock();
    if (!this.plan || this.plan.chain_id !== chainId) this.plan = this.fresh(head.first_block, bottom);
    const plan = this.plan;
    plan.history_start_block = bottom;
    if (plan.done) {
      if (head.first_block <= bottom) return false;
      // An earlier history start configured since: the fill goes on down to it.
      plan.done = false;
    }
    this.runStart ??= { atMs: this.clock(), blocksDone: progressOf(plan).blocks_done };
    if (!this.reader) {
      const top = head.first_block - 1;
      if (top < bottom) return this.finish(head.first_block);
      const chunk = this.nextChunk(top, bottom, head.covered_below ?? []);
      this.options.logger.debug(
        { from: chunk.from_block, to: chunk.to_block, history_start_block: bottom },
        plan.chunk ? 'chain history: resuming a chunk' : 'chain history: reading a chunk',
      );
      if (this.lastLineMs === 0) this.line(true);
      plan.chunk = chunk;
      this.reader = rangeFollower(
        { ...this.options, checkpointFile: this.options.files.chunk, negRiskBook: live.negRiskBook },
        chunk.from_block,
        chunk.to_block,
      );
    }
    const chunk = plan.chunk as NonNullable<HistoryPlan['chunk']>;
    const before = chunk.next_block;
    const step = await this.reader.step();
    plan.events += step.published;
    chunk.next_block = (this.reader.status().ingested_block ?? chunk.from_block - 1) + 1;
    // Not done and nothing read (its records waiting for the catalog fill its hold): idle until the next poll.
    const stalled = step.caughtUp && step.published === 0 && chunk.next_block === before && !rangeDone(this.reader, chunk.to_block);
    if (step.caughtUp && rangeDone(this.reader, chunk.to_block)) {
      live.adoptRange(this.reader.checkpointState()!);
      this.reader = null;
      fs.rmSync(this.options.files.chunk, { force: true });
      plan.chunk = null;
      plan.covered_from = live.checkpointState()!.first_block;
      if (plan.covered_from <= bottom) return this.finish(plan.covered_from);
    }
    this.save();
    if (this.clock() - this.lastLineMs >= PROGRESS_LINE_INTERVAL_MS) this.line(false);
    return !stalled;
  }

  private fresh(firstBlock: number, bottom: number): HistoryPlan {
    fs.rmSync(this.options.files.chunk, { force: true });
    return {
      version: 1,
      chain_id: this.options.chainId,
      history_start_block: bottom,
      top_block: firstBlock - 1,
      chunk: null,
      covered_from: firstBlock,
      events: 0,
      done: false,
      blocks_per_second: null,
      updated_at_ms: this.clock(),
    };
  }

  /**
   * The chunk under way when it still ends right below the follower's first block (a restart), else
   * the next one down: chunkBlocks long, not below the history start, and not into a range already
   * read below a hole (which joins with it).
   */
  private nextChunk(top: number, bottom: number, coveredBelow: ReadonlyArray<{ from_block: number; to_block: number }>) {
    const plan = this.plan as HistoryPlan;
    const saved = plan.chunk;
    if (saved && saved.to_block === top && saved.from_block >= bottom) {
      const started = new CheckpointFile<{ first_block: number; next_block: number } | null>(this.options.files.chunk, null).read();
      if (started && started.first_block === saved.from_block) return { ...saved, next_block: started.next_block };
    }
    fs.rmSync(this.options.files.chunk, { force: true });
    const readBelow = coveredBelow.filter((r) => r.to_block < top).reduce((highest, r) => Math.max(highest, r.to_block + 1), bottom);
    const from = Math.max(bottom, readBelow, top - this.options.chunkBlocks + 1);
    return { from_block: from, to_block: top, next_block: from };
  }

  private finish(coveredFrom: number): false {
    const plan = this.plan as HistoryPlan;
    const wasDone = plan.done;
    plan.covered_from = coveredFrom;
    plan.chunk = null;
    plan.done = true;
    this.save();
    if (!wasDone) this.line(false);
    return false;
  }

  private save(): void {
    const plan = this.plan as HistoryPlan;
    const start = this.runStart;
    const elapsedMs = start ? this.clock() - start.atMs : 0;
    if (start && elapsedMs >= 1_000)
      plan.blocks_per_second = Math.round(((progressOf(plan).blocks_done - start.blocksDone) * 1000) / elapsedMs);
    plan.updated_at_ms = this.clock();
    this.planFile.write(plan);
  }

  /** One plain line: blocks done / to do, rate, time left. */
  private line(starting: boolean): void {
    this.lastLineMs = this.clock();
    const p = progressOf(this.plan as HistoryPlan);
    const total = p.blocks_done + p.blocks_to_do;
    const rate = p.blocks_per_second === null ? '?' : p.blocks_per_second.toLocaleString('en');
    const eta = p.eta_seconds === null ? '?' : formatDuration(p.eta_seconds * 1000);
    const text =
      p.state === 'done'
        ? `chain history: complete, blocks ${p.from_block}..${p.to_block} (${total.toLocaleString('en')} blocks, ${p.events.toLocaleString('en')} events)`
        : `chain history${starting ? ' (newest first, in the background)' : ''}: ${p.blocks_done.toLocaleString('en')}/${total.toLocaleString('en')} blocks (${total > 0 ? ((p.blocks_done / total) * 100).toFixed(1) : '100.0'}%) · ${rate} blocks/s · ~${eta} left · ${p.events.toLocaleString('en')} events · covered from block ${(this.plan as HistoryPlan).covered_from}`;
    this.options.logger.info({ history: p }, text);
  }
}
