/** Export jobs in the control store (migration 0070): created, listed per account, advanced by the runner. */
import crypto from 'node:crypto';
import type { ControlStore } from '../ports/control-store.js';
import type { DatasetName, ExportFilters } from './datasets.js';

export type ExportFormatName = 'parquet' | 'csv' | 'ndjson';
type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'expired';

/** One file to write: its UTC day partition (null: the one file of a dataset without time) and the rows it held when the job was accepted. */
export interface PlannedPart {
  day: string | null;
  rows: number;
}

export interface WrittenFile {
  name: string;
  rows: number;
  bytes: number;
  sha256: string;
}

export interface ExportJob {
  id: string;
  account_id: string;
  dataset: DatasetName;
  format: ExportFormatName;
  filters: ExportFilters;
  status: JobStatus;
  plan: PlannedPart[];
  files: WrittenFile[];
  rows_total: number;
  bytes_written: number;
  /** Calls its bytes were charged (one per started EXPORT_BYTES_PER_CALL), 0 until it succeeded. */
  byte_calls: number;
  error: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

const COLUMNS = `id, account_id, dataset, format, filters, status, plan, files, rows_total::float8 AS rows_total,
                 bytes_written::float8 AS bytes_written, byte_calls, error, created_at, updated_at, finished_at`;

export class ExportJobs {
  constructor(
    private readonly control: ControlStore,
    private readonly clock: () => number,
  ) {}

  /**
   * Creates a queued job unless the account already has `maxActive` queued or running: the check and
   * the insert run under a per-account advisory lock, so two requests at once cannot both pass it.
   */
  async create(
    accountId: string,
    job: { dataset: DatasetName; format: ExportFormatName; filters: ExportFilters; plan: PlannedPart[] },
    maxActive: number,
  ): Promise<ExportJob | { active: number }> {
    const id = `exp_${crypto.randomBytes(12).toString('hex')}`;
    const now = new Date(this.clock());
    const rows = job.plan.reduce((sum, part) => sum + part.rows, 0);
    return this.control.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`export_jobs:${accountId}`]);
      const [active] = await tx.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM export_jobs WHERE account_id = $1 AND status IN ('queued', 'running')",
        [accountId],
      );
      if (Number(active!.n) >= maxActive) return { active: Number(active!.n) };
      const [created] = await tx.query<ExportJob>(
        `INSERT INTO export_jobs (id, account_id, dataset, format, filters, status, plan, rows_total, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 'queued', $6, $7, $8, $8) RETURNING ${COLUMNS}`,
        [id, accountId, job.dataset, job.format, JSON.stringify(job.filters), JSON.stringify(job.plan), rows, now],
      );
      return created!;
    });
  }

  async get(accountId: string, id: string): Promise<ExportJob | undefined> {
    const [job] = await this.control.query<ExportJob>(`SELECT ${COLUMNS} FROM export_jobs WHERE account_id = $1 AND id = $2`, [
      accountId,
      id,
    ]);
    return job;
  }

  /** Any account's job (the signed download link carries no key; its signature names the job). */
  async byId(id: string): Promise<ExportJob | undefined> {
    const [job] = await this.control.query<ExportJob>(`SELECT ${COLUMNS} FROM export_jobs WHERE id = $1`, [id]);
    return job;
  }

  /** The account's jobs, newest first (ids are random, so the order is created_at then id). */
  async list(accountId: string, take: number, after: [number, string] | null): Promise<ExportJob[]> {
    return this.control.query<ExportJob>(
      `SELECT ${COLUMNS} FROM export_jobs
        WHERE account_id = $1 ${after ? 'AND (created_at, id) < (to_timestamp($3::float8 / 1000), $4)' : ''}
        ORDER BY created_at DESC, id DESC LIMIT $2`,
      after ? [accountId, take, after[0], after[1]] : [accountId, take],
    );
  }

  /** The next queued job (oldest first), marked running; undefined when none waits. */
  async claim(): Promise<ExportJob | undefined> {
    return this.control.transaction(async (tx) => {
      const [next] = await tx.query<{ id: string }>(
        "SELECT id FROM export_jobs WHERE status = 'queued' ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED",
      );
      if (!next) return undefined;
      const [job] = await tx.query<ExportJob>(
        `UPDATE export_jobs SET status = 'running', updated_at = $2 WHERE id = $1 RETURNING ${COLUMNS}`,
        [next.id, new Date(this.clock())],
      );
      return job;
    });
  }

  /** Jobs left running by a process that stopped: queued again, to resume after their last whole file. */
  async requeueRunning(): Promise<number> {
    const rows = await this.control.query<{ id: string }>(
      "UPDATE export_jobs SET status = 'queued', updated_at = $1 WHERE status = 'running' RETURNING id",
      [new Date(this.clock())],
    );
    return rows.length;
  }

  async fileWritten(id: string, files: WrittenFile[]): Promise<void> {
    const bytes = files.reduce((sum, f) => sum + f.bytes, 0);
    await this.control.query('UPDATE export_jobs SET files = $2, bytes_written = $3, updated_at = $4 WHERE id = $1', [
      id,
      JSON.stringify(files),
      bytes,
      new Date(this.clock()),
    ]);
  }

  /**
   * Marks the calls the job's bytes are charged, once: false when they were marked already (a job
   * resumed after a stop between the mark and its finish), so the caller charges nothing again.
   */
  async markByteCalls(id: string, calls: number): Promise<boolean> {
    const rows = await this.control.query('UPDATE export_jobs SET byte_calls = $2 WHERE id = $1 AND byte_calls = 0 RETURNING id', [
      id,
      calls,
    ]);
    return rows.length > 0;
  }

  /** Takes the mark back when the charge was refused. */
  async unmarkByteCalls(id: string): Promise<void> {
    await this.control.query('UPDATE export_jobs SET byte_calls = 0 WHERE id = $1', [id]);
  }

  async finish(id: string, outcome: { status: 'succeeded' } | { status: 'failed'; error: string }): Promise<void> {
    const now = new Date(this.clock());
    await this.control.query('UPDATE export_jobs SET status = $2, error = $3, updated_at = $4, finished_at = $4 WHERE id = $1', [
      id,
      outcome.status,
      outcome.status === 'failed' ? outcome.error : null,
      now,
    ]);
  }

  /**
   * Marks the finished jobs whose files are past their retention (finished before `beforeMs`) expired
   * and returns their ids, for the runner to delete their folders; the jobs stay listed, without files.
   */
  async expire(beforeMs: number): Promise<string[]> {
    const rows = await this.control.query<{ id: string }>(
      `UPDATE export_jobs SET status = 'expired', updated_at = $2
       WHERE status IN ('succeeded', 'failed') AND finished_at < $1 RETURNING id`,
      [new Date(beforeMs), new Date(this.clock())],
    );
    return rows.map((row) => row.id);
  }

  /** The secret download links are signed with: made once, shared by every process on this control store. */
  async signingSecret(): Promise<string> {
    await this.control.query('INSERT INTO export_signing_key (secret) VALUES ($1) ON CONFLICT DO NOTHING', [
      crypto.randomBytes(32).toString('base64url'),
    ]);
    const [row] = await this.control.query<{ secret: string }>('SELECT secret FROM export_signing_key');
    return row!.secret;
  }
}
