/**
 * Backfill progress for people and for logs: a redrawn bar on a terminal, one plain line per
 * finished market otherwise (piped output, CI, tests), both on stderr so stdout stays the summary.
 */
import type { BackfillCheckpoint, PlannedMarket, ProgressListener } from './backfill-run.js';

export interface ProgressOutput {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

const BAR_WIDTH = 24;

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : `${m}:${String(s).padStart(2, '0')}`;
}

/** Completed fraction: finished markets plus the share of the current market's tokens done. */
export function fractionDone(checkpoint: BackfillCheckpoint): number {
  const total = checkpoint.markets.length;
  if (total === 0) return 1;
  const current = checkpoint.markets[checkpoint.next_market];
  const partial = current
    ? (checkpoint.trades_done ? 0.5 : 0) + 0.5 * (checkpoint.history_tokens_done / Math.max(1, current.tokens.length))
    : 0;
  return Math.min(1, (checkpoint.next_market + partial) / total);
}

function progressLine(checkpoint: BackfillCheckpoint): string {
  const t = checkpoint.totals;
  return `${checkpoint.next_market}/${checkpoint.markets.length} markets · ${t.trades} trades · ${t.ticks} price points · ${t.dead_letters} dead-lettered`;
}

export class BackfillProgress implements ProgressListener {
  private readonly startedAt: number;
  private readonly startFraction: number;
  private lastDraw = 0;

  constructor(
    private readonly out: ProgressOutput,
    start: BackfillCheckpoint,
    private readonly clock: () => number = Date.now,
  ) {
    this.startedAt = clock();
    this.startFraction = fractionDone(start);
  }

  progress(checkpoint: BackfillCheckpoint): void {
    if (!this.out.isTTY) return;
    // Redraw at most 10 times a second.
    const now = this.clock();
    if (now - this.lastDraw < 100) return;
    this.lastDraw = now;
    this.draw(checkpoint);
  }

  marketDone(checkpoint: BackfillCheckpoint, market: PlannedMarket): void {
    if (this.out.isTTY) this.draw(checkpoint);
    else this.out.write(`backfill: ${progressLine(checkpoint)} · done ${market.slug || market.market_id}\n`);
  }

  warn(message: string): void {
    this.out.write(`${this.out.isTTY ? '\r\x1b[2K' : ''}backfill: warning: ${message}\n`);
  }

  finish(checkpoint: BackfillCheckpoint, outcome: 'complete' | 'stopped'): void {
    if (this.out.isTTY) this.out.write('\r\x1b[2K');
    const elapsed = formatDuration(this.clock() - this.startedAt);
    this.out.write(
      outcome === 'complete'
        ? `backfill: complete in ${elapsed}: ${progressLine(checkpoint)}\n`
        : `backfill: stopped at ${progressLine(checkpoint)}; run the same command again to resume\n`,
    );
  }

  private draw(checkpoint: BackfillCheckpoint): void {
    const fraction = fractionDone(checkpoint);
    const filled = Math.round(fraction * BAR_WIDTH);
    const elapsed = this.clock() - this.startedAt;
    const doneThisRun = fraction - this.startFraction;
    const eta = doneThisRun > 0 ? formatDuration((elapsed * (1 - fraction)) / doneThisRun) : '?';
    const line = `[${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}] ${(fraction * 100).toFixed(1)}% ${progressLine(checkpoint)} · ${formatDuration(elapsed)} elapsed · ~${eta} left`;
    this.out.write(`\r\x1b[2K${line.slice(0, Math.max(20, (this.out.columns ?? 120) - 1))}`);
  }
}
