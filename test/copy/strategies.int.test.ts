/**
 * Saved strategies: created through the API (backtested over the 30 days before: edge and confidence by
 * hand below), then evaluated live by the copy engine on trades from the log, emitting strategy.signal
 * into the owner's webhook outbox with exactly the spec's fields.
 *
 * History in market X: YES trades at 0.40 then 0.50 ten minutes later (+25 %, over the 20 % threshold);
 * X resolves YES an hour later. The backtest buys 100 USDC of YES after the move with no book indexed:
 * 0.50 + 0.005 + 100 x 0.000001 = 0.5051, 197.980597 shares (100 / 0.5051 rounded down), notional 100;
 * the resolution pays 197.980597: net 97.980597 on 100 invested -> edge 0.979805 (truncated to 6 decimals),
 * one position closed and won -> confidence 1.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { openChdbStore } from '../../services/analytics/clickhouse-store.js';
import { migrate } from '../../services/analytics/migrate.js';
import { type CopyEngine, COPY_GROUP_ID, startCopyEngine } from '../../services/copy/copy-engine.js';
import { EventPublisher } from '../../services/events/publisher.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { allTopicSpecs, STREAMS, topicSchemas } from '../../services/read-models/registry.js';
import { sinkLag, type SinkService, startSink } from '../../services/sink/sink-service.js';
import { WebhookSubscriptions } from '../../services/webhooks/subscriptions.js';
import { UrlGuard } from '../../services/webhooks/url-guard.js';
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { conditionId, marketUpserted, T0, tradeExecuted } from '../support/events.js';
import { requestJson, waitFor } from '../support/http.js';
import { messagesOf, openSse, subscribed } from '../support/stream-clients.js';
import { loadConfig } from '../../services/config.js';

/** The service's backlog cap per webhook subscription (WEBHOOK_PENDING_PER_SUBSCRIPTION's default). */
const BACKLOG = loadConfig({}).webhooks.pendingPerSubscription;

const X = conditionId(0x51);
const Y = conditionId(0x52);
const HOUR = 3_600_000;
const SPEC_FIELDS = [
  'signal_id',
  'signal_type',
  'strategy_id',
  'strategy_name',
  'market_id',
  'market_title',
  'side',
  'entry_price',
  'confidence',
  'edge',
  'emitted_at',
];

let log: EventLog;
let store: AnalyticsStore;
let sink: SinkService;
let api: ApiHarness;
let engine: CopyEngine;
let now = T0 + 2 * HOUR;

beforeAll(async () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-strategies-'));
  log = await openFileEventLog({ directory: path.join(directory, 'log'), schemas: topicSchemas(), fsync: false, pollIntervalMs: 10 });
  await log.createTopics(allTopicSpecs());
  store = await openChdbStore({ path: path.join(directory, 'chdb'), database: 'strategies' });
  await migrate(store);
  sink = await startSink(log, store, pino({ level: 'silent' }));
  api = await startApiHarness({ store, clock: () => now, log, env: { STREAM_HEARTBEAT_MS: '300', STREAM_POLL_MS: '20' } });
  engine = await startCopyEngine({
    log,
    control: api.control,
    store,
    logger: pino({ level: 'silent' }),
    maxFillAgeMs: 120_000,
    maxPendingPerSubscription: BACKLOG,
    accountEventRetentionMs: 86_400_000,
    clock: () => now,
  });
}, 60_000);

afterAll(async () => {
  await engine?.stop();
  await api?.close();
  await sink?.stop();
  await log?.close();
  await store?.close();
});

const call = (method: string, route: string, key: string, body?: unknown) => requestJson(method, `${api.base}/v1${route}`, key, body);

async function settled() {
  await waitFor(
    async () =>
      Object.values(await sinkLag(log)).every((l) => l === 0) &&
      Object.values(await sinkLag(log, [STREAMS.trades.topic, STREAMS.chainLedger.topic], COPY_GROUP_ID)).every((l) => l === 0),
    20_000,
    'the sink and the copy engine to catch up',
    10,
  );
}

const yes = (id: string, market: string, price: number, at: number) =>
  tradeExecuted({
    event_id: id,
    market_id: market,
    market_title: `Market ${market.slice(-2)}`,
    asset_id: `${market.slice(-2)}1`,
    price,
    yes_price: price,
    size: 100,
    size_usdc: 100 * price,
    timestamp_ms: at,
  });

test('a saved strategy is backtested when saved and fires strategy.signal on a live move', async () => {
  const publisher = new EventPublisher(log);
  await publisher.publish('markets', [
    marketUpserted({
      market_id: X,
      title: 'Market 51',
      outcome_token_ids: ['511', '512'],
      status: 'resolved',
      resolved_outcome: 'Yes',
      outcome_prices: [1, 0],
      resolved_at_ms: T0 + HOUR,
    }),
    marketUpserted({ market_id: Y, title: 'Market 52', outcome_token_ids: ['521', '522'] }),
  ]);
  await publisher.publish('trades', [yes('h1', X, 0.4, T0), yes('h2', X, 0.5, T0 + 10 * 60_000)]);
  await settled();

  const key = (await api.admin.createKey('strategist', '2')).api_key;
  const account = (await api.accounts.authenticate(key))!.account_id;
  const hook = await new WebhookSubscriptions({
    store: api.control,
    guard: new UrlGuard(['127.0.0.1']),
    clock: () => now,
    secretGraceMs: 0,
  }).create(account, {
    url: 'http://127.0.0.1:9/signals',
    events: ['strategy.signal'],
  });
  const created = await call('POST', '/strategies', key, {
    name: 'Momentum 20',
    market_ids: [X, Y],
    change_pct: 20,
    window_minutes: 30,
    order_usdc: 100,
  });
  expect(created.status).toBe(201);
  expect(created.body.data).toMatchObject({
    name: 'Momentum 20',
    signal_type: 'strategy_lab',
    kind: 'price_threshold',
    config: { market_ids: [X, Y], change_pct: 20, window_minutes: 30, mode: 'momentum', hold_hours: null, order_usdc: 100 },
    edge: 0.979805,
    confidence: 1,
    enabled: true,
  });
  expect(created.body.data.backtest).toMatchObject({ trades: 1, won: 1, lost: 0 });
  expect((await call('POST', '/strategies', key, { name: 'x', market_ids: ['0x12'] })).status).toBe(400);

  // The `strategy` stream channel: the owner's subscriber gets the signal as the webhook payload; another account's nothing.
  const stream = await openSse(api.base, 'channel=strategy', key);
  const strangerKey = (await api.admin.createKey('stranger', '2')).api_key;
  const stranger = await openSse(api.base, 'channel=strategy', strangerKey);
  const ofOtherStrategy = await openSse(api.base, `channel=strategy&strategy_id=${created.body.data.id + 1}`, key);
  await Promise.all([subscribed(stream), subscribed(stranger), subscribed(ofOtherStrategy)]);

  // Live: Y's YES goes 0.30 -> 0.25 (-16.7 %, no signal) -> 0.39 (+30 % from 0.30: a signal, momentum buys).
  now = T0 + 3 * HOUR;
  await publisher.publish('trades', [yes('y1', Y, 0.3, now + 1_000), yes('y2', Y, 0.25, now + 2_000), yes('y3', Y, 0.39, now + 3_000)]);
  await settled();
  const rows = await api.control.query<{ subscription_id: string; body: string }>(
    "SELECT subscription_id::text AS subscription_id, body FROM webhook_deliveries WHERE event_type = 'strategy.signal'",
  );
  expect(rows).toHaveLength(1);
  expect(rows[0]!.subscription_id).toBe(hook.id);
  const body = JSON.parse(rows[0]!.body);
  expect(Object.keys(body).sort()).toEqual(['event', 'id', 'delivery_id', 'source', ...SPEC_FIELDS].sort());
  expect(body).toMatchObject({
    event: 'strategy.signal',
    signal_type: 'strategy_lab',
    strategy_id: created.body.data.id,
    strategy_name: 'Momentum 20',
    market_id: Y,
    market_title: 'Market 52',
    side: 'buy',
    entry_price: 0.39,
    confidence: 1,
    edge: 0.979805,
    emitted_at: new Date(now).toISOString(),
    source: 'simulator',
  });
  expect(body.signal_id).toMatch(/^sig_[0-9a-f]{32}$/);
  const { delivery_id: _, ...payload } = body;
  await waitFor(async () => messagesOf(stream, 'strategy_signal').length > 0 || null, 20_000, 'the streamed signal', 20);
  expect(messagesOf(stream, 'strategy_signal').map((m) => m.data)).toEqual([payload]);

  // Disabled: no further signals.
  expect((await call('PATCH', `/strategies/${created.body.data.id}`, key, { enabled: false })).body.data).toMatchObject({
    enabled: false,
    edge: 0.979805,
  });
  await publisher.publish('trades', [yes('y4', Y, 0.2, now + 4_000), yes('y5', Y, 0.5, now + 5_000)]);
  await settled();
  expect((await api.control.query("SELECT 1 FROM webhook_deliveries WHERE event_type = 'strategy.signal'")).length).toBe(1);
  // Positions are the account feed's, shared by every account: a heartbeat at the signal's cursor shows the
  // stream read past it, and the other account and the other strategy id got nothing.
  const past = messagesOf(stream, 'strategy_signal')[0].cursor;
  const readPast = (client: { messages: any[] }) => messagesOf(client, 'heartbeat').some((m) => m.cursor === past);
  await waitFor(async () => (readPast(stranger) && readPast(ofOtherStrategy)) || null, 20_000, 'heartbeats past the signal', 20);
  expect(messagesOf(stranger, 'strategy_signal')).toEqual([]);
  expect(messagesOf(ofOtherStrategy, 'strategy_signal')).toEqual([]);
  expect(messagesOf(stream, 'strategy_signal')).toHaveLength(1);
  for (const client of [stream, stranger, ofOtherStrategy]) client.close();
}, 90_000);
