/**
 * Hot read endpoints under load: req/s and p99 through the full API (auth, access, metering, rate
 * limit, read cache, chDB) as a ratio to a bare node:http server returning the same bytes, measured
 * in the same run with the same load generator (autocannon in a child process, so the server
 * process has one core and the load generator the other). Writes bench/results/api.json.
 *
 *   npm run bench:api        (BENCH_TRADES=200000, BENCH_SECONDS=5, BENCH_CONNECTIONS=10)
 */
import { TraderValuation } from '../services/read-models/trader-stats/valuation.js';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openChdbStore } from '../services/analytics/clickhouse-store.js';
import { migrate } from '../services/analytics/migrate.js';
import { ledgerFromStoredTrades } from './ledger-scale.js';
import { startBenchApi } from './bench-api-server.js';
import { seedMarkets, seedTrades } from './seed.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const TRADES = Number(process.env.BENCH_TRADES ?? 200_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);

interface Load {
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  non_2xx: number;
}

function autocannon(url: string, headers: Record<string, string>): Promise<Load> {
  const args = [path.join(here, '../node_modules/autocannon/autocannon.js'), '-j', '-c', String(CONNECTIONS), '-d', String(SECONDS)];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
      if (error) return reject(error);
      const result = JSON.parse(stdout);
      resolve({
        requests_per_second: Math.round(result.requests.average),
        p50_ms: result.latency.p50,
        p99_ms: result.latency.p99,
        non_2xx: result.non2xx,
      });
    });
  });
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-api-'));
  const now = Date.now();
  const store = await openChdbStore({ path: path.join(dir, 'chdb'), database: 'bench_api' });
  await migrate(store);
  await seedMarkets(store, now);
  await seedTrades(store, TRADES, now, 1);
  await ledgerFromStoredTrades(store);
  await new TraderValuation(store, 1_000_000).run(now);
  const server = await startBenchApi(store, dir, { readCache: true });
  const apiBase = server.base;
  const key = server.key;

  const market = `0x${'0'.repeat(64)}`;
  const endpoints = {
    markets_list: '/v1/markets?status=active&sort=volume&limit=50',
    market_detail: `/v1/markets/${market}`,
    ohlcv_168: `/v1/markets/${market}/ohlcv?interval=1h&limit=168`,
    orderbook: `/v1/markets/${market}/orderbook`,
    leaderboard: '/v1/leaderboard?limit=50',
    trades_page: '/v1/trades?limit=100',
  };
  const auth = { authorization: `Bearer ${key}` };
  const rows: Record<string, unknown> = {};
  for (const [name, url] of Object.entries(endpoints)) {
    const response = await fetch(`${apiBase}${url}`, { headers: auth });
    if (response.status !== 200) throw new Error(`${name}: HTTP ${response.status} ${await response.text()}`);
    const bytes = Buffer.from(await response.arrayBuffer());
    const bare = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': bytes.length });
      res.end(bytes);
    });
    await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
    const bareLoad = await autocannon(`http://127.0.0.1:${(bare.address() as AddressInfo).port}${url}`, auth);
    await new Promise<void>((r) => bare.close(() => r()));
    const apiLoad = await autocannon(`${apiBase}${url}`, auth);
    rows[name] = {
      url,
      response_bytes: bytes.length,
      api: apiLoad,
      bare_node_http: bareLoad,
      throughput_ratio: Math.round((apiLoad.requests_per_second / bareLoad.requests_per_second) * 1000) / 1000,
    };
    console.log(name, JSON.stringify(rows[name]));
  }
  const result = {
    benchmark: 'hot read endpoints: full API vs bare node:http returning the same bytes',
    measured_at: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version },
    stored_trades: TRADES,
    load: { tool: 'autocannon (child process)', connections: CONNECTIONS, seconds_per_run: SECONDS },
    read_cache_ttl_ms: server.readCacheTtlMs,
    endpoints: rows,
  };
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  fs.writeFileSync(path.join(here, 'results', 'api.json'), `${JSON.stringify(result, null, 2)}\n`);
  await server.close();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

await main();
