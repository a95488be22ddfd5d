/**
 * Copy-picks benchmark (writes bench/results/copy-picks.json): one run of the picks job
 * (services/read-models/copy-picks/picks-job.ts: every topic's candidates, each judged per window with
 * a copier simulation against book history, daily closes and the latest books) over a fixed simulated
 * population, against the baseline the same run measures on the same store: a scan of the same
 * candidates' fills over the job's longest window (walletFills, the read each candidate starts with)
 * replayed through the position ledger's weighted-average cost alone (positions/ledger-math.ts). The
 * ratio is the job's cost over reading and replaying what it judges. Warm-up, then the two alternated,
 * median of BENCH_RUNS each.
 *
 * The population (seeded, every event labelled source `simulator`): BENCH_WALLETS wallets trading
 * BENCH_FILLS_PER_WALLET fills each over 88 days in 6 of 48 markets (4 categories, a third resolved),
 * buys then part sales along each market's price path; a book per token and day. It goes through the
 * real sink and position ledger, then the valuation pass, as in the service.
 *
 *   npm run bench:copy-picks     (BENCH_WALLETS=400, BENCH_FILLS_PER_WALLET=60, BENCH_RUNS=5)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { openChdbStore } from '../services/analytics/clickhouse-store.js';
import { migrate } from '../services/analytics/migrate.js';
import { loadConfig } from '../services/config.js';
import { walletFills } from '../services/copy/backtest/market-data.js';
import { traderStatsSource } from '../services/copy/leader-stats.js';
import { openFileEventLog } from '../services/eventlog/file-log.js';
import { EventPublisher } from '../services/events/publisher.js';
import type { BookSnapshot, ChainLedgerEvent, MarketUpserted } from '../services/events/types.js';
import type { AnalyticsStore } from '../services/ports/analytics-store.js';
import { recomputeCopyPicks } from '../services/read-models/copy-picks/picks-job.js';
import { applyLeg, EMPTY_STATE, type PositionState } from '../services/read-models/positions/ledger-math.js';
import { marksOf } from '../services/read-models/marks/market-marks.js';
import { TraderValuation } from '../services/read-models/trader-stats/valuation.js';
import { allTopicSpecs, topicSchemas } from '../services/read-models/registry.js';
import {
  LEDGER_GROUP_ID,
  STATEFUL_PROJECTIONS,
  sinkLag,
  sinkTopics,
  startSink,
  startStatefulProjections,
} from '../services/sink/sink-service.js';
import { createRng } from '../simulator/prng.js';
import { bookSnapshot, chainFill, conditionId, marketUpserted, txHash, walletAddress } from '../test/support/events.js';

const WALLETS = Number(process.env.BENCH_WALLETS ?? 400);
const FILLS_PER_WALLET = Number(process.env.BENCH_FILLS_PER_WALLET ?? 60);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SEED = 42;
const MARKETS = 48;
const MARKETS_PER_WALLET = 6;
const CATEGORIES = ['Politics', 'Sports', 'Crypto', 'Economics'];
const DAY = 86_400_000;
const HOUR = 3_600_000;
/** The job's longest window (picks-job.ts WINDOWS['90d']): the span its candidates' fills are read over. */
const LONGEST_MS = 90 * DAY;
const here = path.dirname(fileURLToPath(import.meta.url));
const silent = pino({ level: 'silent' });

const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface BenchMarket {
  id: string;
  tokens: [string, string];
  category: string;
  /** When it resolved (a third of them), or null while open. */
  resolvedAt: number | null;
}

/** A market's YES price at `at`: a slow wave of its own phase, kept inside 0.15..0.85 on cent ticks. */
const yesPrice = (m: number, at: number) => Math.round((0.5 + 0.35 * Math.sin(m * 1.7 + at / (9 * DAY))) * 100) / 100;

function marketsOf(now: number): BenchMarket[] {
  return Array.from({ length: MARKETS }, (_, m) => ({
    id: conditionId(0x2000 + m),
    tokens: [`${0x2000 + m}1`, `${0x2000 + m}2`],
    category: CATEGORIES[m % CATEGORIES.length]!,
    resolvedAt: m % 3 === 0 ? now - (3 + (m % 30)) * DAY : null,
  }));
}

function catalog(markets: BenchMarket[], now: number): MarketUpserted[] {
  return markets.map((market, m) => {
    const yes = yesPrice(m, market.resolvedAt ?? now);
    const resolved = market.resolvedAt !== null;
    const yesWon = yes >= 0.5;
    return marketUpserted({
      market_id: market.id,
      title: `Bench market ${m}`,
      category: market.category,
      outcome_token_ids: market.tokens,
      ...(resolved
        ? {
            status: 'resolved',
            resolved_outcome: yesWon ? 'Yes' : 'No',
            outcome_prices: yesWon ? [1, 0] : [0, 1],
            resolved_at_ms: market.resolvedAt,
          }
        : { outcome_prices: [yes, Math.round((1 - yes) * 100) / 100] }),
      updated_at_ms: now,
      ingested_at_ms: now,
    });
  });
}

/**
 * Each wallet's fills: in each of its markets, buys of one outcome then sales of part of what it
 * bought, along the market's price path (before the resolution of a resolved market), so some wallets
 * close in profit, some at a loss, and some still hold. Block numbers follow time across all wallets.
 */
function fillsOf(markets: BenchMarket[], now: number): ChainLedgerEvent[] {
  const start = now - 88 * DAY;
  const drafts: { wallet: string; m: number; outcome: 0 | 1; side: 'buy' | 'sell'; shares: number; at: number }[] = [];
  for (let w = 0; w < WALLETS; w++) {
    const rng = createRng(SEED, 'copy-picks', 'wallet', w);
    const wallet = walletAddress(0x100000 + w);
    const chosen = new Set<number>();
    while (chosen.size < MARKETS_PER_WALLET) chosen.add(rng.int(0, MARKETS - 1));
    const perMarket = Math.max(2, Math.floor(FILLS_PER_WALLET / MARKETS_PER_WALLET));
    for (const m of chosen) {
      const end = (markets[m]!.resolvedAt ?? now) - HOUR;
      const outcome = rng.chance(0.3) ? 1 : 0;
      const times = Array.from({ length: perMarket }, () => rng.int(start, end)).sort((a, b) => a - b);
      let held = 0;
      for (const [k, at] of times.entries()) {
        // First half buys, second half sells part of what is held.
        const buy = k < perMarket / 2 || held === 0;
        const shares = buy ? rng.int(10, 200) : Math.max(1, Math.floor(held * rng.float(0.2, 0.6)));
        held += buy ? shares : -shares;
        drafts.push({ wallet, m, outcome, side: buy ? 'buy' : 'sell', shares, at });
      }
    }
  }
  drafts.sort((a, b) => a.at - b.at);
  return drafts.map((d, i) => {
    const market = markets[d.m]!;
    const yes = yesPrice(d.m, d.at);
    const price = d.outcome === 0 ? yes : Math.round((1 - yes) * 100) / 100;
    return chainFill({
      tx_hash: txHash(0x300000 + i),
      block_number: 70_000_000 + i,
      block_hash: `0x${(70_000_000 + i).toString(16).padStart(64, '0')}`,
      block_time_ms: d.at,
      ingested_at_ms: d.at,
      log_index: 1,
      wallet: d.wallet,
      market_id: market.id,
      ledger_group: market.id,
      market_title: `Bench market ${d.m}`,
      fill: {
        side: d.side,
        asset_id: market.tokens[d.outcome],
        outcome: d.outcome === 0 ? 'Yes' : 'No',
        outcome_index: d.outcome,
        shares_micro: String(d.shares * 1_000_000),
        usdc_micro: String(Math.round(d.shares * price * 1_000_000)),
        price,
        yes_price: yes,
      },
    });
  });
}

/** A book per token and day over the job's longest window, a cent either side of the path with depth. */
function booksOf(markets: BenchMarket[], now: number): BookSnapshot[] {
  const books: BookSnapshot[] = [];
  for (const [m, market] of markets.entries()) {
    const end = market.resolvedAt ?? now;
    for (let at = now - 90 * DAY; at < end; at += DAY) {
      const yes = yesPrice(m, at);
      for (const [i, asset] of market.tokens.entries()) {
        const price = i === 0 ? yes : Math.round((1 - yes) * 100) / 100;
        books.push(
          bookSnapshot({
            market_id: market.id,
            asset_id: asset,
            hash: `d${at}`,
            timestamp_ms: at,
            ingested_at_ms: at,
            bids: [{ price: Math.max(0.01, Math.round((price - 0.01) * 100) / 100), size: 300 }],
            asks: [
              { price: Math.min(0.99, Math.round((price + 0.01) * 100) / 100), size: 80 },
              { price: Math.min(0.99, Math.round((price + 0.03) * 100) / 100), size: 800 },
            ],
          }),
        );
      }
    }
  }
  return books;
}

/** The baseline: the same candidates' fills over the longest window, read and replayed through the ledger's cost alone. */
async function scanAndReplay(store: AnalyticsStore, candidates: number, nowMs: number, delayMs: number): Promise<number> {
  const source = traderStatsSource(store);
  const wallets = new Set<string>();
  for (const category of await source.categories())
    for (const stats of await source.candidates(category, candidates, 1)) wallets.add(stats.wallet);
  let fills = 0;
  for (const wallet of [...wallets].sort()) {
    const book = new Map<string, PositionState>();
    for (const f of await walletFills(store, wallet, nowMs - LONGEST_MS - delayMs, nowMs - delayMs)) {
      book.set(
        f.assetId,
        applyLeg(book.get(f.assetId) ?? EMPTY_STATE, { side: f.side, qty: f.sharesMicros, usdc: f.usdcMicros }, f.timestampMs).state,
      );
      fills += 1;
    }
  }
  return fills;
}

async function waitUntil(check: () => Promise<boolean>, what: string) {
  const deadline = Date.now() + 600_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-copy-picks-'));
  const log = await openFileEventLog({ directory: path.join(dir, 'log'), schemas: topicSchemas(), fsync: false, pollIntervalMs: 20 });
  await log.createTopics(allTopicSpecs());
  const store = await openChdbStore({ path: path.join(dir, 'chdb'), database: 'bench_copy_picks' });
  await migrate(store);
  const sink = await startSink(log, store, silent);
  const ledger = await startStatefulProjections(log, store, silent);
  try {
    const config = loadConfig({});
    const settings = { ...config.copy.picks, feeFallback: config.sandbox.feeFallback };
    const now = Date.now();
    const markets = marketsOf(now);
    const fills = fillsOf(markets, now);
    const books = booksOf(markets, now);

    const loadStarted = performance.now();
    const publisher = new EventPublisher(log);
    await publisher.publish('markets', catalog(markets, now));
    for (let i = 0; i < fills.length; i += 5_000) await publisher.publish('chainLedger', fills.slice(i, i + 5_000));
    for (let i = 0; i < books.length; i += 5_000) await publisher.publish('bookSnapshots', books.slice(i, i + 5_000));
    await waitUntil(
      async () =>
        Object.values(await sinkLag(log)).every((lag) => lag === 0) &&
        Object.values(await sinkLag(log, sinkTopics(STATEFUL_PROJECTIONS), LEDGER_GROUP_ID)).every((lag) => lag === 0),
      'the sink and the position ledger',
    );
    await marksOf(store).refresh(now);
    // Every wallet valued (the pass values at most 5,000 a run), as the service's pass leaves them.
    const valuation = new TraderValuation(store);
    while ((await valuation.run(now)).pending > 0);
    const loadMs = performance.now() - loadStarted;

    const picksMs: number[] = [];
    const scanMs: number[] = [];
    let picks = { rows: 0, wallets: 0 };
    let scanned = 0;
    // Each run its own computed_at (a millisecond apart) so the last run's rows can be counted alone.
    const runAt = (i: number) => now + i;
    for (let i = 0; i <= RUNS; i++) {
      const t0 = performance.now();
      scanned = await scanAndReplay(store, settings.candidates, runAt(i), settings.delaySeconds * 1000);
      const t1 = performance.now();
      picks = await recomputeCopyPicks(store, settings, runAt(i));
      const t2 = performance.now();
      if (i === 0) continue; // warm-up
      scanMs.push(t1 - t0);
      picksMs.push(t2 - t1);
    }
    const [judged] = await store.query<{ eligible_rows: string; excluded_rows: string }>(
      `SELECT toString(countIf(excluded = '')) AS eligible_rows, toString(countIf(excluded != '')) AS excluded_rows
         FROM copy_picks WHERE computed_at = fromUnixTimestamp64Milli({at:Int64})`,
      { at: runAt(RUNS) },
    );
    const picksMedian = median(picksMs);
    const scanMedian = median(scanMs);
    const result = {
      benchmark: 'copy-picks',
      at: new Date().toISOString(),
      machine: { cpus: os.cpus().length, node: process.version },
      population: {
        source: 'simulator',
        seed: SEED,
        wallets: WALLETS,
        markets: MARKETS,
        resolved_markets: markets.filter((m) => m.resolvedAt !== null).length,
        categories: CATEGORIES.length,
        chain_fills: fills.length,
        book_snapshots: books.length,
        load_and_value_ms: Math.round(loadMs),
      },
      settings: { candidates_per_topic: settings.candidates, order_usdc: settings.orderUsdc, delay_seconds: settings.delaySeconds },
      runs: RUNS,
      picks_run: {
        candidates: picks.wallets,
        rows: picks.rows,
        eligible_rows: Number(judged?.eligible_rows ?? 0),
        excluded_rows: Number(judged?.excluded_rows ?? 0),
        median_ms: round(picksMedian),
        min_ms: round(Math.min(...picksMs)),
        max_ms: round(Math.max(...picksMs)),
      },
      baseline_scan: {
        candidates: picks.wallets,
        fills_read: scanned,
        median_ms: round(scanMedian),
        min_ms: round(Math.min(...scanMs)),
        max_ms: round(Math.max(...scanMs)),
      },
      ratio_to_scan: round(picksMedian / scanMedian, 2),
      note: "picks_run: recomputeCopyPicks (every topic's candidates, 7d/30d/90d copier simulations, latest books once per wallet, closes once per market per run); baseline_scan: the same candidates' fills over 90 days read with walletFills and replayed through applyLeg; ratio = picks_run / baseline_scan, medians of the same run, alternated.",
    };
    console.log(JSON.stringify(result, null, 2));
    fs.mkdirSync(path.join(here, 'results'), { recursive: true });
    fs.writeFileSync(path.join(here, 'results', 'copy-picks.json'), `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await ledger.stop();
    await sink.stop();
    await log.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
