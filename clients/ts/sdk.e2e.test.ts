/**
 * The TypeScript SDK against the running demo: typed calls, cursor iteration, typed errors, 429 +
 * Retry-After honoured for real, and an export downloaded whole (every file checked against its manifest).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Demo, startDemo } from '../../test/support/demo.js';
import { getJson, waitFor } from '../../test/support/http.js';
import { createClient, downloadExport, isApiError, type TapelineApiError } from './src/index.js';

let demo: Demo;
beforeAll(async () => {
  demo = await startDemo();
}, 200_000);
afterAll(async () => {
  await demo?.stop();
});

test('typed calls return the envelope data; paginate walks every trade exactly once', async () => {
  const tapeline = createClient({ baseUrl: demo.apiBase, apiKey: demo.tier2Key });
  const market = await tapeline.getMarket({ id: demo.market.slug });
  expect(market.id).toBe(demo.market.id);
  expect(market.snapshot.trades_total).toBeGreaterThan(0);

  // Pages of 50: the demo's busiest market has 1,000-3,000 trades, and each page waits behind the
  // pipeline's statements on the one embedded engine (50-200 ms a page on a loaded machine), so pages
  // of 7 took 200-400 requests and up to 60 s. Several pages still prove the cursor walk.
  const limit = 50;
  const seen = new Set<string>();
  let count = 0;
  for await (const trade of tapeline.paginate('listMarketTrades', { id: demo.market.id, limit })) {
    seen.add(trade.trade_id);
    count++;
    expect(trade.market_id).toBe(demo.market.id);
  }
  expect(count).toBe(seen.size);
  expect(count).toBeGreaterThanOrEqual(Math.min(market.snapshot.trades_total, 2 * limit + 1));
}, 60_000);

test('errors are typed by code: PAYMENT_REQUIRED for a sandbox key on Tier 2, BAD_REQUEST naming the parameter, UNAUTHORIZED', async () => {
  const sandbox = createClient({ baseUrl: demo.apiBase, apiKey: demo.sandboxKey });
  const refused = await sandbox.listTrades({ limit: 5 }).catch((e: unknown) => e);
  expect(isApiError(refused, 'PAYMENT_REQUIRED')).toBe(true);
  expect((refused as TapelineApiError).status).toBe(402);
  const bad = await sandbox.getMarketOhlcv({ id: demo.market.id, interval: '7m' as '5m' }).catch((e: unknown) => e);
  expect(bad).toMatchObject({ status: 400, code: 'BAD_REQUEST', message: expect.stringContaining('interval') });
  const anonymous = createClient({ baseUrl: demo.apiBase, apiKey: `aif_${'0'.repeat(38)}` });
  await expect(anonymous.getHealth()).rejects.toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
}, 60_000);

test("a burst past the key's rate limit: bare fetch sees 429 with Retry-After; the SDK waits it out and every call succeeds", async () => {
  const registered = await createClient({ baseUrl: demo.apiBase }).registerAgent({ name: 'burst' });
  const url = `${demo.apiBase}/markets/${demo.market.id}`;
  const bare = await Promise.all(
    Array.from({ length: 30 }, () => fetch(url, { headers: { authorization: `Bearer ${registered.api_key}` } })),
  );
  const limited = bare.filter((r) => r.status === 429);
  expect(limited.length).toBeGreaterThan(0);
  expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThan(0);

  const other = await createClient({ baseUrl: demo.apiBase }).registerAgent({ name: 'burst-sdk' });
  const waits: number[] = [];
  const tapeline = createClient({
    baseUrl: demo.apiBase,
    apiKey: other.api_key,
    retry: { maxRetries: 8 },
    sleep: (ms) => {
      waits.push(ms);
      return new Promise((resolve) => setTimeout(resolve, ms));
    },
  });
  const results = await Promise.all(Array.from({ length: 30 }, () => tapeline.getMarket({ id: demo.market.id })));
  expect(results.every((m) => m.id === demo.market.id)).toBe(true);
  expect(waits.length).toBeGreaterThan(0);
  expect(waits.every((ms) => ms >= 1000 && ms % 1000 === 0)).toBe(true); // whole Retry-After seconds, not backoff guesses
}, 90_000);

test('an export downloads whole: every file of its manifest, byte for byte, and the one-file call returns the bytes', async () => {
  const tapeline = createClient({ baseUrl: demo.apiBase, apiKey: demo.tier2Key });
  const to = new Date();
  const from = new Date(to.getTime() - 47 * 3600_000); // the demo's history: 48 hours, so two or three UTC days
  // The demo reads a busy market's history in the background, after its live trades (minutes later on a
  // loaded machine): the export waits until the range holds trades of an earlier UTC day too.
  const midnight = new Date(Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), to.getUTCDate()));
  await waitFor(
    async () => {
      const { body } = await getJson(
        `${demo.apiBase}/markets/${demo.market.id}/trades?from=${from.toISOString()}&to=${midnight.toISOString()}&limit=1`,
        demo.tier2Key,
      );
      return body.data?.length > 0 ? true : null;
    },
    120_000,
    "the market's trades of an earlier UTC day",
    1_000,
  );
  let job = await tapeline.createExport({
    dataset: 'trades',
    filters: { market: demo.market.id, from: from.toISOString(), to: to.toISOString() },
  });
  const deadline = Date.now() + 120_000;
  while (job.status === 'queued' || job.status === 'running') {
    if (Date.now() > deadline) throw new Error(`export ${job.id} still ${job.status}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    job = await tapeline.getExport({ id: job.id });
  }
  expect(job.status).toBe('succeeded');
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-sdk-export-e2e-'));
  try {
    const { manifest, files } = await downloadExport(tapeline, job.id, folder);
    expect(manifest.files.length).toBeGreaterThanOrEqual(2);
    expect(files.map((f) => path.relative(folder, f.path))).toEqual(manifest.files.map((f) => f.name));
    for (const [i, entry] of manifest.files.entries()) {
      const bytes = fs.readFileSync(path.join(folder, entry.name));
      expect({ bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }).toEqual({
        bytes: entry.bytes,
        sha256: entry.sha256,
      });
      expect(bytes.subarray(0, 4).toString()).toBe('PAR1');
      expect(files[i]!.sha256).toBe(entry.sha256);
    }
    // The one-file operation: the same bytes, read from its Response.
    const link = new URL(job.files[0]!.url!, demo.apiBase);
    const response = await tapeline.downloadExportFile({
      id: job.id,
      file: link.searchParams.get('file')!,
      expires: Number(link.searchParams.get('expires')),
      signature: link.searchParams.get('signature')!,
    });
    expect(response.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(fs.readFileSync(path.join(folder, job.files[0]!.name)));
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}, 300_000);
