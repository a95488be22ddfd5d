/**
 * Scale: the hot read queries at 1M and 10M stored trades (BENCH_SCALES), through the full API with
 * the read cache off, so every request runs its query. Latency should stay flat: reads are served by
 * materialized views, the primary key and keyset pagination, never by per-request scans.
 * Two parts (BENCH_PARTS, default both):
 * - reads: Data API trades seeded at each scale; market, trade feed and candle endpoints;
 * - ledger: chain fills of 100,000 wallets generated in ClickHouse, applied by the position ledger
 *   (throughput vs a plain insert of the same fills, each timed after the merges left before it have
 *   finished; with the ledger's state lookups and their time), ingest-to-leaderboard freshness through the
 *   event log and the sink, and the trader endpoints, timed once the valuation pass has valued every
 *   wallet and the bulk load's background merges have finished (no merge for 5 s: merges_settled_ms,
 *   at most 3 minutes; bench/ledger-scale.ts), with a history of BENCH_BOOK_SNAPSHOTS order book
 *   snapshots per token (default 1,000 over 29 days: positions are marked with each token's newest
 *   book, which must not cost a read of the others). The per-wallet endpoints are timed for the busiest
 *   wallet (`_busiest`, the same wallet every round) and for a sample of the others (`_sampled`, a
 *   different wallet each round).
 * A part's endpoints are timed in turn (one request each per round, in an order drawn anew each round),
 * so drift during a run falls on all of them alike. The requests come from a client process of their
 * own (bench/request-client.ts), so the client's garbage does not pause the process under test. Each
 * figure also gives the engine's time in its p50 and p99 requests (the API's statements, timed by
 * bench/statement-trace.ts), the statements per request, the process's GC pauses inside those
 * requests, and whether background merges ran during the p99 one (`<part>_rounds_merging` counts the
 * rounds that had any): to tell which of these a tail comes from.
 * Writes bench/results/scale.json with p50/p99 per endpoint and scale, and the ratio 10M/1M.
 *
 *   npm run bench:scale          (BENCH_SCALES=1000000,10000000 BENCH_REQUESTS=500 BENCH_PARTS=reads,ledger)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { openChdbStore } from '../services/analytics/clickhouse-store.js';
import { migrate } from '../services/analytics/migrate.js';
import { openFileEventLog } from '../services/eventlog/file-log.js';
import { allTopicSpecs, topicSchemas } from '../services/read-models/registry.js';
import { snapshotsOf } from '../services/read-models/positions/wallet-snapshots.js';
import {
  BUSIEST,
  activeParts,
  backgroundWork,
  generateFills,
  boardPagesBuild,
  leaderboardFreshness,
  ledgerThroughput,
  mergesSettled,
  publishTakerFills,
  sampleWallets,
  seedBookHistory,
  tableSize,
  valuationRate,
  valueEveryWallet,
  windowServed,
  windowSumming,
} from './ledger-scale.js';
import { startBenchApi } from './bench-api-server.js';
import { startRequestClient } from './request-client.js';
import { engineShare, type Interval, overlapWith, traceStatements } from './statement-trace.js';
import { seedMarkets, seedNegRiskMarkets, seedTrades } from './seed.js';
import { createRng } from '../simulator/prng.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SCALES = (process.env.BENCH_SCALES ?? '1000000,10000000').split(',').map(Number);
// 500 requests per figure, so p99 is the 6th slowest. With 200 it was the 2nd slowest, and two pauses
// of the process (a mark-compact every few hundred requests) decided it; with 40 it was the slowest.
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 500);
const PARTS = (process.env.BENCH_PARTS ?? 'reads,ledger').split(',');
const PROBES = Number(process.env.BENCH_PROBES ?? 20);
const BOOK_SNAPSHOTS = Number(process.env.BENCH_BOOK_SNAPSHOTS ?? 1_000);

/**
 * `items` in an order drawn for `round` (a seeded stream of simulator/prng.ts, so every run
 * draws the same orders). In a fixed order the process's mark-compacts fell on one figure: marking
 * that the allocations of the busiest wallet's reads started finished during the request after them,
 * the next in turn (10 of 11 mark-compacts of a 500-round run on the 1M profiling store, in the
 * sampled wallets' /traders). Drawn anew each round,
 * every endpoint follows every other alike.
 */
function shuffled<T>(items: readonly T[], round: number): T[] {
  const rng = createRng(0, 'bench-scale-order', round);
  const order = [...items];
  for (let k = order.length - 1; k > 0; k--) {
    const j = rng.int(0, k);
    [order[k], order[j]] = [order[j]!, order[k]!];
  }
  return order;
}

/**
 * The MergeTree tables a per-wallet read opens: the stored curves (stored-curve.ts); its rows come
 * from wallet_snapshots (wallet-snapshots.ts) and its marks from market_marks (market-data.ts),
 * key-value tables without parts. The others are what a wallet without a snapshot yet, and the
 * valuation pass, read (queries.ts); the snapshots are rebuilt from position_state and trader_days.
 */
const WALLET_READ_TABLES = ['trader_curve', 'ledger_progress', 'position_state', 'trader_days'];

function percentile(sorted: number[], p: number): number {
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 100) / 100;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-scale-'));
  // The data set is gigabytes at 10M: never leave it behind, even when the run fails, unless
  // BENCH_KEEP=1 asks to keep it for looking inside (as the store stands after the last scale).
  const keep = process.env.BENCH_KEEP === '1';
  if (keep) console.log(JSON.stringify({ kept: path.join(dir, 'chdb'), database: 'bench_scale' }));
  const remove = () => {
    if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', remove);
  // A run of one part keeps the other part's figures from the previous results file (each part says when it was measured).
  // BENCH_RESULTS_NAME: a run at other sizes or with another mix than the recorded one writes a file of its own.
  const resultsFile = path.join(here, 'results', process.env.BENCH_RESULTS_NAME ?? 'scale.json');
  const previousRun = fs.existsSync(resultsFile)
    ? (JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as {
        scales?: Record<string, Record<string, unknown>>;
        measured?: Record<string, string>;
        parts?: string[];
        measured_at?: string;
        requests_per_endpoint?: number | Record<string, number>;
      })
    : {};
  const results: Record<string, Record<string, unknown>> = PARTS.length < 2 ? (previousRun.scales ?? {}) : {};
  const measured: Record<string, string> =
    PARTS.length < 2
      ? { ...(previousRun.measured ?? Object.fromEntries((previousRun.parts ?? []).map((part) => [part, previousRun.measured_at ?? '']))) }
      : {};
  for (const part of PARTS) measured[part] = new Date().toISOString();
  // Requests timed per figure, per part: a part kept from the previous run keeps its count.
  const before = previousRun.requests_per_endpoint;
  const requests: Record<string, number> = Object.fromEntries(
    Object.keys(measured).map((part) => [
      part,
      PARTS.includes(part) ? REQUESTS : typeof before === 'number' ? before : (before?.[part] ?? REQUESTS),
    ]),
  );
  const now = Date.now();
  let previous = 0;
  const store = await openChdbStore({ path: path.join(dir, 'chdb'), database: 'bench_scale' });
  await migrate(store);
  await seedMarkets(store, now);
  // The API's statements are timed (the pipeline's are not: it uses `store` itself).
  const trace = traceStatements(store);
  const api = await startBenchApi(trace.store, dir, { readCache: false });
  const { base, key } = api;
  // The requests are sent from a process of their own (bench/request-client.ts): a client's buffers
  // are not the server's garbage.
  const client = await startRequestClient(key);
  const route = (url: string | ((round: number) => string), round: number) => (typeof url === 'string' ? url : url(round));

  const log = await openFileEventLog({ directory: path.join(dir, 'log'), schemas: topicSchemas(), fsync: false, pollIntervalMs: 20 });
  await log.createTopics(allTopicSpecs());
  // The endpoints of a part take turns, one request each per round: whatever else slows the machine
  // during a run (it has varied by 20-40 % between runs) falls on every figure alike, so figures of
  // one run compare with each other (a block per endpoint put a slow minute on one figure only).
  // An endpoint is a URL, or a URL per round (a sampled figure: another wallet each round).
  const timedInTurn = async (part: string, endpoints: Record<string, string | ((round: number) => string)>, scale: number) => {
    const requests: Record<string, Array<Interval & { merging: boolean }>> = Object.fromEntries(
      Object.keys(endpoints).map((name) => [name, []]),
    );
    trace.clear();
    // The process's garbage-collection pauses during the timing: a pause inside a request delays it
    // whether or not a statement is running (a statement's result waits for the pause to end).
    const pauses: Interval[] = [];
    const record = (entries: PerformanceEntry[]) => {
      for (const entry of entries) pauses.push({ start: entry.startTime, end: entry.startTime + entry.duration });
    };
    const gc = new PerformanceObserver((list) => record(list.getEntries()));
    gc.observe({ entryTypes: ['gc'] });
    let roundsMerging = 0;
    for (let i = 0; i < REQUESTS + 3; i++) {
      // Whether the engine is merging parts in the background during this round (read before it, by
      // the untraced store): on 2 cores a merge competes with the requests for CPU.
      const merging = (await backgroundWork(store)).merges > 0;
      if (i >= 3 && merging) roundsMerging++;
      const names = shuffled(Object.keys(endpoints), i);
      const timed = await client.run(names.map((name) => `${base}${route(endpoints[name]!, i)}`));
      timed.forEach(({ start, end, status }, n) => {
        if (status !== 200) throw new Error(`${names[n]} at ${scale}: HTTP ${status}`);
        if (i >= 3) requests[names[n]!]!.push({ start, end, merging });
      });
    }
    record(gc.takeRecords());
    gc.disconnect();
    // The request at p50 and the one at p99, each split into the engine's time and the rest: a p99
    // far above the p50 with the same engine time is the process's (GC, event loop), not the query's.
    const at = <T extends Interval>(sorted: T[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
    const round = (ms: number) => Math.round(ms * 100) / 100;
    const figures = Object.fromEntries(
      Object.entries(requests).map(([name, list]) => {
        const sorted = [...list].sort((a, b) => a.end - a.start - (b.end - b.start));
        const [median, tail] = [at(sorted, 50), at(sorted, 99)];
        const [medianEngine, tailEngine] = [engineShare(trace.intervals, median), engineShare(trace.intervals, tail)];
        return [
          name,
          {
            p50_ms: round(median.end - median.start),
            p99_ms: round(tail.end - tail.start),
            p50_engine_ms: medianEngine.engine_ms,
            p99_engine_ms: tailEngine.engine_ms,
            statements: medianEngine.statements,
            p99_merging: tail.merging,
            p50_gc_ms: overlapWith(pauses, median).ms,
            p99_gc_ms: overlapWith(pauses, tail).ms,
          },
        ];
      }),
    );
    return { ...figures, [`${part}_rounds_merging`]: roundsMerging };
  };

  for (const scale of SCALES) {
    const row: Record<string, unknown> = { ...results[String(scale)] };
    if (PARTS.includes('reads')) {
      // Grow the same table to the next scale, so the smaller data set is a prefix of the larger.
      const insertStarted = performance.now();
      await seedTrades(store, scale - previous, now, scale);
      row.insert_seconds = Math.round((performance.now() - insertStarted) / 1000);
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
      };
      Object.assign(row, await timedInTurn('reads', endpoints, scale));
    }
    if (PARTS.includes('ledger')) {
      if (previous === 0) {
        row.order_book_snapshots = { per_token: BOOK_SNAPSHOTS, rows_added: await seedBookHistory(store, BOOK_SNAPSHOTS) };
        // The catalog's neg-risk questions the mix's conversions are on (ledger-scale.ts CONVERSION_EVERY_BLOCKS).
        await seedNegRiskMarkets(store, now);
      }
      const generateStarted = performance.now();
      await generateFills(store, previous, scale - previous, SCALES.at(-1)!, now);
      row.ledger_fills_generated_seconds = Math.round((performance.now() - generateStarted) / 1000);
      const publishStarted = performance.now();
      await publishTakerFills(store, previous, scale - previous);
      row.taker_fills_published_seconds = Math.round((performance.now() - publishStarted) / 1000);
      const throughput = await ledgerThroughput(store, previous, scale - previous);
      row.ledger_throughput = {
        fills: scale - previous,
        plain_insert_seconds: Math.round(throughput.plain_seconds * 10) / 10,
        ledger_seconds: Math.round(throughput.ledger_seconds * 10) / 10,
        ledger_fills_per_second: Math.round((scale - previous) / throughput.ledger_seconds),
        ratio_to_plain_insert: Math.round(throughput.ratio * 100) / 100,
        merges_settled_ms: throughput.merges_settled_ms,
        // Events of the mix that were transfers (bench/ledger-scale.ts TRANSFER_EVERY_BLOCKS), and how many had an uncovered sender.
        transfers: throughput.transfers,
        transfers_uncovered: throughput.transfers_uncovered,
        // Events of the mix that were neg-risk conversions (ledger-scale.ts CONVERSION_EVERY_BLOCKS), how many the ledger
        // wrote rows of, and how many of those gave up more NO than the wallet held.
        conversions: throughput.conversions,
        conversions_applied: throughput.conversions_applied,
        conversions_uncovered: throughput.conversions_uncovered,
        load_average: throughput.load_average,
        state: { ...throughput.state, lookup_seconds: Math.round(throughput.state.lookup_seconds * 10) / 10 },
      };
      const [counts] = await store.query<{ wallets: string; busiest: string }>(
        `SELECT toString(uniqExact(wallet)) AS wallets, toString(countIf(wallet = '${BUSIEST}')) AS busiest FROM bench_fills`,
      );
      row.wallets = Number(counts!.wallets);
      row.busiest_wallet_fills = Number(counts!.busiest);
      row.valuation_wallets_per_second = Math.round(await valuationRate(store, 2_000));
      row.window_summing_ms = Math.round(await windowSumming(store));
      const fresh = (await leaderboardFreshness(store, log, base, key, PROBES)).sort((a, b) => a - b);
      row.ingest_to_leaderboard_ms = { probes: fresh.length, p50_ms: percentile(fresh, 50), p99_ms: percentile(fresh, 99) };
      // The state a running service is in after the load: its valuation pass has valued every wallet
      // the load touched, so each has a stored curve (ledger-scale.ts valueEveryWallet).
      row.valuation_every_wallet = await valueEveryWallet(store);
      // The boards are served from pages built after the valuation, as the service's job builds them
      // (the latency below reads them; board-pages.ts).
      row.leaderboard_pages_build = await boardPagesBuild(store);
      // Each wallet's snapshot, as the service's refresher keeps them (wallet-snapshots.ts): at the
      // first scale every wallet (no stored start), then the wallets the load touched.
      const snapshots = await snapshotsOf(store).refresh();
      row.wallet_snapshots_refresh = { wallets: snapshots.keys, seconds: Math.round(snapshots.seconds * 10) / 10 };
      const sample = await sampleWallets(store, REQUESTS + 3);
      row.sampled_wallets = { wallets: sample.wallets.length, median_fills: sample.medianFills };
      const sampled = (route: (wallet: string) => string) => (round: number) => route(sample.wallets[round % sample.wallets.length]!);
      const ledgerEndpoints: Record<string, string | ((round: number) => string)> = {
        leaderboard: '/v1/leaderboard?limit=50',
        leaderboard_30d: '/v1/leaderboard?window=30d&limit=50',
        leaderboard_total_pnl: '/v1/leaderboard?sort_by=total_pnl&limit=50',
        trader_stats_busiest: `/v1/traders/${BUSIEST}`,
        trader_pnl_busiest: `/v1/traders/${BUSIEST}/pnl?days=30`,
        positions_busiest: `/v1/positions/${BUSIEST}?limit=500`,
        trader_stats_sampled: sampled((wallet) => `/v1/traders/${wallet}`),
        trader_pnl_sampled: sampled((wallet) => `/v1/traders/${wallet}/pnl?days=30`),
        positions_sampled: sampled((wallet) => `/v1/positions/${wallet}?limit=500`),
      };
      row.merges_settled_ms = await mergesSettled(store);
      // Every per-wallet read opens each part of every table it reads: the figures depend on how many
      // the engine's merges have left (docs/POSITIONS.md at 2ee4e77, "What a wallet read costs"). With the
      // process's heap (the API shares it with the pipeline that applied the load).
      const walletReadParts: Record<string, number> = {};
      for (const table of WALLET_READ_TABLES) walletReadParts[table] = await activeParts(store, table);
      // Kept under its own name too: earlier results files record only this one.
      row.position_state_parts = walletReadParts.position_state;
      row.wallet_read_parts = walletReadParts;
      row.heap_used_mb = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
      // The boards rank every wallet of trader_valuation with FINAL: its rows (replaced ones included)
      // and parts move their figures (docs/POSITIONS.md, "The valuation pass").
      row.trader_valuation = await tableSize(store, 'trader_valuation');
      // The 30-day board ranks today's rows of trader_recent_days with FINAL while the closed days' sums
      // are served, else it sums the window per request (docs/POSITIONS.md, "The 30-day window").
      row.trader_recent_days = await tableSize(store, 'trader_recent_days');
      row.window_served = await windowServed(store);
      Object.assign(row, await timedInTurn('ledger', ledgerEndpoints, scale));
    }
    previous = scale;
    results[String(scale)] = row;
    console.log(scale, JSON.stringify(row));
  }

  const [small, large] = SCALES.map(String);
  const flatness: Record<string, number> = {};
  if (small && large && results[small] && results[large]) {
    for (const name of Object.keys(results[large]!)) {
      const a = results[small]![name] as { p50_ms?: number; p99_ms?: number } | undefined;
      const b = results[large]![name] as { p50_ms?: number; p99_ms?: number } | undefined;
      if (a?.p50_ms && b?.p50_ms) flatness[name] = Math.round((b.p50_ms / a.p50_ms) * 100) / 100;
      if (a?.p99_ms && b?.p99_ms) flatness[`${name}_p99`] = Math.round((b.p99_ms / a.p99_ms) * 100) / 100;
    }
  }
  const output = {
    benchmark:
      'read latency at growing trade counts (full API, read cache off, sequential requests) and the position ledger at growing fill counts',
    parts: Object.keys(measured),
    measured_at: new Date().toISOString(),
    measured,
    machine: { cpus: os.cpus().length, node: process.version },
    requests_per_endpoint: requests,
    scales: results,
    p50_ratio_largest_to_smallest: flatness,
  };
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  fs.writeFileSync(resultsFile, `${JSON.stringify(output, null, 2)}\n`);
  console.log(JSON.stringify(flatness));
  await client.close();
  await api.close();
  await log.close();
  await store.close();
  remove();
}

await main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
