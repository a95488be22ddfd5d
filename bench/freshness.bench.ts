/**
 * Freshness, end to end: simulator (Gamma, CLOB REST + websocket, Data API) -> the real ingest
 * service -> file log -> sink -> chDB, in one process, with the service's default cadences.
 *
 * 1. Websocket: an observer connection subscribed to the same tokens records when each frame
 *    (price_change, last_trade_price) arrives; the frame counts as queryable once every row it
 *    implies (book deltas + the rebuilt book for a price_change, the tick for a last_trade_price)
 *    is returned by a ClickHouse query. Target 2 s.
 * 2. Trades: new fills appear upstream when the simulated clock moves (at a random moment relative
 *    to the trade poll); each counts as queryable once the trades table returns it. Target 15 s.
 * Queryability is polled every POLL_MS, so each figure is an upper bound by up to that much.
 * Writes bench/results/freshness.json (percentiles and their ratio to the target).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import WebSocket from 'ws';
import { openChdbStore } from '../services/analytics/clickhouse-store.js';
import { migrate } from '../services/analytics/migrate.js';
import { loadConfig } from '../services/config.js';
import { openFileEventLog } from '../services/eventlog/file-log.js';
import { startIngest } from '../services/ingest/ingest-service.js';
import { normalizeWsMarketMessage, wsFrameMessages } from '../services/ingest/normalize-clob.js';
import { normalizeDataTrade } from '../services/ingest/normalize-trade.js';
import { allTopicSpecs } from '../services/read-models/registry.js';
import { startSink } from '../services/sink/sink-service.js';
import { simulatorUpstreamEnv, startSimulator } from '../simulator/server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const POLL_MS = 20;
const WS_PUSHES = Number(process.env.FRESHNESS_WS_PUSHES ?? 40);
const TRADE_ROUNDS = Number(process.env.FRESHNESS_TRADE_ROUNDS ?? 16);
const silent = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let now = Date.now();
const simulator = await startSimulator({
  port: 0,
  seed: 17,
  marketCount: 40,
  walletCount: 40,
  historicTrades: 2000,
  historyHours: 24,
  tradesPerSecond: 0.5,
  clock: () => now,
});
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-freshness-'));
// Service defaults for every cadence (trade poll 5 s, books 30 s); only the upstream is the simulator.
const config = loadConfig({
  DATA_DIR: dataDir,
  ...simulatorUpstreamEnv(simulator),
  TRADES_BACKFILL_MARKETS: '0',
  LOG_LEVEL: 'silent',
});
const store = await openChdbStore({ path: path.join(dataDir, 'chdb'), database: 'freshness' });
await migrate(store);
const log = await openFileEventLog({ directory: path.join(dataDir, 'log') });
await log.createTopics(allTopicSpecs());
const sink = await startSink(log, store, silent);
const ingest = await startIngest(config, log, silent);
await ingest.firstPass;
while (!ingest.stream()) await sleep(50);
await ingest.stream()!.connected();

// ---- 1. websocket frames ----
interface Frame {
  arrivedMs: number;
  deltaIds: string[];
  bookIds: string[];
  tickIds: string[];
  kind: 'price_change' | 'last_trade_price';
}
const frames: Frame[] = [];
const tokens = simulator.state.world.markets.filter((m) => simulator.state.isAcceptingOrders(m.index)).flatMap((m) => m.tokenIds);
const observer = new WebSocket(simulator.wsUrl);
await new Promise<void>((resolve, reject) => {
  observer.once('open', () => resolve());
  observer.once('error', reject);
});
let recording = false;
observer.on('message', (data) => {
  const arrivedMs = performance.now();
  if (!recording) return;
  const messages = wsFrameMessages(JSON.parse(data.toString()));
  const frame: Frame = { arrivedMs, deltaIds: [], bookIds: [], tickIds: [], kind: 'price_change' };
  for (const raw of messages) {
    const result = normalizeWsMarketMessage(raw, 'simulator', 0);
    if (!result.ok) continue;
    const message = result.value;
    if (message.type === 'price_change') {
      for (const delta of message.deltas) frame.deltaIds.push(delta.event_id);
      for (const delta of message.deltas) if (delta.hash) frame.bookIds.push(`${delta.asset_id}:${delta.hash}`);
    } else if (message.type === 'last_trade_price') {
      frame.kind = 'last_trade_price';
      frame.tickIds.push(message.tick.event_id);
    }
  }
  frame.bookIds = [...new Set(frame.bookIds)];
  if (frame.deltaIds.length + frame.tickIds.length > 0) frames.push(frame);
});
observer.send(JSON.stringify({ assets_ids: tokens, type: 'market' }));
await sleep(500);
recording = true;

async function found(table: string, column: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await store.query<{ id: string }>(`SELECT DISTINCT ${column} AS id FROM ${table} WHERE ${column} IN {ids:Array(String)}`, {
    ids,
  });
  return new Set(rows.map((r) => r.id));
}

/** Polls ClickHouse until every pending frame's rows are queryable; records each frame's latency. */
async function awaitQueryable(pending: Frame[], latencies: Map<Frame, number>, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (pending.length > 0 && performance.now() < deadline) {
    const deltas = await found(
      'order_book_deltas',
      'delta_id',
      pending.flatMap((f) => f.deltaIds),
    );
    const books = await found(
      'order_books',
      'book_id',
      pending.flatMap((f) => f.bookIds),
    );
    const ticks = await found(
      'price_ticks',
      'tick_id',
      pending.flatMap((f) => f.tickIds),
    );
    const at = performance.now();
    for (const frame of [...pending]) {
      if (
        frame.deltaIds.every((id) => deltas.has(id)) &&
        frame.bookIds.every((id) => books.has(id)) &&
        frame.tickIds.every((id) => ticks.has(id))
      ) {
        latencies.set(frame, at - frame.arrivedMs);
        pending.splice(pending.indexOf(frame), 1);
      }
    }
    await sleep(POLL_MS);
  }
}

const wsLatencies = new Map<Frame, number>();
let missingFrames = 0;
for (let push = 0; push < WS_PUSHES; push++) {
  const before = frames.length;
  now += 60_000; // books requote every simulated minute; fills of that minute follow
  simulator.pushWebSocket();
  await sleep(30);
  const pending = frames.slice(before);
  await awaitQueryable(pending, wsLatencies, 10_000);
  missingFrames += pending.length;
}
observer.close();

// ---- 2. trades ----
const tradeLatencies: number[] = [];
let missingTrades = 0;
for (let round = 0; round < TRADE_ROUNDS; round++) {
  // A random moment in the trade poll's cycle.
  await sleep(Math.random() * config.ingest.tradesPollIntervalMs);
  const newestBefore = simulator.state.trades.length;
  now += 20_000;
  simulator.state.sync();
  const appearedAt = performance.now();
  const fresh = simulator.state.trades.length - newestBefore;
  if (fresh === 0) continue;
  const page = (await (await fetch(`${simulator.dataUrl}/trades?takerOnly=true&limit=${fresh}`)).json()) as unknown[];
  const ids = page.flatMap((raw) => {
    const r = normalizeDataTrade(raw, 'simulator', 0);
    return r.ok ? [r.value.event_id] : [];
  });
  const pending = new Set(ids);
  const deadline = appearedAt + 30_000;
  while (pending.size > 0 && performance.now() < deadline) {
    const stored = await found('trades', 'trade_id', [...pending]);
    const at = performance.now();
    for (const id of stored) {
      pending.delete(id);
      tradeLatencies.push(at - appearedAt);
    }
    await sleep(POLL_MS * 5);
  }
  missingTrades += pending.size;
}

await ingest.stop();
await sink.stop();
await log.close();
await store.close();
await simulator.close();
fs.rmSync(dataDir, { recursive: true, force: true });

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);
}
function summary(values: number[], targetMs: number, extra: Record<string, unknown>) {
  const p50 = percentile(values, 50);
  const p99 = percentile(values, 99);
  return {
    samples: values.length,
    p50_ms: p50,
    p90_ms: percentile(values, 90),
    p99_ms: p99,
    max_ms: Math.round(Math.max(...values)),
    target_ms: targetMs,
    p99_to_target: Math.round((p99 / targetMs) * 1000) / 1000,
    meets_target: p99 <= targetMs,
    ...extra,
  };
}
const wsAll = [...wsLatencies.values()];
const byKind = (kind: Frame['kind']) => [...wsLatencies].filter(([f]) => f.kind === kind).map(([, ms]) => ms);
const result = {
  bench: 'freshness',
  method: `websocket frame arrival (observer connection) or upstream trade appearance -> rows returned by a ClickHouse query, polled every ${POLL_MS} ms (websocket) / ${POLL_MS * 5} ms (trades)`,
  websocket_frame_to_queryable: summary(wsAll, 2_000, {
    price_change: summary(byKind('price_change'), 2_000, {}),
    last_trade_price: summary(byKind('last_trade_price'), 2_000, {}),
    frames_never_queryable: missingFrames,
    flush_interval_ms: 50,
  }),
  upstream_trade_to_queryable: summary(tradeLatencies, 15_000, {
    trades_never_queryable: missingTrades,
    trade_poll_interval_ms: config.ingest.tradesPollIntervalMs,
  }),
  machine: { cpus: os.cpus().length, node: process.version },
  at: new Date().toISOString(),
};
fs.mkdirSync(path.join(here, 'results'), { recursive: true });
fs.writeFileSync(path.join(here, 'results', 'freshness.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
process.exit(0);
