/**
 * Downloading a whole export (`downloadExport`): its manifest, then every file the manifest lists
 * through its signed link, each streamed to `<folder>/<name>` (as `<name>.partial`, renamed once whole)
 * and kept only when its size and SHA-256 are the manifest's; a file cut short resumes where it broke
 * off (a Range request). Node only (it writes files); the rest
 * of the SDK needs just `fetch`.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ExportJob } from './api.generated.js';
import type { TapelineClient } from './client.js';
import { TapelineError } from './errors.js';

/** A link that expires sooner than this is refreshed (GET /exports/{id}) before it is used. */
const LINK_MARGIN_MS = 60_000;

/** An export could not be downloaded whole: not succeeded, a file unlike its manifest entry (not kept), or a name outside the folder. */
export class ExportDownloadError extends TapelineError {
  constructor(message: string) {
    super(message);
    this.name = 'ExportDownloadError';
  }
}

/** One file of manifest.json's `files` (docs/EXPORTS.md, "Files, partitions and the manifest"). */
export interface ExportManifestFile {
  name: string;
  rows: number;
  bytes: number;
  sha256: string;
}

/** manifest.json as served; the members this module relies on are typed, the rest kept as they came. */
export interface ExportManifest {
  id: string;
  dataset: string;
  schema_version: number;
  format: string;
  files: ExportManifestFile[];
  rows: number;
  bytes: number;
  [member: string]: unknown;
}

export interface DownloadedFile {
  path: string;
  bytes: number;
  /** Lowercase hex. */
  sha256: string;
}

/**
 * An export in a folder. The manifest is returned, not written into the folder: a reader that opens
 * every file of a folder (pyarrow's dataset) would take manifest.json for data.
 */
export interface DownloadedExport {
  folder: string;
  manifest: ExportManifest;
  files: DownloadedFile[];
}

interface Link {
  id: string;
  file: string;
  expires: number;
  signature: string;
}

/** A signed link (`/v1/exports/{id}/download?file=…&expires=…&signature=…`) as the download operation's parameters. */
function linkParams(exportId: string, url: string | null | undefined): Link {
  if (!url) throw new ExportDownloadError(`export ${exportId}: the job served no link`);
  const query = new URL(url, 'http://link.invalid').searchParams;
  const [file, expires, signature] = [query.get('file'), Number(query.get('expires')), query.get('signature')];
  if (!file || !signature || !Number.isInteger(expires)) throw new ExportDownloadError(`export ${exportId}: not a download link: ${url}`);
  return { id: exportId, file, expires, signature };
}

function requireSucceeded(job: ExportJob): void {
  if (job.status !== 'succeeded' || !job.manifest)
    throw new ExportDownloadError(
      `export ${job.id} is ${job.status}${job.error ? ` (${job.error})` : ''}: only a succeeded export has files to download`,
    );
}

function fileLink(job: ExportJob, name: string): Link {
  const file = job.files.find((f) => f.name === name);
  if (!file) throw new ExportDownloadError(`export ${job.id}: the manifest lists ${name}, the job has no link for it`);
  return linkParams(job.id, file.url);
}

/** Where each manifest file goes; a name that would leave `folder` is refused. */
function targets(manifest: ExportManifest, folder: string): Array<{ file: ExportManifestFile; target: string }> {
  if (!Array.isArray(manifest?.files)) throw new ExportDownloadError('the manifest has no list of files (name, bytes, sha256)');
  const root = path.resolve(folder);
  return manifest.files.map((file) => {
    const target = path.resolve(root, String(file.name));
    if (!target.startsWith(root + path.sep))
      throw new ExportDownloadError(`the manifest names ${JSON.stringify(file.name)}, which is outside ${folder}`);
    return { file, target };
  });
}

/** Attempts at one file: a download cut short (broken off, stalled) resumes from the bytes it has. */
const FILE_ATTEMPTS = 4;

/**
 * Streams a file to `<target>.partial`, hashing as it goes; renamed to `target` when whole and as the
 * manifest says. `open(from)` answers the file from byte `from` (206), or whole (200); a download cut
 * short is resumed from the bytes received, up to FILE_ATTEMPTS requests in all.
 */
async function writeChecked(
  open: (from: number) => Promise<Response>,
  target: string,
  expected: ExportManifestFile,
): Promise<DownloadedFile> {
  await fs.mkdir(path.dirname(target), { recursive: true });
  const partial = `${target}.partial`;
  let hash = createHash('sha256');
  let bytes = 0;
  const out = await fs.open(partial, 'w');
  try {
    for (let attempt = 1; ; attempt++) {
      const response = await open(bytes);
      if (bytes > 0 && response.status !== 206) {
        // The whole file came instead of the rest: start again from its first byte.
        await out.truncate(0);
        hash = createHash('sha256');
        bytes = 0;
      }
      try {
        const reader = response.body!.getReader();
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          hash.update(next.value);
          await out.write(next.value, 0, next.value.byteLength, bytes);
          bytes += next.value.byteLength;
        }
        break;
      } catch (error) {
        if (attempt >= FILE_ATTEMPTS)
          throw new TapelineError(
            `${expected.name}: the download broke off after ${bytes} bytes: ${(error as Error).message} (${attempt} attempts)`,
            { cause: error },
          );
      }
    }
  } catch (error) {
    await out.close();
    await fs.rm(partial, { force: true });
    throw error;
  }
  await out.close();
  const sha256 = hash.digest('hex');
  if (bytes !== expected.bytes || sha256 !== expected.sha256) {
    await fs.rm(partial, { force: true });
    throw new ExportDownloadError(
      `${expected.name}: ${bytes} bytes with SHA-256 ${sha256}, the manifest says ${expected.bytes} bytes with ${expected.sha256}; not kept`,
    );
  }
  await fs.rename(partial, target);
  return { path: target, bytes, sha256 };
}

/**
 * Every file of a succeeded export into `folder` under its own name (`date=YYYY-MM-DD/part-0.parquet`),
 * each checked against the manifest: `await downloadExport(tapeline, job.id, './exports/trades')`.
 * Files are fetched one after another through their signed links (refreshed with getExport when about
 * to expire). An export that has not succeeded, or a file unlike the manifest, is an ExportDownloadError.
 */
export async function downloadExport(client: TapelineClient, id: string, folder: string): Promise<DownloadedExport> {
  let job = await client.request('getExport', { id });
  requireSucceeded(job);
  const manifestResponse = await client.request('downloadExportFile', linkParams(job.id, job.manifest!.url));
  const manifest = (await manifestResponse.json()) as ExportManifest;
  const files: DownloadedFile[] = [];
  for (const { file, target } of targets(manifest, folder)) {
    // Each request (a resume too) takes a link that is still good, refreshed when about to expire.
    const open = async (from: number) => {
      let link = fileLink(job, file.name);
      if (link.expires * 1000 - Date.now() < LINK_MARGIN_MS) {
        job = await client.request('getExport', { id });
        requireSucceeded(job);
        link = fileLink(job, file.name);
      }
      return client.requestFileFrom('downloadExportFile', from, link);
    };
    files.push(await writeChecked(open, target, file));
  }
  return { folder, manifest, files };
}
