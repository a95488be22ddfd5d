/**
 * Exports over the real engine (chDB) and control store (PGlite): a trades export written as Parquet by
 * the engine, downloaded through its signed links without a key, read back by the engine's Parquet
 * reader (independent of the writer's statement), equals GET /v1/trades?role=all walked to the end,
 * row for row; the manifest's counts and checksums match the files; another account sees nothing;
 * forged or expired links and the limits are refused naming what refused them.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { type ApiHarness, startApiHarness } from '../../test/support/api-harness.js';
import {
  chainFill,
  conditionId,
  marketResolved,
  marketUpserted,
  T0,
  tradeExecuted,
  txHash,
  walletAddress,
} from '../../test/support/events.js';
import { pino } from 'pino';
import { ExportJobs } from './jobs.js';
import { ExportRunner } from './runner.js';
import { getJson, postJson, waitFor, walkPages } from '../../test/support/http.js';

const post = (url: string, apiKey: string, body: unknown) => postJson(url, body, { apiKey });
import { type ProjectionHarness, projectionHarness } from '../../test/support/projection.js';

const M1 = conditionId(0xe1);
const M2 = conditionId(0xe2);
const DAY = 86_400_000;
const FROM = new Date(T0 - 2 * DAY).toISOString();
const TO = new Date(T0 + DAY).toISOString();

let h: ProjectionHarness;
let api: ApiHarness;
let key: string;
let otherKey: string;
let now = Date.now();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-exports-'));

beforeAll(async () => {
  h = await projectionHarness('exports');
  // A second API on the same analytics store with its own DATA_DIR and a clock the test moves.
  api = await startApiHarness({
    store: h.store,
    env: {
      DATA_DIR: dataDir,
      EXPORT_MAX_ROWS: '1000',
      AUTH_FAILURES_PER_IP_PER_MINUTE: '5',
      EXPORT_DOWNLOADS_PER_ADDRESS: '2',
      EXPORT_DOWNLOADS_MAX: '3',
      // Small, so these exports of a few kB are several calls each.
      EXPORT_BYTES_PER_CALL: '1000',
    },
    clock: () => now,
  });
  key = (await api.admin.createKey('exporter', '2')).api_key;
  otherKey = (await api.admin.createKey('other', '2')).api_key;
  const fills = [0, 1, 2, 3].flatMap((n) => {
    const at = T0 - DAY + n * 3_600_000;
    const tx = txHash(0x100 + n);
    const market = n % 2 === 0 ? M1 : M2;
    const common = { market_id: market, tx_hash: tx, block_number: 80_000_000 + n, block_time_ms: at, ingested_at_ms: at };
    return [
      chainFill({
        ...common,
        log_index: 1,
        wallet: walletAddress(0x10 + n),
        fill: {
          role: 'taker',
          side: 'buy',
          shares_micro: `${12_345_678 + n}`,
          usdc_micro: `${4_567_891 + n}`,
          price: 0.37,
          fee_micro: '1234',
        },
      }),
      chainFill({
        ...common,
        log_index: 2,
        wallet: walletAddress(0x20 + n),
        fill: {
          role: 'maker',
          side: 'sell',
          shares_micro: `${12_345_678 + n}`,
          usdc_micro: `${4_567_891 + n}`,
          price: 0.37,
          fee_micro: '0',
        },
      }),
    ];
  });
  await h.given({
    markets: [marketUpserted({ market_id: M1, slug: 'export-one' }), marketUpserted({ market_id: M2, slug: 'export-two' })],
    chainLedger: fills,
    // Data API trades a day later (outside the chain's coverage), with float amounts.
    trades: [1, 2, 3].map((n) =>
      tradeExecuted({
        event_id: `api-${n}`,
        market_id: M2,
        wallet: walletAddress(0x30 + n),
        price: 0.29,
        size: 10.123457 * n,
        size_usdc: 2.935802 * n,
        timestamp_ms: T0 + n * 60_000,
        tx_hash: txHash(0x200 + n),
      }),
    ),
    marketResolutions: [marketResolved({ market_id: M1, winning_outcome: 'No', winning_outcome_index: 1, resolved_at_ms: T0 })],
  });
}, 120_000);

afterAll(async () => {
  await api?.close();
  await h?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const v1 = (p: string) => `${api.base}/v1${p}`;

async function finished(id: string, apiKey = key) {
  return waitFor(
    async () => {
      const { body } = await getJson(v1(`/exports/${id}`), apiKey);
      return body.data.status === 'succeeded' || body.data.status === 'failed' ? body.data : undefined;
    },
    30_000,
    `export ${id} to finish`,
    50,
  );
}

async function download(url: string): Promise<Buffer> {
  const response = await fetch(`${api.base}${url}`);
  if (response.status !== 200) throw new Error(`download ${url}: ${response.status} ${await response.text()}`);
  return Buffer.from(await response.arrayBuffer());
}

describe('a trades export', () => {
  let job: any;
  let manifest: any;
  const readBack = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-exports-read-'));

  beforeAll(async () => {
    const created = await post(v1('/exports'), key, { dataset: 'trades', filters: { from: FROM, to: TO } });
    expect(created.status).toBe(202);
    expect(created.body.data).toMatchObject({ dataset: 'trades', format: 'parquet', status: 'queued' });
    job = await finished(created.body.data.id);
    manifest = JSON.parse((await download(job.manifest.url)).toString('utf8'));
  }, 60_000);

  afterAll(() => fs.rmSync(readBack, { recursive: true, force: true }));

  test('succeeds with one file per UTC day, and the manifest says what the files hold', async () => {
    expect(job.status).toBe('succeeded');
    expect(job.progress).toMatchObject({ fraction: 1, rows_written: 11, rows_planned: 11 });
    const days = [new Date(T0 - DAY), new Date(T0)].map((d) => d.toISOString().slice(0, 10));
    expect(job.files.map((f: { name: string }) => f.name)).toEqual(days.map((d) => `date=${d}/part-0.parquet`));
    expect(manifest).toMatchObject({ dataset: 'trades', schema_version: 1, format: 'parquet', compression: 'zstd', rows: 11 });
    expect(manifest.files).toEqual(job.files.map(({ url, expires_at, ...file }: Record<string, unknown>) => file));
    for (const file of manifest.files) {
      const bytes = await download(job.files.find((f: { name: string }) => f.name === file.name).url);
      expect(bytes.length).toBe(file.bytes);
      expect(crypto.createHash('sha256').update(bytes).digest('hex')).toBe(file.sha256);
      expect(bytes.subarray(0, 4).toString()).toBe('PAR1');
      const local = path.join(readBack, file.name);
      fs.mkdirSync(path.dirname(local), { recursive: true });
      fs.writeFileSync(local, bytes);
      const [counted] = await h.rows<{ rows: number }>(`SELECT count() AS rows FROM file({f:String}, Parquet)`, { f: local });
      expect(Number(counted?.rows)).toBe(file.rows);
    }
  });

  test('its rows are /v1/trades?role=all walked to the end, row for row, with the market resolution', async () => {
    const served = await walkPages(v1(`/trades?role=all&from=${FROM}&to=${TO}&limit=4`), key);
    const exported = await h.rows<Record<string, unknown>>(
      `SELECT trade_id, market_id, market_title, wallet, role, side, outcome, outcome_index, price, size_shares, size_usdc,
              toString(size_shares_micro) AS size_shares_micro, toString(size_usdc_micro) AS size_usdc_micro,
              toString(fee_micro) AS fee_micro, fee_asset, formatDateTime(timestamp, '%Y-%m-%dT%H:%i:%S.%fZ') AS ts,
              block_number, log_index, tx_hash, origin, source, market_winning_outcome, market_winning_outcome_index
         FROM file({glob:String}, Parquet)
        ORDER BY ts DESC, block_number DESC, log_index DESC, trade_id DESC
        SETTINGS output_format_json_quote_decimals = 0`,
      { glob: path.join(readBack, 'date=*', 'part-0.parquet') },
    );
    expect(served.items).toHaveLength(11);
    expect(exported.map(({ market_winning_outcome, market_winning_outcome_index, ts, ...row }) => ({ ...row, timestamp: ts }))).toEqual(
      served.items.map((t) => ({ ...t, timestamp: t.timestamp.replace(/(\.\d{3})Z$/, '$1000Z') })),
    );
    const resolution = exported.map((r) => [r.market_id, r.market_winning_outcome, r.market_winning_outcome_index]);
    expect(new Set(resolution.map((r) => JSON.stringify(r)))).toEqual(
      new Set([JSON.stringify([M1, 'No', 1]), JSON.stringify([M2, null, null])]),
    );
  });

  test('a date filter reads only its partition (Hive-style paths)', async () => {
    const day = job.files[0].name.slice(5, 15);
    const [read] = await h.rows<{ rows: number; files: number }>(
      `SELECT count() AS rows, uniqExact(_path) AS files FROM file({glob:String}, Parquet) WHERE date = {day:String}
        SETTINGS use_hive_partitioning = 1`,
      { glob: path.join(readBack, 'date=*', 'part-0.parquet'), day },
    );
    expect(read).toEqual({ rows: job.files[0].rows, files: 1 });
  });

  test('a download resumes with Range: one range is a 206 of those bytes; several, malformed or past the end, the whole file', async () => {
    const file = manifest.files[0];
    const url = `${api.base}${job.files[0].url}`;
    const whole = await download(job.files[0].url);
    const ranged = (range: string) => fetch(url, { headers: { range } });
    const rest = await ranged('bytes=100-');
    expect(rest.status).toBe(206);
    expect(rest.headers.get('content-range')).toBe(`bytes 100-${file.bytes - 1}/${file.bytes}`);
    expect(rest.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await rest.arrayBuffer())).toEqual(whole.subarray(100));
    const head = await ranged('bytes=0-3');
    expect([head.status, Buffer.from(await head.arrayBuffer()).toString()]).toEqual([206, 'PAR1']);
    const tail = await ranged('bytes=-4');
    expect([tail.status, Buffer.from(await tail.arrayBuffer()).toString()]).toEqual([206, 'PAR1']);
    for (const range of ['bytes=0-3,8-9', 'lines=1-2', `bytes=${file.bytes}-`]) {
      const full = await ranged(range);
      expect({ range, status: full.status }).toEqual({ range, status: 200 });
      expect(Buffer.from(await full.arrayBuffer())).toEqual(whole);
    }
  });

  test('only the owning account sees the job', async () => {
    expect((await getJson(v1(`/exports/${job.id}`), otherKey)).status).toBe(404);
    const theirs = await getJson(v1('/exports'), otherKey);
    expect(theirs.body.data).toEqual([]);
    const mine = await getJson(v1('/exports'), key);
    expect(mine.body.data.map((j: { id: string }) => j.id)).toContain(job.id);
  });

  test('a link opens only its own file, and only until it expires', async () => {
    const url = new URL(`${api.base}${job.files[0].url}`);
    const forged = new URL(url);
    forged.searchParams.set('file', job.files[1].name);
    const forgedResponse = await fetch(forged);
    expect(forgedResponse.status).toBe(403);
    expect(JSON.stringify(await forgedResponse.json())).toContain('signature');
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await fetch(later)).status).toBe(403);
    now += 2 * 3_600_000;
    try {
      const expired = await fetch(url);
      expect(expired.status).toBe(403);
      expect(JSON.stringify(await expired.json())).toContain('expires');
    } finally {
      now -= 2 * 3_600_000;
    }
  });

  test('keyless downloads are bounded by address: bad links meet the failed-authentication limit, and downloads in progress a cap', async () => {
    const link = new URL(`${api.base}${job.files[0].url}`);
    const forged = new URL(link);
    forged.searchParams.set('signature', 'A'.repeat(43));
    // Five bad links (AUTH_FAILURES_PER_IP_PER_MINUTE here) are 403s; past them even a good link is a
    // 429 for that address, while another address is served (the failures of the last minute count).
    const guesses = [];
    for (let i = 0; i < 6; i++) guesses.push((await fetchFrom('127.0.0.31', forged)).status);
    expect(guesses).toEqual([403, 403, 403, 403, 403, 429]);
    const locked = await fetchFrom('127.0.0.31', link);
    expect([locked.status, locked.body]).toEqual([429, expect.stringContaining('AUTH_FAILURES_PER_IP_PER_MINUTE')]);
    expect((await fetchFrom('127.0.0.32', link)).status).toBe(200);

    // Two downloads held open (EXPORT_DOWNLOADS_PER_ADDRESS here): a third from the address is a 429
    // naming `downloads`; another address is served; once one ends, the address is served again.
    const file = path.join(dataDir, 'exports', job.id, job.files[0].name);
    const original = fs.readFileSync(file);
    // Larger than the loopback socket buffers, so a client that reads nothing holds its download open.
    fs.writeFileSync(file, Buffer.alloc(64 * 1024 ** 2));
    try {
      const held = [await holdDownload('127.0.0.33', link), await holdDownload('127.0.0.33', link)];
      const third = await fetchFrom('127.0.0.33', link);
      expect([third.status, third.body]).toEqual([429, expect.stringContaining('downloads: 2 downloads from this address')]);
      expect((await fetchFrom('127.0.0.34', link)).status).toBe(200);
      held[0]!.destroy();
      await waitFor(async () => (await fetchFrom('127.0.0.33', link)).status === 200, 10_000, 'the address served again');
      held[1]!.destroy();
    } finally {
      fs.writeFileSync(file, original);
    }
  });

  test('downloads in progress are bounded on the server too: addresses each under their cap are refused at EXPORT_DOWNLOADS_MAX', async () => {
    const link = new URL(`${api.base}${job.files[0].url}`);
    const file = path.join(dataDir, 'exports', job.id, job.files[0].name);
    const original = fs.readFileSync(file);
    fs.writeFileSync(file, Buffer.alloc(64 * 1024 ** 2));
    try {
      // Three clients that never read (EXPORT_DOWNLOADS_MAX here), from two addresses each under
      // EXPORT_DOWNLOADS_PER_ADDRESS: a fourth address is refused though it holds nothing.
      const held = [await holdOnceFree('127.0.0.41', link), await holdOnceFree('127.0.0.42', link), await holdOnceFree('127.0.0.42', link)];
      const refused = await fetchFrom('127.0.0.43', link);
      // The status alone first: a download served in its place is a 64 MB body.
      expect(refused.status).toBe(429);
      expect(refused.body).toContain('downloads: 3 downloads are in progress on this server');
      expect(refused.body).toContain('EXPORT_DOWNLOADS_MAX');
      expect(refused.headers['retry-after']).toBe('1');
      // One closes: its slot is given back, and the other address is served.
      held[0]!.destroy();
      await waitFor(async () => (await fetchFrom('127.0.0.43', link)).status === 200, 10_000, 'a slot freed');
      for (const request of held) request.destroy();
      // Every slot given back (none leaked by the refusal or the closes): three can be held again.
      const again = [
        await holdOnceFree('127.0.0.44', link),
        await holdOnceFree('127.0.0.45', link),
        await holdOnceFree('127.0.0.46', link),
      ];
      for (const request of again) request.destroy();
    } finally {
      fs.writeFileSync(file, original);
    }
  });
});

/** GET `url` from a local `address` (each a client of its own for the per-address limits); the body read whole. */
function fetchFrom(address: string, url: URL): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { localAddress: address, agent: false }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: response.headers }),
        );
      })
      .on('error', reject);
  });
}

/** A held download from `address` once the server has a slot for it (closed downloads give theirs back a moment later). */
function holdOnceFree(address: string, url: URL): Promise<http.ClientRequest> {
  return waitFor(() => holdDownload(address, url), 10_000, `a download slot for ${address}`);
}

/** A download from `address` whose 200 has arrived and whose body is not read, so it stays in progress. */
function holdDownload(address: string, url: URL): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { localAddress: address, agent: false }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`held download: HTTP ${response.statusCode}`));
      response.pause();
      resolve(request);
    });
    request.on('error', () => undefined);
  });
}

test('a job interrupted by a stop is queued again on start and resumes after its last whole file', async () => {
  const created = await post(v1('/exports'), key, { dataset: 'trades', format: 'ndjson', filters: { from: FROM, to: TO } });
  const whole = await finished(created.body.data.id);
  const folder = path.join(dataDir, 'exports', whole.id);
  const [first, second] = whole.files;
  const firstWritten = fs.statSync(path.join(folder, first.name)).mtimeMs;
  // As a stop leaves it: running, one file recorded, the next one half written, no manifest.
  fs.rmSync(path.join(folder, 'manifest.json'));
  fs.rmSync(path.join(folder, second.name));
  fs.writeFileSync(path.join(folder, `${second.name}.partial`), '{"trade_id":');
  await api.control.query("UPDATE export_jobs SET status = 'running', files = $2, finished_at = NULL WHERE id = $1", [
    whole.id,
    JSON.stringify([first]),
  ]);
  expect((await getJson(v1(`/exports/${whole.id}`), key)).body.data).toMatchObject({ status: 'running', manifest: null });
  const charged: number[] = [];
  const runner = new ExportRunner(
    new ExportJobs(api.control, Date.now),
    h.store,
    path.join(dataDir, 'exports'),
    { maxBytes: 1 << 30, bytesPerCall: 1000, retentionMs: 72 * 3_600_000 },
    pino({ level: 'silent' }),
    async (_account, calls) => {
      charged.push(calls);
      return null;
    },
  );
  await runner.start();
  await runner.idle();
  const resumed = await finished(whole.id);
  expect(resumed.files).toEqual(
    whole.files.map((f: Record<string, unknown>) => ({ ...f, url: expect.any(String), expires_at: expect.any(String) })),
  );
  expect(fs.statSync(path.join(folder, first.name)).mtimeMs).toBe(firstWritten);
  expect(fs.existsSync(path.join(folder, `${second.name}.partial`))).toBe(false);
  // Its bytes were charged when it first finished: the resumed job charges nothing again.
  expect(whole.byte_calls).toBeGreaterThan(0);
  expect(resumed.byte_calls).toBe(whole.byte_calls);
  expect(charged).toEqual([]);
  const lines = (await download(resumed.files[1].url))
    .toString('utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(lines).toHaveLength(second.rows);
  expect(lines[0]).toMatchObject({ origin: expect.any(String), price: expect.any(Number) });
});

test('finished exports past their retention lose their files and show expired; younger ones keep theirs', async () => {
  const created = await post(v1('/exports'), key, { dataset: 'trades', format: 'csv', filters: { from: FROM, to: TO } });
  const done = await finished(created.body.data.id);
  const folder = path.join(dataDir, 'exports', done.id);
  const link = done.files[0].url;
  const sweeper = (clock: () => number) =>
    new ExportRunner(
      new ExportJobs(api.control, clock),
      h.store,
      path.join(dataDir, 'exports'),
      { maxBytes: 1 << 30, bytesPerCall: 1000, retentionMs: 72 * 3_600_000 },
      pino({ level: 'silent' }),
      async () => 'not charged here',
      clock,
    );
  // 71 hours after it finished: kept.
  expect(await sweeper(() => Date.now() + 71 * 3_600_000).sweep()).toBe(0);
  expect(fs.existsSync(folder)).toBe(true);
  // 73 hours after: this job and every older finished one expire, their folders go.
  expect(await sweeper(() => Date.now() + 73 * 3_600_000).sweep()).toBeGreaterThanOrEqual(1);
  expect(fs.existsSync(folder)).toBe(false);
  const after = (await getJson(v1(`/exports/${done.id}`), key)).body.data;
  expect(after).toMatchObject({ status: 'expired', manifest: null });
  expect((await fetch(`${api.base}${link}`)).status).toBe(404);
});

/** The job's status from the control store, without a metered call. */
async function settledJob(id: string): Promise<{ status: string; byte_calls: number; bytes_written: number; error: string | null }> {
  return waitFor(
    async () => {
      const [row] = await api.control.query<{ status: string; byte_calls: number; bytes_written: string; error: string | null }>(
        'SELECT status, byte_calls, bytes_written::text AS bytes_written, error FROM export_jobs WHERE id = $1',
        [id],
      );
      return row && (row.status === 'succeeded' || row.status === 'failed')
        ? { ...row, bytes_written: Number(row.bytes_written) }
        : undefined;
    },
    30_000,
    `export ${id} to finish`,
    50,
  );
}

describe('metering by bytes', () => {
  test('a finished export is charged one call per started EXPORT_BYTES_PER_CALL of its files, besides the call that made it', async () => {
    const payer = (await api.admin.createKey('payer', '2')).api_key;
    const account = (await api.accounts.authenticate(payer))!.account_id;
    const before = (await api.meter.usage(account)).used;
    const created = await post(v1('/exports'), payer, { dataset: 'trades', format: 'csv', filters: { from: FROM, to: TO } });
    const job = await settledJob(created.body.data.id);
    expect(job.status).toBe('succeeded');
    expect(job.byte_calls).toBe(Math.ceil(job.bytes_written / 1000));
    expect(job.byte_calls).toBeGreaterThan(1);
    expect((await api.meter.usage(account)).used - before).toBe(1 + job.byte_calls);
    // The job says what its bytes cost.
    expect((await getJson(v1(`/exports/${created.body.data.id}`), payer)).body.data.byte_calls).toBe(job.byte_calls);
  });

  test('an account that cannot pay for the bytes gets a failed job naming why, no files, and is charged nothing for them', async () => {
    // Tier 2 by credits: 2 credits, one for the call that makes the export, one left (fewer than its bytes need).
    const poor = (await api.admin.createKey('poor', '1')).api_key;
    await api.admin.addCredits(poor, 2);
    const created = await post(v1('/exports'), poor, { dataset: 'trades', format: 'csv', filters: { from: FROM, to: TO } });
    expect(created.status).toBe(202);
    const id = created.body.data.id;
    const job = await settledJob(id);
    expect(job.status).toBe('failed');
    expect(job.byte_calls).toBe(0);
    expect(job.error).toMatch(
      /^payment_required: the export's \d+ bytes are \d+ calls \(EXPORT_BYTES_PER_CALL: 1000\); this needs \d+ calls, and the account has 0 left of today's quota and credits for 1 more/,
    );
    expect(fs.existsSync(path.join(dataDir, 'exports', id))).toBe(false);
    const account = (await api.accounts.authenticate(poor))!.account_id;
    expect((await api.meter.usage(account)).credits_balance).toBe(1);
    // What the owner sees (this call spends the last credit).
    expect((await getJson(v1(`/exports/${id}`), poor)).body.data).toMatchObject({ status: 'failed', byte_calls: 0, manifest: null });
  });
});

describe('limits and bad input', () => {
  test('from..to is required, ordered and bounded', async () => {
    const missing = await post(v1('/exports'), key, { dataset: 'trades', filters: { from: FROM } });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toContain('to');
    const reversed = await post(v1('/exports'), key, { dataset: 'trades', filters: { from: TO, to: FROM } });
    expect(reversed.status).toBe(400);
    expect(reversed.body.error).toContain('filters.from');
    const long = await post(v1('/exports'), key, {
      dataset: 'trades',
      filters: { from: '2020-01-01T00:00:00Z', to: '2022-01-01T00:00:00Z' },
    });
    expect(long.status).toBe(400);
    expect(long.body.error).toContain('EXPORT_MAX_DAYS');
  });

  test('a filter sent beside dataset instead of inside filters is a 400 saying where it belongs', async () => {
    const misplaced = await post(v1('/exports'), key, { dataset: 'trades', from: FROM, to: TO });
    expect(misplaced.status).toBe(400);
    expect(misplaced.body.error).toContain('from: not a field of the body; it belongs in filters.from');
    const late = await post(v1('/exports'), key, { dataset: 'trades', filters: { from: FROM }, to: TO });
    expect(late.body.error).toContain('to: not a field of the body; it belongs in filters.to');
    // A field that is nowhere in the body's schema keeps the validator's own words.
    const unknown = await post(v1('/exports'), key, { dataset: 'trades', colour: 'red', filters: { from: FROM, to: TO } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toContain('colour: must NOT have additional properties');
  });

  test('an unknown market slug is a 404 naming the filter', async () => {
    const unknown = await post(v1('/exports'), key, { dataset: 'trades', filters: { market: 'no-such-market', from: FROM, to: TO } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toContain('market');
  });

  test('more rows than EXPORT_MAX_ROWS is a 400 naming the limit', async () => {
    const small = await startApiHarness({ store: h.store, env: { DATA_DIR: dataDir, EXPORT_MAX_ROWS: '5' } });
    try {
      const k = (await small.admin.createKey('small', '2')).api_key;
      const refused = await post(`${small.base}/v1/exports`, k, { dataset: 'trades', filters: { from: FROM, to: TO } });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toContain('EXPORT_MAX_ROWS');
      const market = await post(`${small.base}/v1/exports`, k, {
        dataset: 'trades',
        filters: { market: 'export-one', from: FROM, to: TO },
      });
      expect(market.status).toBe(202);
      expect(market.body.data.filters.market).toBe(M1);
    } finally {
      await small.close();
    }
  });

  test('past EXPORT_CONCURRENT_JOBS queued or running exports a new one is a 409 naming the limit', async () => {
    const issued = await api.admin.createKey('busy', '2');
    for (const n of [1, 2])
      await api.control.query(
        `INSERT INTO export_jobs (id, account_id, dataset, format, filters, status, plan, rows_total, created_at, updated_at)
         VALUES ($1, $2, 'trades', 'parquet', '{}', 'running', '[]', 0, now(), now())`,
        [`exp_busy_${n}`, issued.account_id],
      );
    const refused = await post(v1('/exports'), issued.api_key, { dataset: 'trades', filters: { from: FROM, to: TO } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain('EXPORT_CONCURRENT_JOBS');
  });

  test('a Tier 1 key is refused with 402', async () => {
    const free = (await api.admin.createKey('free', '1')).api_key;
    expect((await post(v1('/exports'), free, { dataset: 'trades', filters: { from: FROM, to: TO } })).status).toBe(402);
  });
});
