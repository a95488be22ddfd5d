/**
 * Soak benchmark on real engines: the whole service (`services/main.ts`) over Kafka + the schema
 * registry + PostgreSQL (infra/, started here in a private folder) + ClickHouse over HTTP (the
 * test-only chDB-backed harness, a separate process), ingesting from the upstream simulator, under
 * mixed API traffic for SOAK_MINUTES (default 10), with one PostgreSQL restart and one ClickHouse
 * outage in the middle. Every 5 s it samples the service's RSS and the window's request latency;
 * at the end it checks that every upstream trade is stored once (none lost, none doubled in the
 * aggregating views) and that the process never exited. Writes bench/results/soak.json and plots
 * RSS and p99 over time to bench/results/soak.png (bench/plot/plot.sh: matplotlib in a repo-local venv).
 *
 *   npm run bench:soak                 (SOAK_MINUTES=10, SOAK_RATE=20 requests/s)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startClickHouseHttpHarness, type ClickHouseHttpHarness } from '../test/support/clickhouse-http-harness.js';
import { freePort, startChild, type Child } from '../test/support/processes.js';
import { upstreamTradeIds } from '../test/support/upstream-truth.js';
import { openHttpStore } from '../services/analytics/clickhouse-store.js';
import { openPgStore } from '../services/control/pg-store.js';
import { AdminOperations } from '../services/admin/operations.js';
import { Accounts } from '../services/control/accounts.js';
import { loadConfig } from '../services/config.js';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const RATE = Number(process.env.SOAK_RATE ?? 20);
const WINDOW_MS = 5_000;
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..');
const say = (text: string) => process.stderr.write(`[soak +${Math.round((Date.now() - started) / 1000)} s] ${text}\n`);
const started = Date.now();

interface Window {
  t_s: number;
  rss_mb: number;
  requests: number;
  p50_ms: number;
  p99_ms: number;
  statuses: Record<string, number>;
  event: string | null;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

function rssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

async function main() {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-soak-'));
  // PostgreSQL runs as its own user (infra/postgres.sh), which must be able to reach its folder inside.
  fs.chmodSync(workDir, 0o711);
  const infraEnv = { ...process.env, TAPELINE_INFRA_DIR: path.join(workDir, 'infra') };
  const infra = (script: string, command: string) =>
    execFileSync('bash', [path.join(repoRoot, 'infra', script), command], {
      env: infraEnv,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
  const children: Child[] = [];
  let harness: ClickHouseHttpHarness | null = null;
  try {
    say('starting PostgreSQL, Kafka and the schema registry');
    for (const script of ['postgres.sh', 'kafka.sh', 'registry.sh']) infra(script, 'up');
    const clickhouseDir = path.join(workDir, 'clickhouse');
    const clickhousePort = await freePort();
    harness = await startClickHouseHttpHarness(clickhouseDir, clickhousePort);
    const simulator = startChild('simulator/main.ts', {
      SIM_PORT: '0',
      SIM_SEED: '77',
      SIM_MARKET_COUNT: '40',
      SIM_HISTORIC_TRADES: '3000',
      SIM_TRADES_PER_SECOND: '3',
    });
    children.push(simulator);
    const simulatorBase = String((await simulator.waitForLog((l) => typeof l.baseUrl === 'string', 30_000)).baseUrl);
    const port = await freePort();
    const env = {
      KAFKA_BROKERS: infra('kafka.sh', 'url'),
      SCHEMA_REGISTRY_URL: infra('registry.sh', 'url'),
      DATABASE_URL: infra('postgres.sh', 'url'),
      CLICKHOUSE_URL: harness.url,
      CLICKHOUSE_DATABASE: 'soak',
      DATA_DIR: path.join(workDir, 'data'),
      PORT: String(port),
      ADMIN_PORT: '0',
      LOG_LEVEL: 'info',
      POLYMARKET_GAMMA_URL: `${simulatorBase}/gamma`,
      POLYMARKET_CLOB_URL: `${simulatorBase}/clob`,
      POLYMARKET_DATA_URL: `${simulatorBase}/data`,
      POLYMARKET_WS_URL: `${simulatorBase.replace(/^http/, 'ws')}/ws/market`,
      TRADES_POLL_INTERVAL_MS: '1000',
      MARKETS_POLL_INTERVAL_MS: '5000',
      TRADES_BACKFILL_MARKETS: '0',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      RATE_TIER2_PER_SECOND: '1000',
    };
    say('starting the service on real engines');
    const service = startChild('services/main.ts', env);
    children.push(service);
    await service.waitForLog((l) => l.msg === 'tapeline is serving', 120_000);
    const pid = service.process.pid!;
    const base = `http://127.0.0.1:${port}`;

    const config = loadConfig({ DATABASE_URL: env.DATABASE_URL });
    const control = await openPgStore({ connectionString: env.DATABASE_URL, maxConnections: 2 });
    const keys = await Promise.all(
      Array.from(
        { length: 4 },
        async (_, i) => (await new AdminOperations(new Accounts(control), config.access.thresholds).createKey(`soak-${i}`, '2')).api_key,
      ),
    );
    await control.close();
    const markets = await waitForMarkets(base, keys[0]!);

    const urls = [
      '/v1/markets?status=active&sort=volume&limit=20',
      `/v1/markets/${markets[0]!.slug}`,
      `/v1/markets/${markets[1]!.id}/ohlcv?interval=5m&limit=100`,
      `/v1/markets/${markets[0]!.id}/orderbook`,
      '/v1/trades?limit=50',
      `/v1/markets/${markets[2]!.id}/trades?limit=50`,
      `/v1/markets/${markets[0]!.id}/price/ticks?limit=50`,
      '/v1/leaderboard?limit=20',
      '/v1/usage',
      '/v1/health',
    ];
    const windows: Window[] = [];
    let current = { latencies: [] as number[], statuses: {} as Record<string, number>, event: null as string | null };
    const durationMs = MINUTES * 60_000;
    const runStart = Date.now();
    const sampler = setInterval(() => {
      windows.push({
        t_s: Math.round((Date.now() - runStart) / 1000),
        rss_mb: Math.round(rssMb(pid)),
        requests: current.latencies.length,
        p50_ms: Math.round(percentile(current.latencies, 50) * 10) / 10,
        p99_ms: Math.round(percentile(current.latencies, 99) * 10) / 10,
        statuses: current.statuses,
        event: current.event,
      });
      current = { latencies: [], statuses: {}, event: null };
    }, WINDOW_MS);

    // Faults: PostgreSQL restarted at 35 %, ClickHouse down for 30 s at 60 % of the run.
    const faults = (async () => {
      await sleepUntil(runStart + durationMs * 0.35);
      say('fault: restarting PostgreSQL');
      current.event = 'PostgreSQL restart';
      infra('postgres.sh', 'down');
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      infra('postgres.sh', 'up');
      await sleepUntil(runStart + durationMs * 0.6);
      say('fault: ClickHouse down for 30 s');
      current.event = 'ClickHouse down';
      await harness!.stop();
      await new Promise((resolve) => setTimeout(resolve, 30_000));
      harness = await startClickHouseHttpHarness(clickhouseDir, clickhousePort);
      current.event = 'ClickHouse back';
      say('ClickHouse back');
    })();

    let sent = 0;
    while (Date.now() - runStart < durationMs) {
      const url = urls[sent % urls.length]!;
      const key = keys[sent % keys.length]!;
      sent++;
      const t0 = performance.now();
      void fetch(`${base}${url}`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(30_000) })
        .then(async (response) => {
          await response.arrayBuffer();
          return String(response.status);
        })
        .catch(() => 'error')
        .then((status) => {
          current.latencies.push(performance.now() - t0);
          current.statuses[status] = (current.statuses[status] ?? 0) + 1;
        });
      await sleepUntil(runStart + (sent * 1000) / RATE);
      if (sent % (RATE * 60) === 0) say(`${Math.round((Date.now() - runStart) / 60_000)} min, RSS ${Math.round(rssMb(pid))} MB`);
    }
    await faults;
    clearInterval(sampler);
    const alive = service.process.exitCode === null && service.process.signalCode === null;

    say('run over; waiting for every upstream trade to be stored');
    const truth = await upstreamTradeIds(simulatorBase);
    const store = await openHttpStore({ url: harness.url, database: 'soak' });
    let stored = new Set<string>();
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline) {
      stored = new Set((await store.query<{ trade_id: string }>('SELECT DISTINCT trade_id FROM trades')).map((r) => r.trade_id));
      if ([...truth].every((id) => stored.has(id))) break;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    const [counts] = await store.query<{ rows: number; distinct: number; candle_trades: number }>(
      `SELECT (SELECT count() FROM trades FINAL) AS rows, (SELECT uniqExact(trade_id) FROM trades) AS distinct,
              (SELECT sum(trade_count) FROM candles_5m) AS candle_trades`,
    );
    await store.close();
    const lost = [...truth].filter((id) => !stored.has(id)).length;
    const distinct = Number(counts!.distinct);
    const all = windows.flatMap((w) => Object.entries(w.statuses));
    const total = (predicate: (status: string) => boolean) => all.filter(([s]) => predicate(s)).reduce((n, [, c]) => n + c, 0);
    const result = {
      benchmark: 'soak',
      minutes: MINUTES,
      requests_per_second: RATE,
      engines: 'Kafka + Apicurio registry + PostgreSQL (infra/), ClickHouse over HTTP (chDB-backed harness)',
      faults: ['PostgreSQL restart (10 s down) at 35 %', 'ClickHouse outage (30 s) at 60 %'],
      service_alive_at_end: alive,
      requests: total(() => true),
      status_counts: Object.fromEntries([...new Set(all.map(([s]) => s))].sort().map((s) => [s, total((x) => x === s)])),
      p50_ms_overall: percentile(
        windows.flatMap((w) => Array(w.requests).fill(w.p50_ms)),
        50,
      ),
      p99_ms_windows: {
        median: percentile(
          windows.map((w) => w.p99_ms),
          50,
        ),
        max: Math.max(...windows.map((w) => w.p99_ms)),
      },
      rss_mb: {
        min: Math.min(...windows.map((w) => w.rss_mb)),
        max: Math.max(...windows.map((w) => w.rss_mb)),
        last: windows.at(-1)?.rss_mb,
      },
      trades: {
        upstream: truth.size,
        stored_distinct: distinct,
        lost,
        rows_final: Number(counts!.rows),
        candle_trade_count: Number(counts!.candle_trades),
        doubled_in_candles: Number(counts!.candle_trades) - distinct,
      },
      windows,
    };
    fs.mkdirSync(path.join(here, 'results'), { recursive: true });
    const jsonPath = path.join(here, 'results', 'soak.json');
    fs.writeFileSync(jsonPath, `${JSON.stringify(result, null, 2)}\n`);
    execFileSync('bash', [path.join(here, 'plot', 'plot.sh'), jsonPath, path.join(here, 'results', 'soak.png')], { stdio: 'inherit' });
    const { windows: _windows, ...summary } = result;
    console.log(JSON.stringify(summary, null, 2));
    if (!alive || lost > 0 || result.trades.doubled_in_candles !== 0) process.exitCode = 1;
  } finally {
    for (const child of children.reverse()) await child.kill('SIGTERM');
    await harness?.stop();
    for (const script of ['registry.sh', 'kafka.sh', 'postgres.sh']) {
      try {
        infra(script, 'down');
      } catch {
        // Already down.
      }
    }
  }
}

async function waitForMarkets(base: string, key: string): Promise<Array<{ id: string; slug: string }>> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const response = await fetch(`${base}/v1/markets?status=active&sort=volume&limit=10`, { headers: { authorization: `Bearer ${key}` } });
    if (response.ok) {
      const data = ((await response.json()) as { data: Array<{ id: string; slug: string }> }).data;
      if (data.length >= 3) return data;
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  throw new Error('no markets indexed within 2 minutes');
}

function sleepUntil(at: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
