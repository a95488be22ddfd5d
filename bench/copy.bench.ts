/**
 * Copy-trading benchmark, in one process and run (writes bench/results/copy.json):
 *  - intent latency: a leader fill on the event log (its durable, fsynced append has returned) -> copy
 *    engine -> intent row and outbox delivery committed, p50/p99 per fill (goal p99 <= 100 ms); and the
 *    same from before the produce call (the append included). Fills are produced one at a time.
 *  - backtest: GET /backtest's work (services/copy/backtest) for a year of one active leader
 *    (BENCH_FILLS_PER_DAY fills a day over 40 markets, order-book history for the last 30 days), median of
 *    5 runs, against the reference the same run measures: reading the same fills and replaying them
 *    through the position ledger's weighted-average cost alone (positions/ledger-math.ts). Goal: under 1 s.
 *
 *   npx tsx bench/copy.bench.ts      (BENCH_LATENCY_FILLS=300, BENCH_FILLS_PER_DAY=20 by default)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { openChdbStore } from '../services/analytics/clickhouse-store.js';
import { migrate } from '../services/analytics/migrate.js';
import { Accounts } from '../services/control/accounts.js';
import { migrateControlStore } from '../services/control/migrate.js';
import { openPgliteStore } from '../services/control/pglite-store.js';
import { parseBacktest, runBacktest } from '../services/copy/backtest/backtest-service.js';
import { walletFills } from '../services/copy/backtest/market-data.js';
import { startCopyEngine } from '../services/copy/copy-engine.js';
import { CopySubscriptions } from '../services/copy/copy-subscriptions.js';
import { EventPublisher } from '../services/events/publisher.js';
import { openFileEventLog } from '../services/eventlog/file-log.js';
import { allTopicSpecs, topicSchemas } from '../services/read-models/registry.js';
import { applyLeg, EMPTY_STATE, type PositionState } from '../services/read-models/positions/ledger-math.js';
import { sinkLag, startSink } from '../services/sink/sink-service.js';
import { WebhookSubscriptions } from '../services/webhooks/subscriptions.js';
import { UrlGuard } from '../services/webhooks/url-guard.js';
import { bookSnapshot, chainFill, conditionId, marketUpserted, txHash, walletAddress } from '../test/support/events.js';
import { loadConfig } from '../services/config.js';

/** The service's backlog cap per webhook subscription (WEBHOOK_PENDING_PER_SUBSCRIPTION's default). */
const BACKLOG = loadConfig({}).webhooks.pendingPerSubscription;

const LATENCY_FILLS = Number(process.env.BENCH_LATENCY_FILLS ?? 300);
const FILLS_PER_DAY = Number(process.env.BENCH_FILLS_PER_DAY ?? 20);
const MARKETS = 40;
const DAY = 86_400_000;
const here = path.dirname(fileURLToPath(import.meta.url));
const silent = pino({ level: 'silent' });
const LEADER = walletAddress(0x1eade7);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function waitUntil(check: () => Promise<boolean>, what: string) {
  const deadline = Date.now() + 300_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function fillEvent(n: number, market: number, side: 'buy' | 'sell', at: number, price: number) {
  const id = conditionId(0x1000 + market);
  const shares = 10 + (n % 7) * 5;
  return chainFill({
    tx_hash: txHash(0x100000 + n),
    block_number: 70_000_000 + n,
    block_time_ms: at,
    wallet: LEADER,
    market_id: id,
    ledger_group: id,
    market_title: `Bench market ${market}`,
    fill: {
      side,
      asset_id: `${0x1000 + market}1`,
      shares_micro: String(shares * 1_000_000),
      usdc_micro: String(Math.round(shares * price * 1_000_000)),
      price,
      yes_price: price,
    },
  });
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-copy-'));
  const log = await openFileEventLog({ directory: path.join(dir, 'log'), schemas: topicSchemas(), fsync: true, pollIntervalMs: 10 });
  await log.createTopics(allTopicSpecs());
  const store = await openChdbStore({ path: path.join(dir, 'chdb'), database: 'bench_copy' });
  await migrate(store);
  const control = await openPgliteStore(path.join(dir, 'pglite'));
  await migrateControlStore(control);
  const sink = await startSink(log, store, silent);
  const publisher = new EventPublisher(log);
  const now = Date.now();
  const yearAgo = now - 365 * DAY;

  // Markets (active, no fees) and a year of one leader's fills, with books for the last 30 days.
  await publisher.publish(
    'markets',
    Array.from({ length: MARKETS }, (_, m) =>
      marketUpserted({
        market_id: conditionId(0x1000 + m),
        title: `Bench market ${m}`,
        category: m % 2 ? 'Politics' : 'Sports',
        outcome_token_ids: [`${0x1000 + m}1`, `${0x1000 + m}2`],
      }),
    ),
  );
  const history = [];
  const books = [];
  let n = 0;
  for (let day = 0; day < 365; day++) {
    for (let k = 0; k < FILLS_PER_DAY; k++) {
      const at = yearAgo + day * DAY + Math.floor(((k + 0.5) * DAY) / FILLS_PER_DAY);
      const market = (n * 7) % MARKETS;
      const price = Math.round((0.2 + (0.6 * ((n * 37) % 100)) / 100) * 100) / 100;
      history.push(fillEvent(n, market, n % 3 === 2 ? 'sell' : 'buy', at, price));
      if (day >= 335)
        books.push(
          bookSnapshot({
            market_id: conditionId(0x1000 + market),
            asset_id: `${0x1000 + market}1`,
            hash: `h${n}`,
            timestamp_ms: at + 5_000,
            bids: [{ price: price - 0.01, size: 200 }],
            asks: [
              { price: price + 0.01, size: 50 },
              { price: price + 0.02, size: 500 },
            ],
          }),
        );
      n += 1;
    }
  }
  for (let i = 0; i < history.length; i += 2_000) await publisher.publish('chainLedger', history.slice(i, i + 2_000));
  for (let i = 0; i < books.length; i += 2_000) await publisher.publish('bookSnapshots', books.slice(i, i + 2_000));
  await waitUntil(async () => Object.values(await sinkLag(log)).every((lag) => lag === 0), 'the sink');

  // 1. Backtest of the year against reading + replaying the same fills through the position ledger.
  const settings = { feeFallback: { rate: '0.25', exponent: 2 } };
  const request = {
    strategy: 'copy_wallet',
    wallet: LEADER,
    sizing: 'fixed',
    usdc: '25',
    delay_seconds: 15,
    from: new Date(yearAgo).toISOString(),
    to: new Date(now).toISOString(),
  };
  const backtestMs: number[] = [];
  const ledgerMs: number[] = [];
  let trades = 0;
  let bookFills = 0;
  for (let i = 0; i < 6; i++) {
    const t0 = performance.now();
    const fills = await walletFills(store, LEADER, yearAgo, now);
    const book = new Map<string, PositionState>();
    for (const f of fills)
      book.set(
        f.assetId,
        applyLeg(book.get(f.assetId) ?? EMPTY_STATE, { side: f.side, qty: f.sharesMicros, usdc: f.usdcMicros }, f.timestampMs).state,
      );
    const t1 = performance.now();
    const result = await runBacktest(store, parseBacktest(request, now), settings);
    const t2 = performance.now();
    if (i === 0) continue; // warm-up
    ledgerMs.push(t1 - t0);
    backtestMs.push(t2 - t1);
    trades = result.summary.trades;
    bookFills = result.summary.book_fills;
  }

  // 2. Intent latency: fills produced one at a time to a followed leader with a dry-run subscription. The
  // copy engine runs alone, as `npm run service -- copy` runs it: in one process with the sink, chDB's
  // inserts share the event loop with it (measured separately below).
  const sinkSharing = process.env.BENCH_WITH_SINK === '1';
  if (!sinkSharing) await sink.stop();
  const accounts = new Accounts(control);
  const accountId = (await accounts.issueDeveloperKey('bench', 1_000_000)).account_id;
  await new CopySubscriptions(control).create(accountId, { leader_wallet: LEADER, sizing: { rule: 'fixed', usdc: '5' } });
  await new WebhookSubscriptions({ store: control, guard: new UrlGuard(['127.0.0.1']), clock: Date.now, secretGraceMs: 0 }).create(
    accountId,
    {
      url: 'http://127.0.0.1:9/copy',
      events: ['copy.executed', 'risk.blocked'],
    },
  );
  const latencies: number[] = [];
  const withAppend: number[] = [];
  const emittedAt = new Map<number, number>();
  const engine = await startCopyEngine({
    log,
    control,
    store,
    logger: silent,
    maxFillAgeMs: 120_000,
    maxPendingPerSubscription: BACKLOG,
    accountEventRetentionMs: 86_400_000,
    onEmitted: (emitted) => {
      const at = performance.timeOrigin + performance.now();
      for (const e of emitted) emittedAt.set(e.loggedAtMs, at);
    },
  });
  for (let i = 0; i < LATENCY_FILLS; i++) {
    const start = performance.timeOrigin + performance.now();
    const at = Math.floor(start) * 1 + i; // unique, and the message timestamp the engine reports back
    await publisher.publish('chainLedger', [fillEvent(1_000_000 + i, i % MARKETS, 'buy', at, 0.5)]);
    const onLog = performance.timeOrigin + performance.now();
    await waitUntil(async () => emittedAt.has(at), 'the intent');
    // The intent may commit before produce() returns to us (the consumer wakes on the append): then 0.
    latencies.push(Math.max(0, emittedAt.get(at)! - onLog));
    withAppend.push(emittedAt.get(at)! - start);
    await new Promise((r) => setTimeout(r, 5));
  }
  await engine.stop();
  if (sinkSharing) await sink.stop();
  await log.close();
  await store.close();
  await control.close();

  latencies.sort((a, b) => a - b);
  withAppend.sort((a, b) => a - b);
  const backtest = median(backtestMs);
  const ledger = median(ledgerMs);
  const result = {
    benchmark: 'copy',
    at: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version },
    intent_latency_ms: {
      fills: latencies.length,
      sink_in_process: sinkSharing,
      p50: round(percentile(latencies, 50)),
      p99: round(percentile(latencies, 99)),
      max: round(latencies.at(-1)!),
      goal_p99_ms: 100,
      met: percentile(latencies, 99) <= 100,
      including_append: { p50: round(percentile(withAppend, 50)), p99: round(percentile(withAppend, 99)), max: round(withAppend.at(-1)!) },
    },
    backtest_year: {
      leader_fills: history.length,
      trades,
      book_fills: bookFills,
      median_ms: round(backtest, 1),
      ledger_replay_median_ms: round(ledger, 1),
      ratio_to_ledger_replay: round(backtest / ledger, 2),
      goal_ms: 1_000,
      met: backtest < 1_000,
    },
  };
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  fs.writeFileSync(path.join(here, 'results', 'copy.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
