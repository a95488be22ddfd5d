/**
 * /exports: bulk exports of a dataset as files the engine writes (services/exports/, docs/EXPORTS.md).
 * A job is planned when it is accepted (rows per UTC day, within EXPORT_MAX_ROWS), runs in the
 * background, and serves its files through signed links that work without a key until they expire.
 */
import { queryOf } from '../http/query.js';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type Request, Router } from 'express';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { DATASET, type DatasetName, rowsPerDay } from './datasets.js';
import type { FilterName } from './schemas.js';
import type { ExportFormatName, ExportJob, ExportJobs } from './jobs.js';
import type { ExportRunner } from './runner.js';
import { MANIFEST } from './files.js';
import { exportFilters } from './filters.js';
import { checkLink, signFile } from './signing.js';
import { isoOrNull } from '../shared/time.js';
import { success } from '../http/envelope.js';
import { ApiError } from '../http/errors.js';
import { keysetPage } from '../http/keyset.js';

interface ExportSettings {
  /** EXPORT_CONCURRENT_JOBS: queued or running jobs per account. */
  concurrentJobs: number;
  /** EXPORT_MAX_ROWS: rows one export may plan. */
  maxRows: number;
  /** EXPORT_MAX_DAYS: longest from..to. */
  maxDays: number;
  /** EXPORT_LINK_TTL_SECONDS: how long a download link served now stays valid. */
  linkTtlSeconds: number;
  /** EXPORT_DOWNLOADS_PER_ADDRESS: downloads in progress per client address. */
  downloadsPerAddress: number;
  /** EXPORT_DOWNLOADS_MAX: downloads in progress in this process, from every address. */
  downloadsMax: number;
}

/** What bounds the keyless downloads: the shell's failed-authentication throttle and the client's address. */
export interface DownloadGuard {
  throttle: {
    /** The refusal of an address over its failed attempts, or null. */
    refusal(address: string): ApiError | null;
    /** Counts a failed attempt of `address` and returns the error to send. */
    failed(address: string, error: ApiError): ApiError;
  };
  addressOf: (request: Request) => string;
}

export interface ExportsApi {
  jobs: ExportJobs;
  runner: ExportRunner;
  store: AnalyticsStore;
  settings: ExportSettings;
  clock: () => number;
}

const _DAY_MS = 86_400_000;
const CONTENT_TYPE: Record<string, string> = {
  parquet: 'application/vnd.apache.parquet',
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson',
  json: 'application/json',
};
/** The file names a job writes: its manifest and one file per day partition. */
const FILE_NAME = /^(manifest\.json|(date=\d{4}-\d{2}-\d{2}\/)?part-0\.(parquet|csv|ndjson))$/;

const ownerOf = (request: Request) => request.owner!.account_id;

interface CreateBody {
  dataset: DatasetName;
  format?: ExportFormatName;
  filters?: Partial<Record<FilterName, string>>;
}

function link(secret: string, api: ExportsApi, job: ExportJob, name: string) {
  const expires = Math.floor(api.clock() / 1000) + api.settings.linkTtlSeconds;
  const query = new URLSearchParams({ file: name, expires: String(expires), signature: signFile(secret, job.id, name, expires) });
  return { url: `/v1/exports/${job.id}/download?${query}`, expires_at: new Date(expires * 1000).toISOString() };
}

function present(job: ExportJob, secret: string | null, api: ExportsApi) {
  const done = job.status === 'succeeded';
  const rowsWritten = job.files.reduce((sum, f) => sum + f.rows, 0);
  return {
    id: job.id,
    dataset: job.dataset,
    format: job.format,
    filters: {
      market: job.filters.market ?? null,
      event: job.filters.event ?? null,
      category: job.filters.category ?? null,
      wallet: job.filters.wallet ?? null,
      from: isoOrNull(job.filters.from),
      to: isoOrNull(job.filters.to),
      interval: job.filters.interval ?? null,
    },
    status: job.status,
    progress: {
      files_written: job.files.length,
      files_planned: job.plan.length,
      rows_written: rowsWritten,
      rows_planned: Number(job.rows_total),
      fraction: done ? 1 : job.plan.length === 0 ? 0 : Math.floor((job.files.length / job.plan.length) * 1000) / 1000,
    },
    bytes_written: Number(job.bytes_written),
    byte_calls: job.byte_calls,
    error: job.error,
    created_at: isoOrNull(job.created_at.getTime())!,
    finished_at: isoOrNull(job.finished_at?.getTime()),
    manifest: done && secret ? link(secret, api, job, MANIFEST) : null,
    files: job.files.map((f) => ({ ...f, ...(done && secret ? link(secret, api, job, f.name) : { url: null, expires_at: null }) })),
  };
}

export function exportRoutes(api: ExportsApi, guard: DownloadGuard): Router {
  const router = Router();
  /** Downloads in progress per client address (an entry goes when its last download ends). */
  const downloading = new Map<string, number>();
  /** Downloads in progress from every address (many addresses each under their cap are still bounded). */
  let downloadsInProgress = 0;
  let secret: Promise<string> | undefined;
  const signingSecret = () => {
    secret ??= api.jobs.signingSecret().catch((error: unknown) => {
      secret = undefined;
      throw error;
    });
    return secret;
  };

  router.post('/exports', async (request, response) => {
    const body = request.body as CreateBody;
    const filters = await exportFilters(api.store, body, api.settings.maxDays);
    const dataset = DATASET[body.dataset];
    const plan = await rowsPerDay(api.store, dataset, await dataset.select(api.store, filters));
    const rows = plan.reduce((sum, part) => sum + part.rows, 0);
    if (rows > api.settings.maxRows)
      throw ApiError.badRequest(
        `filters: the export would hold ${rows} rows, more than EXPORT_MAX_ROWS (${api.settings.maxRows}); narrow from..to, market or wallet`,
      );
    const created = await api.jobs.create(
      ownerOf(request),
      { dataset: body.dataset, format: body.format ?? 'parquet', filters, plan },
      api.settings.concurrentJobs,
    );
    if ('active' in created)
      throw new ApiError(
        409,
        'CONFLICT',
        `the account already has ${created.active} exports queued or running (EXPORT_CONCURRENT_JOBS: ${api.settings.concurrentJobs}); wait for one to finish`,
      );
    api.runner.wake();
    response.status(202).json(success(present(created, null, api)));
  });

  router.get('/exports', async (request, response) => {
    const key = await signingSecret();
    response.json(
      await keysetPage(request, {
        filters: {},
        shape: ['ms', 'string'],
        fetch: (after, take) => api.jobs.list(ownerOf(request), take, after ? [Number(after[0]), String(after[1])] : null),
        keyOf: (job) => [job.created_at.getTime(), job.id],
        present: (job) => present(job, key, api),
      }),
    );
  });

  router.get('/exports/:id', async (request, response) => {
    const job = await api.jobs.get(ownerOf(request), String(request.params.id));
    if (!job) throw ApiError.notFound(`export not found: ${request.params.id}`);
    response.json(success(present(job, await signingSecret(), api)));
  });

  // Keyless (api/app.ts): the signature is the authority, for one file of one job until `expires`.
  // With no key to meter, the caller is bounded by address: a bad link is a failed authentication
  // (guessing signatures meets the same throttle as guessing keys), and downloads run at most
  // EXPORT_DOWNLOADS_PER_ADDRESS at a time (a leaked link cannot take the disk and the network), and
  // EXPORT_DOWNLOADS_MAX from every address together (nor can many addresses, each under its cap).
  router.get('/exports/:id/download', async (request, response) => {
    const address = guard.addressOf(request);
    const throttled = guard.throttle.refusal(address);
    if (throttled) throw throttled;
    const id = String(request.params.id);
    const { file: name, expires, signature } = queryOf(request, 'downloadExportFile');
    const check = checkLink(await signingSecret(), id, name, expires, signature, api.clock());
    if (!check.ok)
      throw guard.throttle.failed(
        address,
        new ApiError(
          403,
          'FORBIDDEN',
          check.reason === 'expired'
            ? 'expires: the link has expired; GET /v1/exports/{id} serves fresh links'
            : 'signature: not a valid link for this file',
        ),
      );
    const job = await api.jobs.byId(id);
    if (job?.status !== 'succeeded' || !FILE_NAME.test(name)) throw ApiError.notFound(`file not found: ${name}`);
    const file = path.join(api.runner.folderOf(job.id), name);
    if (!fs.existsSync(file)) throw ApiError.notFound(`file not found: ${name}`);
    const active = downloading.get(address) ?? 0;
    if (active >= api.settings.downloadsPerAddress)
      throw ApiError.rateLimited(
        `downloads: ${active} downloads from this address are in progress (EXPORT_DOWNLOADS_PER_ADDRESS: ${api.settings.downloadsPerAddress}); retry when one has finished`,
        1,
      );
    if (downloadsInProgress >= api.settings.downloadsMax)
      throw ApiError.rateLimited(
        `downloads: ${downloadsInProgress} downloads are in progress on this server (EXPORT_DOWNLOADS_MAX: ${api.settings.downloadsMax}); retry when one has finished`,
        1,
      );
    // Both counts are taken together and given back by the one 'close' (emitted once whether the
    // download ended, failed or the client went away), so neither can leak a slot.
    downloading.set(address, active + 1);
    downloadsInProgress += 1;
    response.once('close', () => {
      downloadsInProgress -= 1;
      const left = (downloading.get(address) ?? 1) - 1;
      if (left > 0) downloading.set(address, left);
      else downloading.delete(address);
    });
    response.setHeader('Content-Type', CONTENT_TYPE[name.split('.').pop()!]!);
    response.setHeader('Content-Disposition', `attachment; filename="${path.basename(name)}"`);
    // A download cut short resumes where it broke off (Range: bytes=<received>-): an export's files
    // never change. One range is served as 206; several, a malformed one or one past the end are
    // ignored (RFC 9110 allows it) and the whole file is served, so a client never gets less than it asked.
    const size = fs.statSync(file).size;
    response.setHeader('Accept-Ranges', 'bytes');
    const ranges = request.headers.range ? request.range(size) : undefined;
    const part = Array.isArray(ranges) && ranges.type === 'bytes' && ranges.length === 1 ? ranges[0]! : undefined;
    if (part) {
      response.status(206);
      response.setHeader('Content-Range', `bytes ${part.start}-${part.end}/${size}`);
    }
    response.setHeader('Content-Length', String(part ? part.end - part.start + 1 : size));
    // A failed read after the headers went out can only cut the response short; the client sees it
    // by the length (and the manifest's checksum).
    await pipeline(fs.createReadStream(file, part ? { start: part.start, end: part.end } : {}), response).catch(() => response.destroy());
  });

  return router;
}
