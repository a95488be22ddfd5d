/**
 * Gap scenarios through the real pipeline (simulator -> ingest -> file log -> sink -> chDB), with the
 * simulator's clock frozen so its state is the exact truth:
 * - the websocket's first connection is accepted and then says nothing: the liveness timeout drops
 *   it and the reconnect brings the books;
 * - 15,000 trades land between two trade polls, more than the Data API feed pages through: the gap
 *   is detected (source degraded), backfilled market by market, and every trade is stored once;
 * - during that burst the log refuses the websocket's price ticks three times: every tick of every
 *   fill is still stored once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { openChdbStore } from '../../services/analytics/clickhouse-store.js';
import { migrate } from '../../services/analytics/migrate.js';
import { loadConfig } from '../../services/config.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import { startIngest, type IngestService } from '../../services/ingest/ingest-service.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import { STREAMS, topicSchemas } from '../../services/read-models/registry.js';
import { startSink, type SinkService } from '../../services/sink/sink-service.js';
import { simulatorUpstreamEnv, startSimulator, type RunningSimulator } from '../../simulator/server.js';
import { type FaultyLog, faultyLog } from '../support/faulty-log.js';
import { T0 } from '../support/events.js';
import { waitFor } from '../support/http.js';
import { simulatorTradeIds } from '../support/upstream-truth.js';

// From the clock (T0): books are kept 30 days from now and deltas 7, so a fixed date stops storing them.
const START = T0;
const BURST_AT = START + 60_000;
const silent = pino({ level: 'silent' });

let simulator: RunningSimulator;
let store: AnalyticsStore;
let log: FaultyLog;
let ingest: IngestService;
let sink: SinkService;
let now = START;

beforeAll(async () => {
  simulator = await startSimulator({
    port: 0,
    seed: 8,
    marketCount: 40,
    walletCount: 40,
    historicTrades: 2_000,
    historyHours: 12,
    tradesPerSecond: 0,
    clock: () => now,
    scenarios: { bursts: [{ atMs: BURST_AT, trades: 15_000, durationMs: 10_000 }] },
    faults: { wsSilentConnections: 1 },
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-gaps-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    ...simulatorUpstreamEnv(simulator),
    MARKETS_POLL_INTERVAL_MS: '500',
    TRADES_POLL_INTERVAL_MS: '300',
    CLOB_POLL_INTERVAL_MS: '60000',
    CATALOG_SYNC_INTERVAL_MS: '60000',
    WALLETS_POLL_INTERVAL_MS: '600000',
    TRACKED_WALLETS_TOP: '0',
    HOLDERS_MARKETS: '0',
    TRADES_BACKFILL_MARKETS: '0',
    WS_SHARD_SIZE: '5000',
    WS_IDLE_TIMEOUT_MS: '600',
    LOG_LEVEL: 'silent',
  });
  store = await openChdbStore({ path: fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-gaps-chdb-')), database: 'gaps' });
  await migrate(store);
  log = faultyLog(await openFileEventLog({ directory: path.join(dataDir, 'log'), schemas: topicSchemas(), fsync: false }));
  ingest = await startIngest(config, log, silent);
  sink = await startSink(log, store, silent);
}, 60_000);

afterAll(async () => {
  await ingest?.stop();
  await sink?.stop();
  await log?.close();
  await store?.close();
  await simulator?.close();
});

const count = async (sql: string) => Number((await store.query<{ n: number }>(sql))[0]?.n ?? 0);

test('a websocket that accepts and goes silent is dropped at the idle timeout; the reconnect brings the books', async () => {
  await waitFor(async () => ingest.stream() !== null, 30_000, 'the websocket client');
  const stream = ingest.stream()!;
  await waitFor(async () => stream.stats.idle_timeouts >= 1, 15_000, 'the idle timeout on the silent connection');
  await waitFor(async () => stream.stats.messages > 0, 15_000, 'book messages on the second connection');
  await waitFor(
    async () => (await count("SELECT count() AS n FROM order_books WHERE origin = 'clob-ws'")) > 0,
    30_000,
    'websocket books stored',
  );
  expect(stream.stats.reconnects).toBeGreaterThanOrEqual(1);
}, 60_000);

test('15,000 trades between two polls: the gap is detected, backfilled, and every trade stored once; a mid-burst publish failure loses no tick', async () => {
  const before = simulatorTradeIds(simulator.state);
  await waitFor(async () => (await count('SELECT uniqExact(trade_id) AS n FROM trades')) === before.size, 30_000, 'history indexed');

  // The burst: 15,000 fills in ten seconds, all after the poller's checkpoint.
  log.failNext(STREAMS.priceTicks.topic, 3);
  now = BURST_AT + 15_000;
  simulator.advance(0);
  simulator.pushWebSocket();
  const truth = simulatorTradeIds(simulator.state);
  const burst = simulator.state.trades.filter((t) => t.timestamp * 1000 >= BURST_AT);
  expect(burst.length).toBeGreaterThanOrEqual(15_000);
  // More than the feed's offset cap (10,000) plus one page: the first poll after it cannot reach its checkpoint.
  expect(truth.size - before.size).toBeGreaterThan(10_500);

  let sawDegraded = false;
  await waitFor(
    async () => {
      sawDegraded ||= ingest.health.snapshot().find((s) => s.source === 'data.trades')!.degraded;
      return (await count('SELECT uniqExact(trade_id) AS n FROM trades')) === truth.size;
    },
    90_000,
    'every trade of the burst indexed',
    300,
  );
  expect(sawDegraded).toBe(true);
  const rows = await store.query<{ trade_id: string; n: number }>('SELECT trade_id, count() AS n FROM trades GROUP BY trade_id');
  expect(new Set(rows.map((r) => r.trade_id))).toEqual(truth);
  expect(rows.every((r) => Number(r.n) === 1)).toBe(true);
  await waitFor(
    async () => !ingest.health.snapshot().find((s) => s.source === 'data.trades')!.degraded,
    30_000,
    'the trade source healthy again',
  );
  expect(ingest.pollers.trades.gaps).toEqual([]);

  // Websocket: one last_trade tick per distinct fill of the burst, despite three refused produce calls.
  const market = (i: number) => simulator.state.world.markets[i]!;
  const expectedTicks = new Set(
    burst.map(
      (t) =>
        `${market(t.marketIndex).tokenIds[t.outcomeIndex]}|${t.timestamp * 1000}|${t.side}|${Number(t.size.toFixed(2))}|${Number(t.price.toFixed(4))}`,
    ),
  );
  const tickKeys = async () =>
    new Set(
      (
        await store.query<{ asset_id: string; ts: number; side: string; size: number; price: number }>(
          `SELECT asset_id, toUnixTimestamp64Milli(ts) AS ts, side, size, price FROM price_ticks FINAL
            WHERE kind = 'last_trade' AND ts >= fromUnixTimestamp64Milli({from:Int64})`,
          { from: BURST_AT },
        )
      ).map((r) => `${r.asset_id}|${Number(r.ts)}|${r.side}|${Number(r.size)}|${Number(r.price)}`),
    );
  await waitFor(async () => (await tickKeys()).size === expectedTicks.size, 60_000, 'every burst tick stored').catch(async (error) => {
    // Say what is missing or extra, and what the websocket went through, not only that it timed out.
    const stored = await tickKeys();
    const missing = [...expectedTicks].filter((k) => !stored.has(k));
    const extra = [...stored].filter((k) => !expectedTicks.has(k));
    throw new Error(
      `${(error as Error).message}: ${missing.length} of ${expectedTicks.size} missing (${missing.slice(0, 3).join(', ')}), ` +
        `${extra.length} extra (${extra.slice(0, 3).join(', ')}); websocket ${JSON.stringify(ingest.stream()!.stats)}`,
    );
  });
  expect(await tickKeys()).toEqual(expectedTicks);
  expect(log.refused).toBe(3);
  const stream = ingest.stream()!;
  expect(stream.stats.publish_failures).toBe(3);
  expect(stream.stats.publish_dead_lettered).toBe(0);
  const [dupes] = await store.query<{ n: number }>(
    "SELECT count() - uniqExact(tick_id) AS n FROM price_ticks FINAL WHERE kind = 'last_trade'",
  );
  expect(Number(dupes!.n)).toBe(0);
}, 180_000);
