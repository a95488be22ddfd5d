/**
 * How an export's files are written, by the API's jobs (runner.ts) and the operator command
 * (export-cli.ts) alike: one file per UTC day of the plan, `date=YYYY-MM-DD/part-0.<ext>` (a dataset
 * without time: one file, `part-0.<ext>`), written by the engine under a temporary name and renamed
 * whole, then hashed; a manifest with the schema, counts and checksums last.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AnalyticsStore, ExportFormat } from '../ports/analytics-store.js';
import { DATASET, type DatasetName, type ExportFilters } from './datasets.js';
import type { ExportFormatName, WrittenFile } from './jobs.js';

const ENGINE_FORMAT: Record<ExportFormatName, ExportFormat> = { parquet: 'Parquet', csv: 'CSVWithNames', ndjson: 'JSONEachRow' };
const EXTENSION: Record<ExportFormatName, string> = { parquet: 'parquet', csv: 'csv', ndjson: 'ndjson' };
export const MANIFEST = 'manifest.json';
const DAY_MS = 86_400_000;

/** What an export is: its dataset, format and filters as applied. */
export interface ExportRequest {
  dataset: DatasetName;
  format: ExportFormatName;
  filters: ExportFilters;
}

/** A part's file: `date=YYYY-MM-DD/part-0.<ext>` for a day, `part-0.<ext>` for a dataset without time. */
export function fileName(day: string | null, format: ExportFormatName): string {
  return day === null ? `part-0.${EXTENSION[format]}` : `date=${day}/part-0.${EXTENSION[format]}`;
}

/** Writes the file of one day (null: the dataset's one file) into `folder`, and says what it holds. */
export async function writePart(store: AnalyticsStore, request: ExportRequest, day: string | null, folder: string): Promise<WrittenFile> {
  const name = fileName(day, request.format);
  const selection = await DATASET[request.dataset].select(store, dayWindow(request.filters, day));
  const target = path.join(folder, name);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const partial = `${target}.partial`;
  const written = await store.exportTo(selection.sql, selection.params, ENGINE_FORMAT[request.format], partial);
  fs.renameSync(partial, target);
  return { name, rows: written.rows, bytes: written.bytes, sha256: await sha256Of(target) };
}

/** The manifest of a finished export (`id`: the job's, or null for the operator command's). */
export function manifestOf(id: string | null, request: ExportRequest, files: WrittenFile[], createdAtMs: number) {
  const dataset = DATASET[request.dataset];
  const { filters } = request;
  return {
    id,
    dataset: request.dataset,
    schema_version: dataset.schemaVersion,
    format: request.format,
    compression: request.format === 'parquet' ? 'zstd' : null,
    filters: {
      ...filters,
      ...(filters.from !== undefined ? { from: new Date(filters.from).toISOString() } : {}),
      ...(filters.to !== undefined ? { to: new Date(filters.to).toISOString() } : {}),
    },
    schema: dataset.columns,
    partitioning: dataset.time === null ? 'none (one file)' : `date=YYYY-MM-DD (UTC day of each row's ${dataset.time})`,
    files,
    rows: files.reduce((sum, f) => sum + f.rows, 0),
    bytes: files.reduce((sum, f) => sum + f.bytes, 0),
    created_at: new Date(createdAtMs).toISOString(),
  };
}

/** The filters narrowed to one UTC day (unchanged for a dataset without time). */
function dayWindow(filters: ExportFilters, day: string | null): ExportFilters {
  if (day === null || filters.from === undefined || filters.to === undefined) return filters;
  const dayStart = Date.parse(`${day}T00:00:00Z`);
  return { ...filters, from: Math.max(filters.from, dayStart), to: Math.min(filters.to, dayStart + DAY_MS) };
}

async function sha256Of(file: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}
