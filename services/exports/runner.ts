/**
 * Runs export jobs in the background of the API process, one at a time (each file is one engine
 * statement, and chDB runs one statement at a time for every caller). A job writes one file per UTC
 * day of its plan, DATA_DIR/exports/<id>/date=YYYY-MM-DD/part-0.<ext> (a dataset without time: one
 * file, part-0.<ext>): the engine writes it under a
 * temporary name, the runner renames it whole, hashes it (streaming) and records it; the manifest is
 * written last. A job interrupted by a stop is queued again on start and resumes after its last
 * recorded file, so it is never reported complete with a partial file.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Logger } from '../logger.js';
import type { AnalyticsStore, ExportFormat } from '../ports/analytics-store.js';
import { DATASET, type ExportFilters } from './datasets.js';
import type { ExportFormatName, ExportJob, ExportJobs } from './jobs.js';

const ENGINE_FORMAT: Record<ExportFormatName, ExportFormat> = { parquet: 'Parquet', csv: 'CSVWithNames', ndjson: 'JSONEachRow' };
const EXTENSION: Record<ExportFormatName, string> = { parquet: 'parquet', csv: 'csv', ndjson: 'ndjson' };
export const MANIFEST = 'manifest.json';
const DAY_MS = 86_400_000;

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
    this.running = this.drain().finally(() => {
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
    const dataset = DATASET[job.dataset];
    const folder = this.folderOf(job.id);
    const files = [...job.files];
    const done = new Set(files.map((f) => f.name));
    for (const part of job.plan) {
      if (this.stopped) return false;
      const name = fileName(part.day, job.format);
      if (done.has(name)) continue;
      const selection = await dataset.select(this.store, dayWindow(job.filters, part.day));
      const target = path.join(folder, name);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const partial = `${target}.partial`;
      const written = await this.store.exportTo(selection.sql, selection.params, ENGINE_FORMAT[job.format], partial);
      fs.renameSync(partial, target);
      files.push({ name, rows: written.rows, bytes: written.bytes, sha256: await sha256Of(target) });
      const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
      if (bytes > this.limits.maxBytes) {
        fs.rmSync(folder, { recursive: true, force: true });
        throw new ExportTooLargeError(
          `the export passed EXPORT_MAX_BYTES (${this.limits.maxBytes} bytes); narrow from..to, market or wallet`,
        );
      }
      await this.jobs.fileWritten(job.id, files);
    }
    const manifest = {
      id: job.id,
      dataset: job.dataset,
      schema_version: dataset.schemaVersion,
      format: job.format,
      compression: job.format === 'parquet' ? 'zstd' : null,
      filters: {
        ...job.filters,
        ...(job.filters.from !== undefined ? { from: new Date(job.filters.from).toISOString() } : {}),
        ...(job.filters.to !== undefined ? { to: new Date(job.filters.to).toISOString() } : {}),
      },
      schema: dataset.columns,
      partitioning: dataset.time === null ? 'none (one file)' : `date=YYYY-MM-DD (UTC day of each row's ${dataset.time})`,
      files,
      rows: files.reduce((sum, f) => sum + f.rows, 0),
      bytes: files.reduce((sum, f) => sum + f.bytes, 0),
      created_at: new Date(this.clock()).toISOString(),
    };
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    return true;
  }
}

/** A part's file: `date=YYYY-MM-DD/part-0.<ext>` for a day, `part-0.<ext>` for a dataset without time. */
function fileName(day: string | null, format: ExportFormatName): string {
  return day === null ? `part-0.${EXTENSION[format]}` : `date=${day}/part-0.${EXTENSION[format]}`;
}

/** The job's filters narrowed to one UTC day (unchanged for a dataset without time). */
function dayWindow(filters: ExportFilters, day: string | null): ExportFilters {
  if (day === null || filters.from === undefined || filters.to === undefined) return filters;
  const dayStart = Date.parse(`${day}T00:00:00Z`);
  return { ...filters, from: Math.max(filters.from, dayStart), to: Math.min(filters.to, dayStart + DAY_MS) };
}

class ExportTooLargeError extends Error {}
class ExportUnpaidError extends Error {}

/** What a failed job tells its owner: the limit it passed or the charge refused, else that the engine failed (the log has the detail). */
function failureText(error: unknown): string {
  if (error instanceof ExportTooLargeError || error instanceof ExportUnpaidError) return error.message;
  return 'the export could not be written; retry, and report it if it fails again';
}

async function sha256Of(file: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}
