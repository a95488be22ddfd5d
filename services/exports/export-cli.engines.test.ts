/**
 * `npm run export` (export-cli.ts) end to end: a stopped service's store exported by the command into a
 * folder and into an S3-compatible bucket (moto's server on 127.0.0.1). The folder's manifest matches
 * its files (sizes, SHA-256) and the rows the API serves; the bucket, read back by an independent client
 * (boto3), holds exactly the files its manifest names; bad options are refused naming them (exit 2) and
 * a data folder in use is refused (exit 3).
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { acquireDataDirLock } from '../shared/data-dir-lock.js';
import { chainFill, conditionId, marketUpserted, T0, txHash, walletAddress } from '../../test/support/events.js';
import { walkPages } from '../../test/support/http.js';
import { REPO_ROOT } from '../../test/support/processes.js';
import { type ProjectionHarness, projectionHarness } from '../../test/support/projection.js';
import { type S3Server, S3_TEST_CREDENTIALS, startS3Server } from '../../test/support/s3-server.js';

const DAY = 86_400_000;
const M1 = conditionId(0xc1);
const FROM = new Date(T0 - 2 * DAY).toISOString();
const TO = new Date(T0 + DAY).toISOString();

let h: ProjectionHarness;
let s3: S3Server;
let dataDir: string;
let servedTrades: number;
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-export-cli-'));

interface Manifest {
  rows: number;
  bytes: number;
  files: Array<{ name: string; rows: number; bytes: number; sha256: string }>;
}

function exportCommand(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'services/exports/export-cli.ts', ...args],
      {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, CLICKHOUSE_DATABASE: 'projection', ...env },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  s3 = await startS3Server();
  await s3.createBucket('research');
  h = await projectionHarness('export-cli');
  dataDir = path.dirname(h.chdbPath);
  // Fills on three days, so the export has three day partitions.
  const fills = [0, 1, 2, 3, 4, 5].map((n) =>
    chainFill({
      market_id: M1,
      tx_hash: txHash(0x300 + n),
      log_index: 1,
      block_number: 80_000_000 + n,
      block_time_ms: T0 - DAY + n * 8 * 3_600_000,
      wallet: walletAddress(0x40 + n),
      fill: { role: 'taker', side: 'buy', shares_micro: `${10_000_000 + n}`, usdc_micro: `${3_000_000 + n}`, price: 0.3, fee_micro: '0' },
    }),
  );
  await h.given({ markets: [marketUpserted({ market_id: M1, slug: 'export-cli-market' })], chainLedger: fills });
  servedTrades = (await walkPages(`${h.api.base}/v1/trades?role=all&from=${FROM}&to=${TO}&limit=500`, h.key)).items.length;
  // The command opens the store itself: the service (here, the harness) must have stopped.
  await h.close();
}, 300_000);

afterAll(() => {
  s3?.stop();
  fs.rmSync(out, { recursive: true, force: true });
});

test('into a folder: day partitions, and a manifest whose counts and checksums are the files and the rows the API served', async () => {
  const folder = path.join(out, 'folder');
  const run = await exportCommand(['--dataset', 'trades', '--from', FROM, '--to', TO, '--out', folder]);
  expect(run).toMatchObject({ code: 0 });
  const manifest = JSON.parse(run.stdout) as Manifest;
  expect(JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8'))).toEqual(manifest);
  expect(servedTrades).toBe(6);
  expect(manifest.rows).toBe(servedTrades);
  expect(manifest.files.map((f) => f.name)).toEqual(
    [...new Set([0, 1, 2, 3, 4, 5].map((n) => new Date(T0 - DAY + n * 8 * 3_600_000).toISOString().slice(0, 10)))].map(
      (day) => `date=${day}/part-0.parquet`,
    ),
  );
  for (const file of manifest.files) {
    const bytes = fs.readFileSync(path.join(folder, file.name));
    expect({ name: file.name, bytes: bytes.length, sha256: crypto.createHash('sha256').update(bytes).digest('hex') }).toEqual({
      name: file.name,
      bytes: file.bytes,
      sha256: file.sha256,
    });
  }
}, 120_000);

test('into an S3 bucket: every file and the manifest, byte for byte as the manifest says, read back by another client', async () => {
  const run = await exportCommand(
    ['--dataset', 'trades', '--from', FROM, '--to', TO, '--format', 'csv', '--out', 's3://research/tapeline/trades'],
    {
      EXPORT_S3_ENDPOINT: s3.endpoint,
      EXPORT_S3_ACCESS_KEY_ID: S3_TEST_CREDENTIALS.accessKeyId,
      EXPORT_S3_SECRET_ACCESS_KEY: S3_TEST_CREDENTIALS.secretAccessKey,
    },
  );
  expect(run).toMatchObject({ code: 0 });
  const manifest = JSON.parse(run.stdout) as Manifest;
  expect(manifest.rows).toBe(servedTrades);
  const objects = await s3.objects('research', 'tapeline/trades/');
  const expected = manifest.files.map((f) => ({ key: `tapeline/trades/${f.name}`, size: f.bytes, sha256: f.sha256 }));
  expect(objects.filter((o) => !o.key.endsWith('manifest.json'))).toEqual(expected);
  // The manifest is there too, and is the one printed.
  const stored = objects.find((o) => o.key === 'tapeline/trades/manifest.json');
  expect(stored?.sha256).toBe(
    crypto
      .createHash('sha256')
      .update(`${JSON.stringify(manifest, null, 2)}\n`)
      .digest('hex'),
  );
  // Nothing is left behind locally but what the service had.
  expect(fs.readdirSync(dataDir).sort()).toEqual(['chdb', 'log']);
}, 120_000);

test('refusals: an unknown dataset, a filter the dataset lacks, a bad bucket (exit 2, naming it), a folder in use (exit 3)', async () => {
  const unknown = await exportCommand(['--dataset', 'orders', '--out', out]);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain('--dataset: no dataset orders');
  const filter = await exportCommand(['--dataset', 'markets', '--wallet', walletAddress(1), '--out', out]);
  expect(filter.code).toBe(2);
  expect(filter.stderr).toContain('filters.wallet: the markets dataset has no wallet filter');
  const missing = await exportCommand(['--dataset', 'trades', '--out', out]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('filters.from: required for the trades dataset');
  const bucket = await exportCommand(['--dataset', 'markets', '--out', 's3://A_B']);
  expect(bucket.code).toBe(2);
  expect(bucket.stderr).toContain('--out: s3://A_B is not s3://<bucket>');
  const lock = acquireDataDirLock(dataDir, 'service');
  try {
    const busy = await exportCommand(['--dataset', 'markets', '--out', path.join(out, 'busy')]);
    expect(busy.code).toBe(3);
    expect(busy.stderr).toContain('export through the API (POST /v1/exports)');
  } finally {
    lock.release();
  }
}, 120_000);
