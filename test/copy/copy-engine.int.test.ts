/**
 * The copy engine on the embedded engines: leader fills published to a file log (chain fills and a
 * Data API twin of one of them), the real sink into chDB (market categories), copy subscriptions made
 * through the HTTP API, and the engine deciding into the control store's intents and webhook outbox.
 * Expected sizes and reasons are computed by hand in the comments.
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
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { chainFill, conditionId, marketUpserted, T0, tradeExecuted, txHash, walletAddress } from '../support/events.js';
import { requestJson, waitFor } from '../support/http.js';
import { WebhookSubscriptions } from '../../services/webhooks/subscriptions.js';
import { UrlGuard } from '../../services/webhooks/url-guard.js';
import { loadConfig } from '../../services/config.js';

/** The service's backlog cap per webhook subscription (WEBHOOK_PENDING_PER_SUBSCRIPTION's default). */
const BACKLOG = loadConfig({}).webhooks.pendingPerSubscription;

const LEADER = walletAddress(0xabc);
const MARKET = conditionId(7);
const COPY_EXECUTED_FIELDS = [
  'user_id',
  'copy_subscription_id',
  'leader_wallet',
  'leader_trade_id',
  'market_id',
  'side',
  'outcome',
  'child_size_usdc',
  'leader_size_usdc',
  'clob_order_id',
  'trade_intent_id',
  'status',
  'dry_run',
  'timestamp',
];
const RISK_BLOCKED_FIELDS = [
  'user_id',
  'copy_subscription_id',
  'leader_wallet',
  'market_id',
  'reason',
  'leader_size_usdc',
  'trade_intent_id',
  'timestamp',
];
const ENVELOPE = ['event', 'id', 'delivery_id', 'source'];

let log: EventLog;
let store: AnalyticsStore;
let sink: SinkService;
let api: ApiHarness;
let engine: CopyEngine;
let now = T0 - 1_000_000;

beforeAll(async () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-copy-engine-'));
  log = await openFileEventLog({ directory: path.join(directory, 'log'), schemas: topicSchemas(), fsync: false, pollIntervalMs: 10 });
  await log.createTopics(allTopicSpecs());
  store = await openChdbStore({ path: path.join(directory, 'chdb'), database: 'copy_engine' });
  await migrate(store);
  sink = await startSink(log, store, pino({ level: 'silent' }));
  api = await startApiHarness({ store, env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' }, clock: () => now });
  engine = await startCopyEngine({
    log,
    control: api.control,
    store,
    logger: pino({ level: process.env.DEBUG_COPY ? 'debug' : 'silent' }),
    maxFillAgeMs: 120_000,
    maxPendingPerSubscription: BACKLOG,
    accountEventRetentionMs: 86_400_000,
    clock: () => now,
    fromBeginning: true,
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
    async () => {
      const copied = Object.values(await sinkLag(log, [STREAMS.chainLedger.topic, STREAMS.trades.topic], COPY_GROUP_ID)).every(
        (l) => l === 0,
      );
      const sunk = Object.values(await sinkLag(log)).every((l) => l === 0);
      return copied && sunk;
    },
    20_000,
    'the copy engine and the sink to catch up',
    10,
  );
}

test('leader fills -> intents and outbox deliveries with the spec fields; twins and redeliveries decide once', async () => {
  const publisher = new EventPublisher(log);
  await publisher.publish('markets', [marketUpserted({ market_id: MARKET, category: 'Politics' })]);
  await settled();

  const follower = (await api.admin.createKey('follower', '2')).api_key;
  const other = (await api.admin.createKey('other', '2')).api_key;
  const accountOf = async (key: string) => (await api.accounts.authenticate(key))!.account_id;
  const hooks = new WebhookSubscriptions({ store: api.control, guard: new UrlGuard(['127.0.0.1']), clock: () => now, secretGraceMs: 0 });
  const hook = await hooks.create(await accountOf(follower), { url: 'http://127.0.0.1:9/hook', events: ['copy.executed', 'risk.blocked'] });
  await hooks.create(await accountOf(other), { url: 'http://127.0.0.1:9/other', events: ['copy.executed', 'risk.blocked'] });

  // A: 25 USDC per leader fill, at most 60 USDC of buys a day, dry run.
  const a = await call('POST', '/copy/subscriptions', follower, {
    leader_wallet: LEADER.toUpperCase().replace('0X', '0x'),
    sizing: { rule: 'fixed', usdc: 25 },
    limits: { max_daily_notional_usdc: 60 },
  });
  expect(a.status).toBe(201);
  expect(a.body.data).toMatchObject({ leader_wallet: LEADER, dry_run: true, sizing: { rule: 'fixed', usdc: 25 } });
  // B: half the leader's size, only in sports: everything here is blocked.
  const b = await call('POST', '/copy/subscriptions', follower, {
    leader_wallet: LEADER,
    sizing: { rule: 'proportional', ratio: 0.5 },
    limits: { allowed_categories: ['Sports'] },
    dry_run: false,
  });
  expect(b.status).toBe(201);
  // Bad input names the parameter.
  const bad = await call('POST', '/copy/subscriptions', follower, { leader_wallet: LEADER, sizing: { rule: 'capped', ratio: 0.1 } });
  expect(bad.status).toBe(400);
  expect(bad.body.error).toMatch(/sizing\.cap_usdc/);
  expect(
    (await call('POST', '/copy/subscriptions', follower, { leader_wallet: LEADER, sizing: { rule: 'fixed', usdc: '1.0000001' } })).body
      .error,
  ).toMatch(/sizing\.usdc/);
  // Another account cannot see A.
  expect((await call('GET', `/copy/subscriptions/${a.body.data.id}`, other)).status).toBe(404);

  now = T0 + 10_000;
  const fill = (n: number, side: 'buy' | 'sell', shares: number, price: number, at: number) =>
    chainFill({
      tx_hash: txHash(n),
      wallet: LEADER,
      market_id: MARKET,
      ledger_group: MARKET,
      block_time_ms: at,
      fill: { side, asset_id: '555', shares_micro: String(shares * 1e6), usdc_micro: String(Math.round(shares * price * 1e6)), price },
    });
  await publisher.publish('chainLedger', [
    fill(1, 'buy', 200, 0.5, T0 + 9_000), // A: 25 USDC = 50 shares; B (sports only): category_not_allowed, for every fill
    fill(2, 'buy', 100, 0.4, T0 + 9_000), // A: 25 USDC = 62.5 shares; 50 USDC today
    fill(3, 'buy', 10, 0.6, T0 + 9_000), // A: 50 + 25 > 60 -> max_daily_notional
    fill(4, 'sell', 100, 0.55, T0 + 9_000), // A: 25 USDC of the 112.5 held = 45.454545 shares (sells skip the daily limit)
    fill(5, 'buy', 10, 0.5, T0 - 200_000), // A and B: 210 s old > 120 s -> stale_fill
  ]);
  // The Data API's report of fill 1 (same tx, wallet, token, side, size): no second decision.
  await publisher.publish('trades', [
    tradeExecuted({
      event_id: 'api-twin',
      tx_hash: txHash(1),
      wallet: LEADER,
      market_id: MARKET,
      asset_id: '555',
      side: 'buy',
      size: 200,
      size_usdc: 100,
      price: 0.5,
      timestamp_ms: T0 + 9_000,
    }),
  ]);
  await settled();

  const intents = (await call('GET', `/copy/intents?subscription_id=${a.body.data.id}&limit=50`, follower)).body.data.reverse();
  expect(intents.map((i: any) => [i.status, i.reason, i.child_size_usdc, i.child_shares])).toEqual([
    ['dry_run', null, 25, 50],
    ['dry_run', null, 25, 62.5],
    ['blocked', 'max_daily_notional', null, null],
    ['dry_run', null, 25, 45.454545],
    ['blocked', 'stale_fill', null, null],
  ]);
  expect(intents[0]).toMatchObject({
    leader_origin: 'chain',
    leader_trade_id: `137:${txHash(1)}:0`,
    leader_size_usdc: 100,
    leader_price: 0.5,
  });
  const bIntents = (await call('GET', `/copy/intents?subscription_id=${b.body.data.id}`, follower)).body.data;
  expect(bIntents.map((i: any) => i.reason).sort()).toEqual([
    'category_not_allowed',
    'category_not_allowed',
    'category_not_allowed',
    'category_not_allowed',
    'stale_fill',
  ]);
  expect(engine.stats.duplicates).toBe(2);

  const rows = await api.control.query<{ subscription_id: string; event_type: string; body: string }>(
    'SELECT subscription_id::text AS subscription_id, event_type, body FROM webhook_deliveries ORDER BY seq',
  );
  expect(rows.every((r) => r.subscription_id === hook.id)).toBe(true);
  const bodies = rows.map((r) => JSON.parse(r.body));
  expect(bodies).toHaveLength(10);
  const executed = bodies.filter((x) => x.event === 'copy.executed');
  const blocked = bodies.filter((x) => x.event === 'risk.blocked');
  expect(executed).toHaveLength(3);
  for (const body of executed) expect(Object.keys(body).sort()).toEqual([...ENVELOPE, ...COPY_EXECUTED_FIELDS].sort());
  for (const body of blocked) expect(Object.keys(body).sort()).toEqual([...ENVELOPE, ...RISK_BLOCKED_FIELDS].sort());
  const accountId = Number(await accountOf(follower));
  expect(executed[0]).toMatchObject({
    user_id: accountId,
    copy_subscription_id: a.body.data.id,
    leader_wallet: LEADER,
    leader_trade_id: `137:${txHash(1)}:0`,
    market_id: MARKET,
    side: 'buy',
    outcome: 'YES',
    child_size_usdc: 25,
    leader_size_usdc: 100,
    clob_order_id: '',
    trade_intent_id: intents[0].trade_intent_id,
    status: 'dry_run',
    dry_run: true,
    timestamp: new Date(T0 + 10_000).toISOString(),
    source: 'simulator',
  });
  expect(blocked.find((x) => x.reason === 'max_daily_notional')).toMatchObject({
    leader_size_usdc: 6,
    trade_intent_id: intents[2].trade_intent_id,
  });

  // Disabled subscriptions copy nothing; a redelivered log from the start changes nothing.
  expect((await call('PATCH', `/copy/subscriptions/${b.body.data.id}`, follower, { enabled: false })).body.data.enabled).toBe(false);
  const again = await startCopyEngine({
    log,
    control: api.control,
    store,
    logger: pino({ level: 'silent' }),
    maxFillAgeMs: 120_000,
    maxPendingPerSubscription: BACKLOG,
    accountEventRetentionMs: 86_400_000,
    clock: () => now,
    groupId: 'copy-replay',
    fromBeginning: true,
  });
  await waitFor(async () => again.stats.leader_fills >= 6, 20_000, 'the replay to read every fill', 10);
  await again.stop();
  expect(again.stats.intents).toBe(0);
  expect((await api.control.query('SELECT 1 FROM webhook_deliveries')).length).toBe(10);
}, 90_000);
