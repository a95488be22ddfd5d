/**
 * Runs export jobs in the background of the API process, one at a time (each file is one engine
 * statement, and chDB runs one statement at a time for every caller). A job writes its files
 * (files.ts) into DATA_DIR/exports/<id>/ and records each; the manifest is written last. A job
 * interrupted by a stop is queued again on start and resumes after its last recorded file, so it is
 * never reported complete with a partial file.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { fileName, MANIFEST, manifestOf, writePart } from './files.js';
import { outsideRequest } from '../shared/request-context.js';
import type { ExportJob, ExportJobs } from './jobs.js';

export interface ExportLimits {
  /** Bytes one export may write; past it the job fails naming EXPORT_MAX_BYTES. */
  maxBytes: number;
  /** Each started this many bytes of a finished export's files is charged as one call (EXPORT_BYTES_PER_CALL). */
  bytesPerCall: number;
  /** How long a finished job's files are kept (EXPORT_RETENTION_HOURS), so the disk exports use stays bounded. */
  retentionMs: number;
}

/** How often finished jobs are checked for files past their retention. */
const SWEEP_INTERVAL_MS = 10 * 60_000;

export class ExportRunner {
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly jobs: ExportJobs,
    private readonly store: AnalyticsStore,
    private readonly root: string,
    private readonly limits: ExportLimits,
    private readonly logger: Logger,
    /** Charges the account `calls` calls at once; the refusal's reason, or null when charged. */
    private readonly charge: (accountId: string, calls: number) => Promise<string | null>,
    private readonly clock: () => number = Date.now,
  ) {}

  folderOf(jobId: string): string {
    return path.join(this.root, jobId);
  }

  /** Queues again the jobs a stopped process left running, then starts working. */
  async start(): Promise<void> {
    const requeued = await this.jobs.requeueRunning();
    if (requeued > 0) this.logger.info({ requeued }, 'export jobs interrupted by a stop are queued again');
    await this.sweep();
    this.sweeper = setInterval(() => void this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
    this.wake();
  }

  /** Deletes the files of jobs finished longer than the retention ago (their jobs become `expired`). */
  async sweep(): Promise<number> {
    try {
      const expired = await this.jobs.expire(this.clock() - this.limits.retentionMs);
      for (const id of expired) fs.rmSync(this.folderOf(id), { recursive: true, force: true });
      if (expired.length > 0) this.logger.info({ expired: expired.length }, 'export files past their retention deleted');
      return expired.length;
    } catch (error) {
      this.logger.warn({ err: error }, 'export retention sweep failed; retrying at the next one');
      return 0;
    }
  }

  /** Tells the runner a job may be waiting. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = outsideRequest(() => this.drain()).finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** Waits for the job in hand to end its current file, and takes no further one. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await this.running;
  }

  /** Resolves once no job is running here (tests). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const job = await this.jobs.claim();
      if (!job) return;
      try {
        const done = await this.run(job);
        if (done) await this.finishPaid(job);
      } catch (error) {
        this.logger.warn({ err: error, job: job.id }, 'export job failed');
        await this.jobs.finish(job.id, { status: 'failed', error: failureText(error) });
      }
    }
  }

  /**
   * Charges the written export's bytes (one call per started EXPORT_BYTES_PER_CALL), then marks it
   * succeeded. The calls are marked on the job before the meter charges them: a stop in between
   * charges nothing twice (at worst nothing at all). Refused (no quota or credits left for them): the
   * job fails naming the reason and its files are deleted, so nothing unpaid can be downloaded.
   */
  private async finishPaid(job: ExportJob): Promise<void> {
    const bytes = Number((await this.jobs.byId(job.id))?.bytes_written ?? 0);
    const calls = Math.ceil(bytes / this.limits.bytesPerCall);
    if (calls > 0 && (await this.jobs.markByteCalls(job.id, calls))) {
      const refusal = await this.charge(job.account_id, calls);
      if (refusal !== null) {
        await this.jobs.unmarkByteCalls(job.id);
        fs.rmSync(this.folderOf(job.id), { recursive: true, force: true });
        throw new ExportUnpaidError(
          `payment_required: the export's ${bytes} bytes are ${calls} calls (EXPORT_BYTES_PER_CALL: ${this.limits.bytesPerCall}); ${refusal}`,
        );
      }
    }
    await this.jobs.finish(job.id, { status: 'succeeded' });
  }

  /** Writes the job's remaining files and its manifest; false when stopped midway (it stays running, to be queued again). */
  private async run(job: ExportJob): Promise<boolean> {
    const folder = this.folderOf(job.id);
    const files = [...job.files];
    const done = new Set(files.map((f) => f.name));
    for (const part of job.plan) {
      if (this.stopped) return false;
      if (done.has(fileName(part.day, job.format))) continue;
      files.push(await writePart(this.store, job, part.day, folder));
      const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
      if (bytes > this.limits.maxBytes) {
        fs.rmSync(folder, { recursive: true, force: true });
        throw new ExportTooLargeError(
          `the export passed EXPORT_MAX_BYTES (${this.limits.maxBytes} bytes); narrow from..to, market or wallet`,
        );
      }
      await this.jobs.fileWritten(job.id, files);
    }
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, MANIFEST), `${JSON.stringify(manifestOf(job.id, job, files, this.clock()), null, 2)}\n`);
    return true;
  }
}

class ExportTooLargeError extends Error {}
class ExportUnpaidError extends Error {}

/** What a failed job tells its owner: the limit it passed or the charge refused, else that the engine failed (the log has the detail). */
function failureText(error: unknown): string {
  if (error instanceof ExportTooLargeError || error instanceof ExportUnpaidError) return error.message;
  return 'the export could not be written; retry, and report it if it fails again';
}
