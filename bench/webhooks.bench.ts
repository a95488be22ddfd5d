/**
 * Webhooks benchmark, in one process and run:
 *  - reference: HMAC-SHA256 signing alone (the signature over a typical trade.executed body);
 *  - throughput: deliveries/s from the durable outbox (PGlite) to a local 127.0.0.1 receiver, signed,
 *    with every attempt recorded - and its ratio to the signing-alone rate;
 *  - latency: trade produced to the event log -> signals processor -> outbox -> dispatcher -> receiver,
 *    p50/p99 per event.
 * Writes bench/results/webhooks.json.
 *
 *   npx tsx bench/webhooks.bench.ts      (BENCH_DELIVERIES=3000, BENCH_LATENCY_EVENTS=400 by default)
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { Accounts } from '../services/control/accounts.js';
import { migrateControlStore } from '../services/control/migrate.js';
import { openPgliteStore } from '../services/control/pglite-store.js';
import { openFileEventLog } from '../services/eventlog/file-log.js';
import { allTopicSpecs, STREAMS } from '../services/read-models/registry.js';
import { startSignals } from '../services/signals/signals-service.js';
import { tradeExecuted } from '../services/signals/payloads.js';
import { startDispatcher } from '../services/webhooks/dispatcher.js';
import { eventId } from '../services/webhooks/event-types.js';
import { createHttpTransport } from '../services/webhooks/http-transport.js';
import { enqueueDeliveries } from '../services/webhooks/outbox.js';
import { signatureOf } from '../services/webhooks/signature.js';
import { WebhookSubscriptions } from '../services/webhooks/subscriptions.js';
import { UrlGuard } from '../services/webhooks/url-guard.js';
import { syntheticTrades } from './synthetic-trades.js';
import { loadConfig } from '../services/config.js';

/** The service's backlog cap per webhook subscription (WEBHOOK_PENDING_PER_SUBSCRIPTION's default). */
const BACKLOG = loadConfig({}).webhooks.pendingPerSubscription;

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 3_000);
const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 400);
const CONCURRENCY = 16;
const here = path.dirname(fileURLToPath(import.meta.url));
const silent = pino({ level: 'silent' });

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-webhooks-'));
  const control = await openPgliteStore(path.join(dir, 'pglite'));
  await migrateControlStore(control);
  const accountId = (await new Accounts(control).registerAgent('bench')).account_id;
  const guard = new UrlGuard(['127.0.0.1']);

  // The receiver answers 204 at once and notes when each event arrived.
  const arrivals = new Map<string, number>();
  const receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      arrivals.set(JSON.parse(Buffer.concat(chunks).toString()).id, performance.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const subscriptions = new WebhookSubscriptions({ store: control, guard, clock: Date.now, secretGraceMs: 0 });
  const subscription = await subscriptions.create(accountId, { url, events: ['trade.executed'] });

  const trades = syntheticTrades(Math.max(DELIVERIES, LATENCY_EVENTS));
  const bodies = trades.slice(0, DELIVERIES).map((t) => JSON.stringify(tradeExecuted(t)));

  // Reference: the signature alone, over the same bodies.
  const hmacStarted = performance.now();
  let sink = 0;
  const rounds = 10;
  for (let r = 0; r < rounds; r++) for (const body of bodies) sink += signatureOf(subscription.secret, 1_800_000_000 + r, body).length;
  const hmacSeconds = (performance.now() - hmacStarted) / 1000;
  const hmacPerSecond = (bodies.length * rounds) / hmacSeconds;

  // Throughput: DELIVERIES due at once in the outbox, drained by one dispatcher.
  await enqueueDeliveries(
    control,
    trades.slice(0, DELIVERIES).map((t) => {
      const payload = tradeExecuted(t);
      return { subscriptionId: subscription.id, eventId: payload.id, eventType: payload.event, payload };
    }),
    Date.now(),
    BACKLOG,
  );
  const transport = createHttpTransport(guard);
  const policy = { scheduleMs: [0, 1000], jitter: 0.2, throttleMinDelayMs: 1000, retryAfterMaxMs: 1000 };
  let succeeded = 0;
  let allDone: () => void = () => {};
  const drained = new Promise<void>((resolve) => (allDone = resolve));
  const dispatcher = startDispatcher({
    store: control,
    transport: transport.send,
    policy,
    logger: silent,
    timeoutMs: 5_000,
    disableAfterMs: 86_400_000,
    pollIntervalMs: 5,
    concurrency: CONCURRENCY,
    onAttempt: ({ succeeded: ok }) => {
      if (ok && ++succeeded === DELIVERIES) allDone();
    },
  });
  const throughputStarted = performance.now();
  dispatcher.wake();
  await drained;
  const throughputSeconds = (performance.now() - throughputStarted) / 1000;
  const deliveriesPerSecond = DELIVERIES / throughputSeconds;

  // Latency: trades produced to the log one small batch at a time, timed to their arrival.
  arrivals.clear();
  const log = await openFileEventLog({ directory: path.join(dir, 'log') });
  await log.createTopics(allTopicSpecs());
  const signals = await startSignals({
    log,
    control,
    traderContext: async () => ({ trades_24h: 0, volume_24h_usdc: 0, markets_24h: 0, largest_trade_24h_usdc: 0 }),
    largeTradeUsdc: Number.MAX_SAFE_INTEGER,
    maxPendingPerSubscription: BACKLOG,
    priceChangePct: 1000,
    priceWindowMs: 60_000,
    logger: silent,
    onEnqueued: () => dispatcher.wake(),
  });
  const latencyTrades = trades.slice(0, LATENCY_EVENTS).map((t, i) => ({ ...t, event_id: `latency-${i}` }));
  const producedAt = new Map<string, number>();
  for (let i = 0; i < latencyTrades.length; i += 4) {
    const batch = latencyTrades.slice(i, i + 4);
    const at = performance.now();
    await log.produce(
      STREAMS.trades.topic,
      batch.map((t) => ({ key: t.market_id, value: STREAMS.trades.codec.encode(t) })),
    );
    for (const t of batch) producedAt.set(eventId('trade.executed', t.event_id), at);
    await new Promise((r) => setTimeout(r, 10));
  }
  const deadline = Date.now() + 60_000;
  while ([...producedAt.keys()].some((id) => !arrivals.has(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const latencies = [...producedAt]
    .filter(([id]) => arrivals.has(id))
    .map(([id, at]) => arrivals.get(id)! - at)
    .sort((a, b) => a - b);

  await signals.stop();
  await dispatcher.stop();
  transport.close();
  await log.close();
  await control.close();
  receiver.closeAllConnections();
  receiver.close();

  const result = {
    benchmark: 'webhooks: outbox -> signed HTTP deliveries to a local receiver; event -> delivery latency',
    measured_at: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpu_model: os.cpus()[0]?.model.split(' ').slice(0, 2).join(' '),
      memory_gb: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
    },
    reference_hmac_only: {
      signatures: bodies.length * rounds,
      seconds: +hmacSeconds.toFixed(3),
      signatures_per_second: Math.round(hmacPerSecond),
      body_bytes_avg: Math.round(bodies.reduce((n, b) => n + b.length, 0) / bodies.length),
    },
    throughput: {
      deliveries: DELIVERIES,
      concurrency: CONCURRENCY,
      seconds: +throughputSeconds.toFixed(3),
      deliveries_per_second: Math.round(deliveriesPerSecond),
    },
    ratio_deliveries_to_hmac: +(deliveriesPerSecond / hmacPerSecond).toFixed(5),
    hmac_share_of_delivery_cost: +(1 / hmacPerSecond / (1 / deliveriesPerSecond)).toFixed(5),
    latency_event_to_delivery_ms: {
      events: LATENCY_EVENTS,
      delivered: latencies.length,
      p50: +percentile(latencies, 50).toFixed(1),
      p99: +percentile(latencies, 99).toFixed(1),
      max: +latencies[latencies.length - 1]!.toFixed(1),
    },
    checksum: sink > 0,
  };
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  fs.writeFileSync(path.join(here, 'results', 'webhooks.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
}

await main();
