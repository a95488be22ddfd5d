/**
 * Bulk exports (writes bench/results/export.json): a trades export of N rows to Parquet through the
 * job path (POST /v1/exports, planned per day, one engine statement per day file, each renamed,
 * hashed and recorded, then the manifest), as a ratio of rows per second to the engine writing the
 * same rows (the dataset's own SELECT over the whole window) to one local Parquet file with one
 * `INSERT INTO FUNCTION file(...)` in the same process: the baseline runs once before the API starts
 * and then alternates with the job BENCH_ROUNDS times; the fastest run of each is compared (the
 * machine may be shared). Goal (issue #56): >= 0.7.
 *
 * Memory: the process's peak RSS (Linux VmHWM, reset through /proc/self/clear_refs before each part,
 * so it catches a peak inside a synchronous engine call that a timer could not sample) during the job
 * and during the baseline, at each size, each size in a process of its own. chDB runs inside the API
 * process, so its memory is the API's. Goal: flat as N grows.
 *
 * The rows are Data API trades made by the engine itself (`INSERT ... SELECT FROM numbers(N)`, so the
 * bench's own generation costs no Node memory), spread evenly over BENCH_DAYS UTC days ending yesterday.
 *
 *   npx tsx bench/export.bench.ts     (BENCH_SIZES=300000,1000000,3000000 BENCH_DAYS=7 BENCH_ROUNDS=2)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openChdbStore } from '../services/analytics/clickhouse-store.js';
import { migrate } from '../services/analytics/migrate.js';
import { DATASET } from '../services/exports/datasets.js';
import type { ExportJob } from '../services/http/types.generated.js';
import { startApiHarness } from '../test/support/api-harness.js';
import { getJson, postJson } from '../test/support/http.js';

const SIZES = (process.env.BENCH_SIZES ?? '300000,1000000,3000000').split(',').map(Number);
const DAYS = Number(process.env.BENCH_DAYS ?? 7);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const DAY = 86_400_000;
const here = path.dirname(fileURLToPath(import.meta.url));
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const mib = (bytes: number) => round(bytes / 2 ** 20, 1);

/** Peak resident memory since the last reset, in bytes (Linux). */
function peakRss(): number {
  const line = fs
    .readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  return Number(line!.replace(/\D/g, '')) * 1024;
}
/** Resets the peak to the current resident memory. */
const resetPeak = () => fs.writeFileSync('/proc/self/clear_refs', '5');

interface SizeResult {
  rows: number;
  files: number;
  bytes: number;
  baseline_bytes: number;
  load_ms: number;
  job_ms: number;
  baseline_ms: number;
  job_runs_ms: number[];
  baseline_runs_ms: number[];
  job_rows_per_s: number;
  baseline_rows_per_s: number;
  ratio: number;
  rss_before_mib: number;
  job_peak_rss_mib: number;
  baseline_peak_rss_mib: number;
}

/** The job once it succeeded or failed, polled every 100 ms. */
async function finished(base: string, key: string, id: string): Promise<ExportJob> {
  for (;;) {
    const job = (await getJson<{ data: ExportJob }>(`${base}/v1/exports/${id}`, key)).body.data;
    if (job.status === 'succeeded' || job.status === 'failed') return job;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function measure(n: number): Promise<SizeResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-export-'));
  try {
    const store = await openChdbStore({ path: path.join(dir, 'chdb'), database: 'bench_export' });
    await migrate(store);
    const to = Math.floor(Date.now() / DAY) * DAY;
    const from = to - DAYS * DAY;
    const loaded = performance.now();
    // 500 markets, 20,000 wallets, prices and sizes with six-decimal tails, times evenly over the window.
    await store.command(
      `INSERT INTO trades
       SELECT concat('t', toString(number)), concat('0x', leftPad(lower(hex(number % 500)), 64, '0')), concat('Market ', toString(number % 500)),
              toString(number % 1000), concat('0x', leftPad(lower(hex(number % 20000)), 40, '0')), if(number % 2 = 0, 'buy', 'sell'),
              'Yes', 0, 0.01 + (number % 98) / 100, 0.01 + (number % 98) / 100, 1 + (number % 100000) / 7, (1 + (number % 100000) / 7) * 0.37,
              fromUnixTimestamp64Milli(toInt64({from:Int64} + intDiv(number * {span:Int64}, {n:UInt64})), 'UTC'),
              concat('0x', leftPad(lower(hex(number)), 64, 'f')), 'simulator',
              fromUnixTimestamp64Milli(toInt64({from:Int64} + intDiv(number * {span:Int64}, {n:UInt64})), 'UTC')
         FROM numbers({n:UInt64})`,
      { from, span: DAYS * DAY, n },
    );
    await store.command('OPTIMIZE TABLE trades FINAL');
    const loadMs = performance.now() - loaded;
    // Baseline: the same SELECT, one statement, the same Parquet settings, straight to a file.
    const selection = await DATASET.trades.select(store, { from, to });
    const baselineFile = path.join(dir, 'baseline.parquet');
    const literal = `'${baselineFile.replace(/'/g, "\\'")}'`;
    const baseline = async () => {
      const began = performance.now();
      await store.command(
        `INSERT INTO FUNCTION file(${literal}, 'Parquet') ${selection.sql}
         SETTINGS output_format_parquet_compression_method = 'zstd', output_format_parquet_string_as_string = 1,
                  engine_file_truncate_on_insert = 1`,
        selection.params,
      );
      return performance.now() - began;
    };
    globalThis.gc?.();
    resetPeak();
    const baselineFirstMs = await baseline();
    const baselinePeak = peakRss();
    const api = await startApiHarness({ store, env: { DATA_DIR: dir, VALIDATE_RESPONSES: 'false', EXPORT_MAX_ROWS: String(n + 1) } });
    try {
      const key = (await api.admin.createKey('bench', '2')).api_key;
      const filters = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };

      // A running service: its first requests (key lookup, signing key, first plan) are warm-up, not the export's cost.
      const warm = await postJson(
        `${api.base}/v1/exports`,
        { dataset: 'trades', filters: { from: filters.from, to: new Date(from + 60_000).toISOString() } },
        { apiKey: key },
      );
      await finished(api.base, key, warm.body.data.id);

      // The job: accepted (planned), run in the background, polled until it succeeded. Alternated
      // with the baseline ROUNDS times (the machine is shared: the fastest run of each is its cost).
      globalThis.gc?.();
      const rssBefore = process.memoryUsage().rss;
      const jobRuns: number[] = [];
      const baselineRuns = [baselineFirstMs];
      let job: ExportJob | undefined;
      let jobPeak = 0;
      for (let round = 0; round < ROUNDS; round++) {
        globalThis.gc?.();
        resetPeak();
        const started = performance.now();
        const created = await postJson(`${api.base}/v1/exports`, { dataset: 'trades', filters }, { apiKey: key });
        if (created.status !== 202) throw new Error(`export refused: ${JSON.stringify(created.body)}`);
        job = await finished(api.base, key, created.body.data.id);
        jobRuns.push(performance.now() - started);
        jobPeak = Math.max(jobPeak, peakRss());
        if (job.status !== 'succeeded') throw new Error(`export failed: ${job.error}`);
        baselineRuns.push(await baseline());
      }
      const jobMs = Math.min(...jobRuns);
      const baselineMs = Math.min(...baselineRuns);
      const rows = job!.files.reduce((sum, f) => sum + f.rows, 0);
      const [counted] = await store.query<{ rows: number }>(`SELECT count() AS rows FROM file(${literal}, 'Parquet')`);
      if (rows !== n || Number(counted!.rows) !== n) throw new Error(`rows: job ${rows}, baseline ${counted!.rows}, made ${n}`);
      return {
        rows: n,
        files: job!.files.length,
        bytes: job!.bytes_written,
        baseline_bytes: fs.statSync(baselineFile).size,
        load_ms: Math.round(loadMs),
        job_ms: Math.round(jobMs),
        baseline_ms: Math.round(baselineMs),
        job_runs_ms: jobRuns.map(Math.round),
        baseline_runs_ms: baselineRuns.map(Math.round),
        job_rows_per_s: Math.round(n / (jobMs / 1000)),
        baseline_rows_per_s: Math.round(n / (baselineMs / 1000)),
        ratio: round(baselineMs / jobMs),
        rss_before_mib: mib(rssBefore),
        job_peak_rss_mib: mib(jobPeak),
        baseline_peak_rss_mib: mib(baselinePeak),
      };
    } finally {
      await api.close();
      await store.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const child = process.argv.indexOf('--size');
  if (child >= 0) {
    process.stdout.write(`${JSON.stringify(await measure(Number(process.argv[child + 1])))}\n`);
    return;
  }
  const results: SizeResult[] = [];
  for (const n of SIZES) {
    // A process per size: the peak of one size cannot carry into the next.
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--expose-gc', fileURLToPath(import.meta.url), '--size', String(n)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 20,
    });
    const result = JSON.parse(out.trim().split('\n').at(-1)!) as SizeResult;
    console.log(JSON.stringify(result));
    results.push(result);
  }
  const peaks = results.map((r) => r.job_peak_rss_mib);
  const output = {
    benchmark: 'export',
    at: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version, load_1m: round(os.loadavg()[0]!) },
    dataset: 'trades',
    format: 'parquet (zstd)',
    days: DAYS,
    sizes: results,
    goal_ratio: 0.7,
    ratio_min: Math.min(...results.map((r) => r.ratio)),
    met_ratio: results.every((r) => r.ratio >= 0.7),
    job_peak_rss_growth_mib: round(Math.max(...peaks) - Math.min(...peaks), 1),
  };
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  fs.writeFileSync(path.join(here, 'results', 'export.json'), `${JSON.stringify(output, null, 2)}\n`);
  console.log(JSON.stringify(output, null, 2));
}

await main();
process.exit(0);
