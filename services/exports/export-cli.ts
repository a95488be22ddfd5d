/**
 * `npm run export -- --dataset <name> [--from <time> --to <time>] [filters] [--format parquet|csv|ndjson] --out <folder | s3://bucket/prefix>`
 *
 * The operator's export: the same datasets, filters, files and manifest as `POST /v1/exports`
 * (files.ts), written by the engine into a folder, or into any S3-compatible bucket (EXPORT_S3_*
 * settings): each file is written and hashed locally, then the engine copies it byte for byte to the
 * bucket (its `s3` table function) and the copy's size is checked before the next one. No key, quota
 * or EXPORT_MAX_* bound applies: the operator owns the machine. Progress on stderr, the manifest on stdout.
 *
 * With the embedded engine the service must not be running on the same DATA_DIR (the lock). Exit codes:
 * 0 done, 2 bad arguments or filters, 3 data folder busy, 1 anything else.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Session } from 'chdb';
import { openAnalyticsStore } from '../analytics/open-analytics.js';
import { type Config, ConfigError, loadConfig } from '../config.js';
import { ApiError } from '../http/errors.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { acquireDataDirLock, DataDirBusyError, type DataDirLock } from '../shared/data-dir-lock.js';
import { claimDataDirPrivately } from '../shared/data-dir-privacy.js';
import { CANDLE_INTERVALS, DATASET, type DatasetName, rowsPerDay } from './datasets.js';
import { type ExportRequest, MANIFEST, manifestOf, writePart } from './files.js';
import { exportFilters } from './filters.js';
import type { ExportFormatName, WrittenFile } from './jobs.js';
import { DATASET_SCHEMAS, type FilterName } from './schemas.js';

const FORMATS: readonly ExportFormatName[] = ['parquet', 'csv', 'ndjson'];
const FILTER_OPTIONS = ['market', 'event', 'category', 'wallet', 'from', 'to', 'interval'] as const satisfies readonly FilterName[];
const USAGE =
  'usage: npm run export -- --dataset <' +
  Object.keys(DATASET_SCHEMAS).join('|') +
  '> [--from <time> --to <time>] [--market <id|slug>] [--event <id|slug>] [--category <name>] [--wallet <0x...>] [--interval 5m|1h|1d] [--format parquet|csv|ndjson] --out <folder | s3://bucket/prefix>';
const say = (text: string) => process.stderr.write(`export: ${text}\n`);

class UsageError extends Error {}

/** Where the files go: a folder, or a bucket and key prefix of the configured S3 service. */
type Target = { folder: string } | { bucket: string; prefix: string };

function targetOf(out: string): Target {
  const s3 = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(out);
  if (s3) return { bucket: s3[1]!, prefix: (s3[2] ?? '').replace(/^\/+|\/+$/g, '') };
  if (out.startsWith('s3://')) throw new UsageError(`--out: ${out} is not s3://<bucket>[/<prefix>] with a valid bucket name`);
  return { folder: path.resolve(out) };
}

function parse(argv: string[]): { request: Omit<ExportRequest, 'filters'>; filters: Partial<Record<FilterName, string>>; target: Target } {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      options: {
        dataset: { type: 'string' },
        format: { type: 'string', default: 'parquet' },
        out: { type: 'string' },
        ...Object.fromEntries(FILTER_OPTIONS.map((name) => [name, { type: 'string' as const }])),
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const dataset = values.dataset as string | undefined;
  if (!dataset || !(dataset in DATASET_SCHEMAS))
    throw new UsageError(dataset ? `--dataset: no dataset ${dataset}` : '--dataset is required');
  const format = values.format as string;
  if (!FORMATS.includes(format as ExportFormatName)) throw new UsageError(`--format: ${format} is not one of ${FORMATS.join(', ')}`);
  if (!values.out) throw new UsageError('--out is required');
  const interval = values.interval as string | undefined;
  if (interval !== undefined && !(CANDLE_INTERVALS as readonly string[]).includes(interval))
    throw new UsageError(`--interval: ${interval} is not one of ${CANDLE_INTERVALS.join(', ')}`);
  const wallet = values.wallet as string | undefined;
  if (wallet !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(wallet)) throw new UsageError(`--wallet: ${wallet} is not 0x + 40 hex`);
  const filters = Object.fromEntries(
    FILTER_OPTIONS.filter((name) => values[name] !== undefined).map((name) => [name, values[name] as string]),
  );
  return {
    request: { dataset: dataset as DatasetName, format: format as ExportFormatName },
    filters,
    target: targetOf(values.out as string),
  };
}

/** A ClickHouse string literal. */
const literal = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** Copies finished files to the bucket through the engine's `s3` table function, checking each copy's size. */
class BucketWriter {
  constructor(
    private readonly session: Session,
    private readonly settings: Config['exports']['s3'],
    private readonly bucket: string,
    private readonly prefix: string,
  ) {}

  url(name: string): string {
    return `${this.settings.endpoint}/${this.bucket}/${this.prefix ? `${this.prefix}/` : ''}${name}`;
  }

  private source(name: string, format: string): string {
    const { accessKeyId, secretAccessKey } = this.settings;
    const credentials = accessKeyId ? `${literal(accessKeyId)}, ${literal(secretAccessKey ?? '')}` : 'NOSIGN';
    return `s3(${literal(this.url(name))}, ${credentials}, ${literal(format)})`;
  }

  put(local: string, name: string, bytes: number): void {
    this.session.query(
      // raw_blob only: from a path with `date=...` in it, `*` also has the Hive partition column, which RawBLOB would append.
      `INSERT INTO FUNCTION ${this.source(name, 'RawBLOB')} SELECT raw_blob FROM file(${literal(local)}, 'RawBLOB') SETTINGS s3_truncate_on_insert = 1`,
      'CSV',
    );
    const stored = Number(this.session.query(`SELECT _size FROM ${this.source(name, 'RawBLOB')} LIMIT 1`, 'TSV').trim());
    if (stored !== bytes) throw new Error(`${this.url(name)} holds ${stored} bytes after the copy, not the ${bytes} written`);
  }
}

async function run(config: Config, store: AnalyticsStore, argv: string[]): Promise<ReturnType<typeof manifestOf>> {
  const { request, filters: given, target } = parse(argv);
  const filters = await exportFilters(store, { dataset: request.dataset, filters: given }, null);
  const dataset = DATASET[request.dataset];
  const plan = await rowsPerDay(store, dataset, await dataset.select(store, filters));
  const total = plan.reduce((sum, part) => sum + part.rows, 0);
  say(`${request.dataset}: ${total.toLocaleString('en')} rows in ${plan.length} file(s)`);
  const staging = 'folder' in target ? target.folder : fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-export-'));
  // chDB is one engine per process: the copies to the bucket run on the store's own folder when the store is chDB.
  const scratch =
    'bucket' in target && config.engines.clickhouseUrl ? fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-export-chdb-')) : null;
  const session = 'bucket' in target ? new Session(scratch ?? path.join(config.dataDir, 'chdb')) : null;
  const bucket = 'bucket' in target && session ? new BucketWriter(session, config.exports.s3, target.bucket, target.prefix) : null;
  try {
    const files: WrittenFile[] = [];
    for (const part of plan) {
      const file = await writePart(store, { ...request, filters }, part.day, staging);
      if (bucket) {
        bucket.put(path.join(staging, file.name), file.name, file.bytes);
        fs.rmSync(path.join(staging, file.name));
      }
      files.push(file);
      say(`${files.length}/${plan.length} ${file.name}: ${file.rows.toLocaleString('en')} rows, ${file.bytes.toLocaleString('en')} bytes`);
    }
    const manifest = manifestOf(null, { ...request, filters }, files, Date.now());
    const manifestFile = path.join(staging, MANIFEST);
    fs.mkdirSync(staging, { recursive: true });
    fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    if (bucket) bucket.put(manifestFile, MANIFEST, fs.statSync(manifestFile).size);
    say(`done: ${bucket ? bucket.url(MANIFEST) : manifestFile}`);
    return manifest;
  } finally {
    session?.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    if ('bucket' in target) fs.rmSync(staging, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.length === 0) {
    say(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      say(error.message);
      return 2;
    }
    throw error;
  }
  let lock: DataDirLock | null = null;
  let store: AnalyticsStore | null = null;
  try {
    parse(argv);
    if (!config.engines.clickhouseUrl) {
      claimDataDirPrivately(config.dataDir, { warn: (details, message) => say(`${message} (${JSON.stringify(details)})`) });
      lock = acquireDataDirLock(config.dataDir, 'admin', (holder) =>
        holder.role === 'service'
          ? `the tapeline service (pid ${holder.pid}) is running on ${config.dataDir}, and its engine is in-process: export through the API (POST /v1/exports), or stop the service and run the export`
          : `${config.dataDir} is in use by a tapeline ${holder.role} (pid ${holder.pid}); retry when it finished`,
      );
    }
    store = await openAnalyticsStore(config);
    const manifest = await run(config, store, argv);
    process.stdout.write(`${JSON.stringify(manifest, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      say(`${error.message}\n${USAGE}`);
      return 2;
    }
    if (error instanceof ApiError) {
      say(error.message);
      return 2;
    }
    if (error instanceof DataDirBusyError) {
      say(error.message);
      return 3;
    }
    say(`failed: ${(error as Error).message}`);
    return 1;
  } finally {
    await store?.close();
    lock?.release();
  }
}

process.exitCode = await main();
