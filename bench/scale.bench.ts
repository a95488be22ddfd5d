/**
 * Scale: the hot read queries at 1M and 10M stored trades (BENCH_SCALES), through the full API with
 * the read cache off, so every request runs its query. Latency should stay flat: reads are served by
 * materialized views, the primary key and keyset pagination, never by per-request scans.
 * Writes bench/results/scale.json with p50/p99 per endpoint and scale, and the ratio 10M/1M.
 *
 *   npm run bench:scale          (BENCH_SCALES=1000000,10000000 BENCH_REQUESTS=40)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openChdbStore } from '../services/analytics/clickhouse-store.js';
import { migrate } from '../services/analytics/migrate.js';
import { recomputeTraderStats } from '../services/read-models/traders/stats-job.js';
import { startBenchApi } from './bench-api-server.js';
import { seedMarkets, seedTrades } from './seed.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SCALES = (process.env.BENCH_SCALES ?? '1000000,10000000').split(',').map(Number);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 40);

function percentile(sorted: number[], p: number): number {
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 100) / 100;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-scale-'));
  const results: Record<string, Record<string, unknown>> = {};
  const now = Date.now();
  let previous = 0;
  const store = await openChdbStore({ path: path.join(dir, 'chdb'), database: 'bench_scale' });
  await migrate(store);
  await seedMarkets(store, now);
  const api = await startBenchApi(store, dir, { readCache: false });
  const { base, key } = api;

  for (const scale of SCALES) {
    // Grow the same table to the next scale, so the smaller data set is a prefix of the larger.
    const insertStarted = performance.now();
    await seedTrades(store, scale - previous, now, scale);
    const insertSeconds = (performance.now() - insertStarted) / 1000;
    previous = scale;
    const statsStarted = performance.now();
    const stats = await recomputeTraderStats(store, now, 64);
    const statsSeconds = (performance.now() - statsStarted) / 1000;
    const [busiest] = await store.query<{ wallet: string }>('SELECT wallet FROM trades GROUP BY wallet ORDER BY count() DESC LIMIT 1');
    const wallet = busiest!.wallet;
    const market = `0x${'0'.repeat(64)}`;
    const endpoints: Record<string, string> = {
      markets_list: '/v1/markets?status=active&sort=volume&limit=50',
      market_detail: `/v1/markets/${market}`,
      ohlcv_168: `/v1/markets/${market}/ohlcv?interval=1h&limit=168`,
      orderbook: `/v1/markets/${market}/orderbook`,
      trades_page: '/v1/trades?limit=100',
      market_tape: `/v1/markets/${market}/trades?limit=100`,
      wallet_trades: `/v1/trades?wallet=${wallet}&limit=100`,
      leaderboard: '/v1/leaderboard?limit=50',
      trader_stats: `/v1/traders/${wallet}`,
    };
    const row: Record<string, unknown> = {
      insert_seconds: Math.round(insertSeconds),
      trader_stats_job_seconds: Math.round(statsSeconds),
      wallets: stats.wallets,
    };
    for (const [name, url] of Object.entries(endpoints)) {
      const timings: number[] = [];
      for (let i = 0; i < REQUESTS + 3; i++) {
        const started = performance.now();
        const response = await fetch(`${base}${url}`, { headers: { authorization: `Bearer ${key}` } });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`${name} at ${scale}: HTTP ${response.status}`);
        if (i >= 3) timings.push(performance.now() - started);
      }
      timings.sort((a, b) => a - b);
      row[name] = { p50_ms: percentile(timings, 50), p99_ms: percentile(timings, 99) };
    }
    results[String(scale)] = row;
    console.log(scale, JSON.stringify(row));
  }

  const [small, large] = SCALES.map(String);
  const flatness: Record<string, number> = {};
  if (small && large && results[small] && results[large]) {
    for (const name of Object.keys(results[large]!)) {
      const a = results[small]![name] as { p50_ms?: number } | undefined;
      const b = results[large]![name] as { p50_ms?: number } | undefined;
      if (a?.p50_ms && b?.p50_ms) flatness[name] = Math.round((b.p50_ms / a.p50_ms) * 100) / 100;
    }
  }
  const output = {
    benchmark: 'read latency at growing trade counts (full API, read cache off, sequential requests)',
    measured_at: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version },
    requests_per_endpoint: REQUESTS,
    scales: results,
    p50_ratio_largest_to_smallest: flatness,
  };
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  fs.writeFileSync(path.join(here, 'results', 'scale.json'), `${JSON.stringify(output, null, 2)}\n`);
  console.log(JSON.stringify(flatness));
  await api.close();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

await main();
