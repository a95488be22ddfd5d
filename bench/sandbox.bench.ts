/**
 * Sandbox benchmark, in one process and run, over the embedded engines (chDB books, PGlite ledger)
 * through the HTTP API (auth, validation, access and metering included):
 *  - paper order fills/s: market buys against a 20-level book, each walking 1-15 levels, placed
 *    through POST /v1/paper/orders; the reference is the bare matching function (matchAgainstBook)
 *    on the same orders and levels, and the result is their ratio;
 *  - briefing latency with 1,000 agents (each holding a paper position, 5,000 signals in the feed):
 *    GET /v1/briefing p50/p99, with GET /v1/agents/me of the same agents as the reference.
 * Writes bench/results/sandbox.json.
 *
 *   npx tsx bench/sandbox.bench.ts     (BENCH_ORDERS=400, BENCH_AGENTS=1000 by default)
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { openChdbStore } from '../services/analytics/clickhouse-store.js';
import { migrate } from '../services/analytics/migrate.js';
import { composeApi } from '../services/api-server.js';
import { loadConfig } from '../services/config.js';
import { migrateControlStore } from '../services/control/migrate.js';
import { openPgliteStore } from '../services/control/pglite-store.js';
import { type Level, matchAgainstBook } from '../services/paper/matching.js';
import { marketRow } from '../services/read-models/markets/rows.js';
import { bookSnapshotRow } from '../services/read-models/order-books/rows.js';
import { MICRO } from '../services/shared/decimal.js';
import { bookSnapshot, marketUpserted } from '../test/support/events.js';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 400);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 1_000);
const SIGNALS = 5_000;
const CONCURRENCY = 8;
const here = path.dirname(fileURLToPath(import.meta.url));
const MARKET = `0x${'ab'.repeat(32)}`;
const YES = '77001';

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;

async function timed(calls: Array<() => Promise<void>>, concurrency: number): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls.length) {
        const call = calls[next++]!;
        const started = performance.now();
        await call();
        latencies.push(performance.now() - started);
      }
    }),
  );
  return latencies.sort((a, b) => a - b);
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-sandbox-'));
  const store = await openChdbStore({ path: path.join(dir, 'chdb'), database: 'bench_sandbox' });
  await migrate(store);
  const control = await openPgliteStore(path.join(dir, 'pglite'));
  await migrateControlStore(control);
  const config = loadConfig({
    PAPER_STARTING_BALANCE_USDC: '1000000000',
    QUOTA_SANDBOX_PER_DAY: '1000000000',
    RATE_SANDBOX_PER_SECOND: '1000000',
    // The meter's periodic flush rewrites every active account's usage; BENCH_METER_FLUSH_MS sets how often.
    METER_FLUSH_INTERVAL_MS: process.env.BENCH_METER_FLUSH_MS ?? '1000',
    LOG_LEVEL: 'silent',
  });

  // One market with a 20-level book each side (asks 0.30..0.49, bids 0.29..0.10, 100 shares a level) and a taker fee.
  const asks = Array.from({ length: 20 }, (_, i) => ({ price: Math.round((0.3 + i * 0.01) * 100) / 100, size: 100 }));
  const bids = Array.from({ length: 20 }, (_, i) => ({ price: Math.round((0.29 - i * 0.01) * 100) / 100, size: 100 }));
  await store.insert('markets', [
    marketRow(
      marketUpserted({
        market_id: MARKET,
        outcome_token_ids: [YES, '77002'],
        tick_size: 0.01,
        fees_enabled: true,
        fee_rate: 0.03,
        fee_exponent: 1,
        fee_taker_only: true,
      }),
    ),
  ]);
  await store.insert('order_books', [
    bookSnapshotRow(bookSnapshot({ market_id: MARKET, asset_id: YES, hash: 'bench', timestamp_ms: Date.now(), asks, bids })),
  ]);

  const api = composeApi({
    config,
    store,
    control,
    logger: pino({ level: 'silent' }),
    health: { version: 'bench', sources: () => [], sinkLag: async () => ({}) },
  });
  await api.start();
  const { accounts, sandbox } = api;
  const listener = api.handler.listener;
  const server = http.createServer(listener);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async (method: string, url: string, key: string, body?: unknown) => {
    const response = await fetch(`${base}/v1${url}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await response.json()) as { success: boolean; data: { fills: unknown[] }; error?: string };
    if (!json.success) throw new Error(`${method} ${url}: ${response.status} ${json.error}`);
    return json.data;
  };

  // --- fills/s: the same orders through the API and through the bare matching function ----------------------
  const sizes = Array.from({ length: ORDERS }, (_, i) => 50 + ((i * 97) % 1_451)); // 50..1500 shares: 1..15 levels
  const levels: Level[] = asks.map((l) => ({ priceMicros: BigInt(Math.round(l.price * 1e6)), sizeMicros: BigInt(l.size) * MICRO }));
  const bareRounds = 200;
  let bareFills = 0;
  const bareStart = performance.now();
  for (let round = 0; round < bareRounds; round++)
    for (const size of sizes) bareFills += matchAgainstBook('buy', BigInt(size) * MICRO, null, levels).fills.length;
  const bareSeconds = (performance.now() - bareStart) / 1000;

  const trader = (await accounts.registerAgent('bench-trader')).api_key;
  let apiFills = 0;
  const orderLatencies = await timed(
    sizes.map((size) => async () => {
      const order = await call('POST', '/paper/orders', trader, {
        market_id: MARKET,
        outcome: 'YES',
        side: 'buy',
        type: 'market',
        size: String(size),
      });
      apiFills += order.fills.length;
    }),
    1,
  );
  const apiSeconds = orderLatencies.reduce((sum, ms) => sum + ms, 0) / 1000;
  const apiFillsPerSecond = apiFills / apiSeconds;
  const bareFillsPerSecond = bareFills / bareSeconds;

  // --- briefing p99 with many agents ---------------------------------------------------------------------------
  const agents: string[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const issued = await accounts.registerAgent(`bench-agent-${i}`);
    agents.push(issued.api_key);
    await sandbox.paper.place(
      issued.account_id,
      { market_id: MARKET, outcome: 'YES', side: 'buy', type: 'market', size: String(10 + (i % 50)) },
      null,
    );
  }
  await control.query(
    `INSERT INTO briefing_signals (signal_id, kind, market_id, category, payload, occurred_at, recorded_at)
     SELECT 'bench:' || g, CASE WHEN g % 3 = 0 THEN 'price_signal' ELSE 'large_trade' END, $1, 'Politics',
            jsonb_build_object('market_title', 'Bench market', 'size_usdc', g), now(), now()
       FROM generate_series(1, $2::int) AS g`,
    [MARKET, SIGNALS],
  );
  const reference = await timed(
    agents.map((key) => () => call('GET', '/agents/me', key).then(() => undefined)),
    CONCURRENCY,
  );
  // Two heartbeats per agent: the first reads the last hour's signals, the second only what is new.
  const briefings = await timed(
    [...agents, ...agents].map((key) => () => call('GET', '/briefing', key).then(() => undefined)),
    CONCURRENCY,
  );

  const result = {
    benchmark: 'sandbox: paper order fills through the API vs the bare matching function; briefing latency with many agents',
    measured_at: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpu_model: os.cpus()[0]?.model.split(' ').slice(0, 2).join(' '),
      memory_gb: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
    },
    book: { levels_per_side: 20, shares_per_level: 100, fee: 'rate 0.03, exponent 1' },
    meter_flush_interval_ms: config.access.meterFlushIntervalMs,
    fills: {
      orders: ORDERS,
      order_sizes_shares: '50..1500 (1..15 levels each)',
      api: {
        fills: apiFills,
        seconds: round(apiSeconds, 3),
        fills_per_second: Math.round(apiFillsPerSecond),
        orders_per_second: round(ORDERS / apiSeconds),
        order_p50_ms: round(percentile(orderLatencies, 50)),
        order_p99_ms: round(percentile(orderLatencies, 99)),
      },
      reference_bare_matching: {
        rounds: bareRounds,
        fills: bareFills,
        seconds: round(bareSeconds, 3),
        fills_per_second: Math.round(bareFillsPerSecond),
      },
      ratio_api_to_bare: Number((apiFillsPerSecond / bareFillsPerSecond).toPrecision(3)),
    },
    briefing: {
      agents: AGENTS,
      signals_in_feed: SIGNALS,
      calls: briefings.length,
      concurrency: CONCURRENCY,
      p50_ms: round(percentile(briefings, 50)),
      p99_ms: round(percentile(briefings, 99)),
      max_ms: round(briefings.at(-1)!),
      reference_agents_me: { calls: reference.length, p50_ms: round(percentile(reference, 50)), p99_ms: round(percentile(reference, 99)) },
      ratio_p99_to_reference: round(percentile(briefings, 99) / percentile(reference, 99), 2),
    },
  };
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  fs.writeFileSync(path.join(here, 'results', 'sandbox.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));

  await new Promise<void>((r) => server.close(() => r()));
  server.closeAllConnections();
  await api.stop();
  await control.close();
  await store.close();
}

await main();
