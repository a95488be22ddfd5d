/**
 * Live streams benchmark: trade appended to the file log (produce resolved) -> WebSocket frame
 * received by every subscriber of the unfiltered `trades` channel, p50/p99 over all (event,
 * subscriber) pairs, with 1, 100, 1,000 and BENCH_STREAM_MAX subscribers, and the API process's RSS
 * growth per connection. Clients run in the same process as the API (one machine, as the issue's goal
 * states), so their parsing competes with the server for the cores.
 *
 * Baseline, in the same run and at each subscriber count: a bare `ws` server (no log, no
 * subscription, no auth) that broadcasts the same frames (a tapeline trade message, its trade_id
 * renewed per event) to the same number of clients at the same pace. Each run reports
 * p99 / baseline p99 and frames/s / baseline frames/s.
 * Writes bench/results/stream.json.
 *
 * Stalled readers (the issue's abuse proof, measured as latency): CONTROL_SUBSCRIBERS live subscribers,
 * idle and then while STALLED_KEYS keys x 10 connections each replay `trades`, `fills` and `signals`
 * from the first of STALLED_HISTORY trades into sockets they never read (until slow_consumer drops
 * them): the control subscribers' p99 under the flood as a ratio to their idle p99 (goal: within 2x).
 *
 *   npm run bench:stream                    (BENCH_STREAM_MAX=2000, BENCH_STREAM_EVENTS=200; STREAM_POLL_MS default 100)
 *   STREAM_POLL_MS=20 npm run bench:stream  (each STREAM_POLL_MS is kept as its own configuration)
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket, { WebSocketServer } from 'ws';
import { EventPublisher } from '../services/events/publisher.js';
import { openFileEventLog } from '../services/eventlog/file-log.js';
import { allTopicSpecs, topicSchemas } from '../services/read-models/registry.js';
import { type ApiHarness, startApiHarness } from '../test/support/api-harness.js';
import { CHANNELS } from '../services/streams/channels.js';
import { encodeCursor } from '../services/streams/cursor.js';
import { conditionId, T0, tradeExecuted, walletAddress } from '../test/support/events.js';

const MAX = Number(process.env.BENCH_STREAM_MAX ?? 2000);
const EVENTS = Number(process.env.BENCH_STREAM_EVENTS ?? 200);
const POLL_MS = process.env.STREAM_POLL_MS ?? '100';
const EVENT_GAP_MS = 10;
const CONNECT_BATCH = 50;
/** A run whose frames have not all arrived by then reports what did (frames_received < frames_expected). */
const DRAIN_DEADLINE_MS = 60_000;
const CONTROL_SUBSCRIBERS = 10;
const STALLED_KEYS = 10;
const STALLED_HISTORY = 50_000;
/** Events per stalled-readers measurement: about 12 s, past STREAM_SLOW_CONSUMER_MS, so the drops fall inside it. */
const STALLED_EVENTS = 1_000;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server under test: where clients connect, and how one event is produced (resolving when it is handed over). */
interface Target {
  url: string;
  headers: Record<string, string>;
  /** Produces event n; resolves with the trade_id its frames carry. */
  produce(n: number): Promise<string>;
}

interface Run {
  load_average_1m: number;
  subscribers: number;
  events: number;
  frames_expected: number;
  frames_received: number;
  latency_ms: { p50: number; p99: number; max: number };
  frames_per_second: number;
  rss_per_connection_kb: number;
}

/** Connects `subscribers` clients that subscribe to trades, produces EVENTS events EVENT_GAP_MS apart, measures. */
async function measure(target: Target, subscribers: number, onFrame?: (text: string) => void, events = EVENTS): Promise<Run> {
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  let received = 0;
  const clients: WebSocket[] = [];
  const connect = async (): Promise<WebSocket> => {
    const ws = new WebSocket(target.url, { headers: target.headers });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const ready = new Promise<void>((resolve) => {
      ws.on('message', (data) => {
        const text = data.toString();
        const message = JSON.parse(text);
        if (message.type === 'subscribed') resolve();
        if (message.type !== 'trade') return;
        onFrame?.(text);
        const at = sentAt.get(message.data.trade_id);
        if (at !== undefined) latencies.push(performance.now() - at);
        received++;
      });
    });
    ws.send(JSON.stringify({ type: 'subscribe', channel: 'trades' }));
    await ready;
    return ws;
  };
  // Connected CONNECT_BATCH at a time: one by one, 2,000 connections took minutes on a loaded machine.
  for (let first = 0; first < subscribers; first += CONNECT_BATCH) {
    const batch = Array.from({ length: Math.min(CONNECT_BATCH, subscribers - first) }, () => connect());
    clients.push(...(await Promise.all(batch)));
  }
  const rssConnected = process.memoryUsage().rss;
  const started = performance.now();
  for (let i = 0; i < events; i++) {
    const id = await target.produce(++sequence);
    sentAt.set(id, performance.now());
    await sleep(EVENT_GAP_MS);
  }
  const deadline = Date.now() + DRAIN_DEADLINE_MS;
  while (received < events * subscribers && Date.now() < deadline) await sleep(20);
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  for (const ws of clients) ws.close();
  await sleep(500);
  return {
    subscribers,
    events,
    frames_expected: events * subscribers,
    frames_received: received,
    latency_ms: { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)), max: round(latencies.at(-1)!) },
    frames_per_second: Math.round(received / seconds),
    rss_per_connection_kb: round((rssConnected - rssBefore) / subscribers / 1024),
    // Other work on the machine moves both this and the baseline; the ratio is the figure to compare.
    load_average_1m: round(os.loadavg()[0]!),
  };
}

let sequence = 0;

/**
 * The bare baseline: a `ws` server that answers a subscribe with `subscribed` and broadcasts each
 * event as one frame, the template frame with the event's trade_id, serialised once for all clients.
 */
async function bareServer(template: string): Promise<{ target: Target; close: () => Promise<void> }> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const subscribed = new Set<WebSocket>();
  server.on('connection', (ws) => {
    ws.on('message', () => {
      ws.send(JSON.stringify({ type: 'subscribed', subscription: 's', channel: 'trades', cursor: 'bare' }));
      subscribed.add(ws);
    });
    ws.on('close', () => subscribed.delete(ws));
  });
  const frame = JSON.parse(template) as { data: { trade_id: string } };
  return {
    target: {
      url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
      headers: {},
      async produce(n) {
        frame.data.trade_id = `bare-${n}`;
        const text = JSON.stringify(frame);
        for (const ws of subscribed) ws.send(text);
        return frame.data.trade_id;
      },
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-stream-'));
  const log = await openFileEventLog({ directory: path.join(dir, 'log'), schemas: topicSchemas() });
  await log.createTopics(allTopicSpecs());
  const publisher = new EventPublisher(log);
  const api = await startApiHarness({
    chdbPath: path.join(dir, 'chdb'),
    log,
    env: {
      STREAM_POLL_MS: POLL_MS,
      STREAM_CONNECTIONS_PER_KEY: String(MAX + 10),
      STREAM_SUBSCRIPTIONS_PER_KEY: String(MAX + 10),
      VALIDATE_RESPONSES: 'false',
    },
  });
  const key = (await api.admin.createKey('bench', '2')).api_key;
  const tapeline: Target = {
    url: `${api.base.replace('http', 'ws')}/v1/stream`,
    headers: { authorization: `Bearer ${key}` },
    async produce(n) {
      const trade = tradeExecuted({
        event_id: `bench-${n}`,
        market_id: conditionId((n % 50) + 1),
        wallet: walletAddress((n % 9) + 1),
        timestamp_ms: T0 + n,
      });
      await publisher.publish('trades', [trade]);
      return trade.event_id;
    },
  };
  let template: string | undefined;
  const runs = [];
  for (const subscribers of [...new Set([1, Math.min(100, MAX), Math.min(1000, MAX), MAX])]) {
    const run = await measure(tapeline, subscribers, (text) => (template ??= text));
    const bare = await bareServer(template!);
    const baseline = await measure(bare.target, subscribers);
    await bare.close();
    const result = {
      ...run,
      baseline: {
        latency_ms: baseline.latency_ms,
        frames_per_second: baseline.frames_per_second,
        frames_received: baseline.frames_received,
      },
      ratio_to_baseline: {
        p99: round(run.latency_ms.p99 / baseline.latency_ms.p99),
        p50: round(run.latency_ms.p50 / baseline.latency_ms.p50),
        frames_per_second: round(run.frames_per_second / baseline.frames_per_second),
      },
    };
    console.log(JSON.stringify(result));
    runs.push(result);
  }
  const stalled = await stalledReaders(api, publisher, tapeline);
  console.log(JSON.stringify(stalled));
  const settings = {
    STREAM_POLL_MS: Number(POLL_MS),
    event_gap_ms: EVENT_GAP_MS,
    log: 'file log, fsync on',
    clients: 'same process as the API',
  };
  const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'stream.json');
  // One configuration per STREAM_POLL_MS: a run replaces its own and keeps the others.
  const previous = fs.existsSync(out)
    ? (JSON.parse(fs.readFileSync(out, 'utf8')) as { configurations?: Array<{ settings: typeof settings }> })
    : {};
  const others = (previous.configurations ?? []).filter((c) => c.settings.STREAM_POLL_MS !== settings.STREAM_POLL_MS);
  const result = {
    benchmark: 'stream',
    at: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version },
    note: 'latency: produce resolved -> frame parsed by the client. The producer shares the process (the one-process stack), so the file log wakes the streams on each append; a reader in another process waits for its next STREAM_POLL_MS look instead. rss_per_connection_kb includes the client side of each socket (same process); in the 1-subscriber run it is the process warming up. baseline: a bare ws server in the same process broadcasting the same frame (serialised once) to the same number of clients at the same pace; ratio_to_baseline = tapeline / baseline.',
    configurations: [...others, { settings, runs, stalled_readers: stalled }].sort(
      (a, b) => b.settings.STREAM_POLL_MS - a.settings.STREAM_POLL_MS,
    ),
  };
  fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`wrote ${out}`);
  await api.close();
  await log.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Control subscribers idle, then while STALLED_KEYS x 10 connections replay three channels from the
 * log's start (STALLED_HISTORY trades in it) and never read: their p99 under the flood against idle.
 */
async function stalledReaders(api: ApiHarness, publisher: EventPublisher, control: Target) {
  for (let first = 0; first < STALLED_HISTORY; first += 1_000) {
    const batch = Array.from({ length: 1_000 }, (_, i) =>
      tradeExecuted({ event_id: `history-${first + i}`, market_id: conditionId(((first + i) % 50) + 1), timestamp_ms: T0 + first + i }),
    );
    await publisher.publish('trades', batch);
  }
  const idle = await measure(control, CONTROL_SUBSCRIBERS, undefined, STALLED_EVENTS);
  const slowBefore = await slowConsumers(api);
  const fromStart = (channel: string) =>
    encodeCursor(new Map(CHANNELS[channel]!.streams.map((stream) => [stream.topic, Array(stream.partitions).fill(0)])));
  const sockets: WebSocket[] = [];
  for (let k = 0; k < STALLED_KEYS; k++) {
    const key = (await api.admin.createKey(`stalled-${k}`, '2')).api_key;
    for (let c = 0; c < 10; c++) {
      const ws = new WebSocket(control.url, { headers: { authorization: `Bearer ${key}` } });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      for (const channel of ['trades', 'fills', 'signals'])
        ws.send(JSON.stringify({ type: 'subscribe', channel, subscription: channel, cursor: fromStart(channel) }));
      // Never read again: the kernel's buffers fill, then the server's, until slow_consumer.
      (ws as unknown as { _socket: { pause(): void } })._socket.pause();
      sockets.push(ws);
    }
  }
  const loaded = await measure(control, CONTROL_SUBSCRIBERS, undefined, STALLED_EVENTS);
  const dropped = (await slowConsumers(api)) - slowBefore;
  for (const ws of sockets) ws.terminate();
  return {
    control_subscribers: CONTROL_SUBSCRIBERS,
    stalled_connections: sockets.length,
    history_trades: STALLED_HISTORY,
    slow_consumers_dropped_during_run: dropped,
    idle: { latency_ms: idle.latency_ms, frames_received: idle.frames_received },
    stalled: { latency_ms: loaded.latency_ms, frames_received: loaded.frames_received },
    ratio_to_idle: { p50: round(loaded.latency_ms.p50 / idle.latency_ms.p50), p99: round(loaded.latency_ms.p99 / idle.latency_ms.p99) },
    load_average_1m: loaded.load_average_1m,
  };
}

async function slowConsumers(api: ApiHarness): Promise<number> {
  const family = (await api.api.metrics.collect()).find((f) => f.name === 'tapeline_stream_slow_consumers_total');
  return family?.samples[0]?.value ?? 0;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

await main();
process.exit(0);
