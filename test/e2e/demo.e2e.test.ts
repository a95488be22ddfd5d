/**
 * The README's demo promise, as a user would check it: `npm run demo` on a fresh data folder serves
 * the ten busiest active markets with candles within a minute and a half, a trade feed that pages to the end
 * without duplicates, both sides of trades from the simulated chain, keys that work and bad keys that
 * get 401 in the envelope. Then every example of the documentation runs against the same demo
 * (test/support/doc-examples.ts), so none can drift from the service.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allExamples, type ExampleContext, isRunnable, runExample } from '../support/doc-examples.js';
import { getJson, postJson, waitFor, walkPages } from '../support/http.js';
import { freePort, REPO_ROOT, runAdminCli, startChild, type Child } from '../support/processes.js';

let demo: Child | undefined;
/** What the first test learnt about the demo, for the examples. */
let examples: Omit<ExampleContext, 'venv'> | undefined;
// Longer than the stop deadline of processes.ts, so a demo slow to stop fails naming what it waited for.
afterAll(async () => {
  await demo?.kill('SIGTERM');
}, 90_000);

test('npm run demo: markets, candles, trades and keys within a minute and a half', async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-e2e-demo-'));
  const started = Date.now();
  demo = startChild('services/demo.ts', { DATA_DIR: dataDir, PORT: String(port) });
  await demo.waitForLog((l) => l.msg === 'tapeline is serving', 60_000);

  const registration = await postJson(`${base}/v1/agents/register`, { name: 'demo-check' });
  expect(registration.status).toBe(201);
  const key = registration.body.data.api_key as string;
  expect((await getJson(`${base}/v1/markets?limit=1`, key)).status).toBe(200);
  // The probes below send up to eleven requests a second, over a sandbox key's rate.
  const tier2Key = (await runAdminCli(dataDir, ['keys', 'create', '--tier', '2'])).api_key as string;

  // The busiest ten as the listing stands once every one of them has candles. While the sink is still
  // applying the first catalog sync (behind the first trade and chain batches, round-robin), the
  // listing holds part of the markets, so its first ten can be quiet ones whose few trades predate the
  // trade feed's window and get candles only when the backfill or the chain history reaches them.
  const candlesOf = new Map<string, any[]>();
  const markets = await waitFor(
    async () => {
      const { body } = await getJson(`${base}/v1/markets?status=active&sort=volume&limit=10`, tier2Key);
      if (body.data.length < 10) return null;
      for (const { slug } of body.data) {
        if (candlesOf.has(slug)) continue;
        const candles = (await getJson(`${base}/v1/markets/${slug}/ohlcv?interval=1h&limit=168`, tier2Key)).body.data;
        if (candles.length === 0) throw new Error(`no candles of ${slug} yet`);
        candlesOf.set(slug, candles);
      }
      return body.data;
    },
    90_000 - (Date.now() - started),
    'the ten busiest active markets, each with candles',
    1_000,
  );
  const volumes = markets.map((m: any) => m.volume_24h_usdc);
  expect([...volumes].sort((a, b) => b - a)).toEqual(volumes);
  expect(markets.every((m: any) => m.source === 'simulator' && m.status === 'active')).toBe(true);
  for (const { slug } of markets) {
    expect(candlesOf.get(slug)!.every((c: any) => c.low <= c.open && c.open <= c.high && c.low <= c.close && c.close <= c.high)).toBe(true);
  }

  // The trade feed is Tier 2: a sandbox key is told so (402), a Tier 2 key from the admin CLI reads it.
  expect((await getJson(`${base}/v1/trades?limit=500`, key)).status).toBe(402);
  const { items, lastPage } = await walkPages(`${base}/v1/trades?limit=500`, tier2Key);
  expect(items.length).toBeGreaterThan(1000);
  expect(new Set(items.map((t: any) => t.trade_id)).size).toBe(items.length);
  expect(lastPage.pagination).toMatchObject({ has_more: false, next_cursor: null });

  // The demo reads the simulated chain too: both sides of every match, labelled simulator.
  const health = await waitFor(
    async () => {
      const { body } = await getJson(`${base}/v1/health`, tier2Key);
      return body.data.trade_coverage === 'both_sides' && body.data.chain.lag_blocks === 0 ? body.data : null;
    },
    120_000,
    'the chain source at the head',
  );
  expect(health.chain).toMatchObject({ enabled: true, chain_id: 137, pending_events: 0 });
  const makers = (await getJson(`${base}/v1/trades?role=maker&limit=50`, tier2Key)).body.data;
  expect(makers.length).toBeGreaterThan(0);
  expect(makers.every((t: any) => t.origin === 'chain' && t.role === 'maker' && t.source === 'simulator' && t.block_number > 0)).toBe(true);

  const bad = await getJson(`${base}/v1/markets`, `aif_${'x'.repeat(38)}`);
  expect(bad.status).toBe(401);
  expect(bad.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' });

  examples = { origin: base, dataDir, key: tier2Key, marketSlug: markets[0].slug, wallet: makers[0].wallet };
}, 300_000);

test('every example of README.md, docs/ and clients/*/README.md runs as written against the demo', async () => {
  if (!examples) throw new Error('the demo test above did not get as far as the examples');
  // The Python clients' environment (made once, then reused by the python and executor tiers).
  const venv = await new Promise<string>((resolve, reject) =>
    execFile('bash', ['clients/python/venv.sh'], { cwd: REPO_ROOT }, (error, stdout, stderr) =>
      error ? reject(new Error(`clients/python/venv.sh: ${stderr}`)) : resolve(stdout.trim()),
    ),
  );
  const runnable = allExamples().filter(isRunnable);
  expect(runnable.length).toBeGreaterThan(20);
  const failures: string[] = [];
  const started = Date.now();
  for (const example of runnable) {
    const result = await runExample(example, { ...examples, venv });
    if (!result.ok)
      failures.push(`${example.file}:${example.line} (\`\`\`${example.info}) failed after ${result.ms} ms:\n${result.output}`);
  }
  console.log(`${runnable.length} documentation examples ran in ${Date.now() - started} ms`);
  expect(failures).toEqual([]);
}, 600_000);
