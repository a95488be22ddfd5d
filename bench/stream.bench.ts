/**
 * Live streams benchmark: trade appended to the file log (produce resolved) -> WebSocket frame
 * received by every subscriber of the unfiltered `trades` channel, p50/p99 over all (event,
 * subscriber) pairs, with 1, 100 and BENCH_STREAM_MAX subscribers, and the API process's RSS growth
 * per connection. Clients run in the same process as the API (one machine, as the goal
 * states), so their parsing competes with the server for the cores.
 * Writes bench/results/stream.json.
 *
 *   npm run bench:stream                    (BENCH_STREAM_MAX=1000, BENCH_STREAM_EVENTS=200; STREAM_POLL_MS default 100)
 *   STREAM_POLL_MS=20 npm run bench:stream  (each STREAM_POLL_MS is kept as its own configuration)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { EventPublisher } from '../services/events/publisher.js';
import { openFileEventLog } from '../services/eventlog/file-log.js';
import { allTopicSpecs, topicSchemas } from '../services/read-models/registry.js';
import { startApiHarness } from '../test/support/api-harness.js';
import { conditionId, T0, tradeExecuted, walletAddress } from '../test/support/events.js';

const MAX = Number(process.env.BENCH_STREAM_MAX ?? 1000);
const EVENTS = Number(process.env.BENCH_STREAM_EVENTS ?? 200);
const POLL_MS = process.env.STREAM_POLL_MS ?? '100';
const EVENT_GAP_MS = 10;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  const url = `${api.base.replace('http', 'ws')}/v1/stream`;
  let sequence = 0;
  const runs = [];
  for (const subscribers of [...new Set([1, Math.min(100, MAX), MAX])]) {
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    let received = 0;
    const clients: WebSocket[] = [];
    for (let i = 0; i < subscribers; i++) {
      const ws = new WebSocket(url, { headers: { authorization: `Bearer ${key}` } });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      const ready = new Promise<void>((resolve) => {
        ws.on('message', (data) => {
          const message = JSON.parse(data.toString());
          if (message.type === 'subscribed') resolve();
          if (message.type !== 'trade') return;
          const at = sentAt.get(message.data.trade_id);
          if (at !== undefined) latencies.push(performance.now() - at);
          received++;
        });
      });
      ws.send(JSON.stringify({ type: 'subscribe', channel: 'trades' }));
      await ready;
      clients.push(ws);
    }
    const rssConnected = process.memoryUsage().rss;
    const started = performance.now();
    for (let i = 0; i < EVENTS; i++) {
      const n = ++sequence;
      const trade = tradeExecuted({
        event_id: `bench-${n}`,
        market_id: conditionId((n % 50) + 1),
        wallet: walletAddress((n % 9) + 1),
        timestamp_ms: T0 + n,
      });
      await publisher.publish('trades', [trade]);
      sentAt.set(trade.event_id, performance.now());
      await sleep(EVENT_GAP_MS);
    }
    const deadline = Date.now() + 60_000;
    while (received < EVENTS * subscribers && Date.now() < deadline) await sleep(20);
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const run = {
      subscribers,
      events: EVENTS,
      frames_expected: EVENTS * subscribers,
      frames_received: received,
      latency_ms: { p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)), max: round(latencies.at(-1)!) },
      frames_per_second: Math.round(received / seconds),
      rss_per_connection_kb: round((rssConnected - rssBefore) / subscribers / 1024),
    };
    console.log(JSON.stringify(run));
    runs.push(run);
    for (const ws of clients) ws.close();
    await sleep(500);
  }
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
    note: 'latency: produce resolved -> frame parsed by the client. The producer shares the process (the one-process stack), so the file log wakes the streams on each append; a reader in another process waits for its next STREAM_POLL_MS look instead. rss_per_connection_kb includes the client side of each socket (same process); in the 1-subscriber run it is the process warming up. Not measured yet: the ratio to a bare ws server, 2,000 subscribers.',
    configurations: [...others, { settings, runs }].sort((a, b) => b.settings.STREAM_POLL_MS - a.settings.STREAM_POLL_MS),
  };
  fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`wrote ${out}`);
  await api.close();
  await log.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

await main();
process.exit(0);
