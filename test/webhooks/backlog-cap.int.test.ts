/**
 * Every producer of webhook deliveries goes through the subscription's backlog cap and counts what it
 * drops (issue 59 M2): with the cap at 5, 25 `/webhooks/{id}/test` calls used to queue 25 deliveries
 * and the copy engine's copy.executed / risk.blocked thousands, none counted as dropped.
 * No dispatcher runs here, so every queued delivery stays pending.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { type CopyEngine, COPY_GROUP_ID, startCopyEngine } from '../../services/copy/copy-engine.js';
import { EventPublisher } from '../../services/events/publisher.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { allTopicSpecs, STREAMS, topicSchemas } from '../../services/read-models/registry.js';
import { sinkLag } from '../../services/sink/sink-service.js';
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { chainFill, conditionId, T0, txHash, walletAddress } from '../support/events.js';
import { requestJson, waitFor } from '../support/http.js';

const CAP = 5;
let log: EventLog;
let api: ApiHarness;
let engine: CopyEngine;
let now = T0;

beforeAll(async () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-backlog-cap-'));
  log = await openFileEventLog({ directory: path.join(directory, 'log'), schemas: topicSchemas(), fsync: false, pollIntervalMs: 10 });
  await log.createTopics(allTopicSpecs());
  api = await startApiHarness({
    webhooks: true,
    env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_PENDING_PER_SUBSCRIPTION: String(CAP) },
    clock: () => now,
  });
  engine = await startCopyEngine({
    log,
    control: api.control,
    store: api.store,
    logger: pino({ level: 'silent' }),
    maxFillAgeMs: 120_000,
    maxPendingPerSubscription: api.config.webhooks.pendingPerSubscription,
    accountEventRetentionMs: api.config.streams.accountEventRetentionMs,
    clock: () => now,
    fromBeginning: true,
  });
}, 60_000);

afterAll(async () => {
  await engine?.stop();
  await api?.close();
  await log?.close();
});

const call = (method: string, route: string, key: string, body?: unknown) => requestJson(method, `${api.base}/v1${route}`, key, body);

async function backlogOf(subscriptionId: string) {
  const [row] = await api.control.query<{ pending: string; dropped: string; counter: number }>(
    `SELECT (SELECT count(*) FROM webhook_deliveries d WHERE d.subscription_id = s.id AND d.status = 'pending')::text AS pending,
            s.dropped_events::text AS dropped, s.pending_deliveries AS counter
       FROM webhook_subscriptions s WHERE s.id = $1`,
    [subscriptionId],
  );
  return { pending: Number(row!.pending), dropped: Number(row!.dropped), counter: Number(row!.counter) };
}

test('test events past the backlog are refused with 409 and counted as dropped; so is a redelivery', async () => {
  const key = (await api.admin.createKey('tester', '1')).api_key;
  const hook = (await call('POST', '/webhooks', key, { url: 'http://127.0.0.1:9/hook', events: ['trade.executed'] })).body.data;
  const statuses: number[] = [];
  // In parallel: the cap holds under concurrent producers too.
  const responses = await Promise.all(Array.from({ length: 25 }, () => call('POST', `/webhooks/${hook.id}/test`, key)));
  for (const response of responses) statuses.push(response.status);
  expect(statuses.filter((s) => s === 202)).toHaveLength(CAP);
  expect(statuses.filter((s) => s === 409)).toHaveLength(25 - CAP);
  const refused = responses.find((r) => r.status === 409)!;
  expect(refused.body).toMatchObject({ code: 'CONFLICT', reason: 'backlog_full' });
  expect(refused.body.error).toMatch(/WEBHOOK_PENDING_PER_SUBSCRIPTION/);
  expect(await backlogOf(hook.id)).toEqual({ pending: CAP, dropped: 25 - CAP, counter: CAP });
  const shown = (await call('GET', `/webhooks/${hook.id}`, key)).body.data;
  expect(shown.dropped_events).toBe(25 - CAP);

  // A finished delivery made pending again takes a place in the backlog too.
  const [first] = await api.control.query<{ id: string }>(
    `UPDATE webhook_deliveries SET status = 'failed' WHERE seq = (SELECT min(seq) FROM webhook_deliveries WHERE subscription_id = $1) RETURNING id`,
    [hook.id],
  );
  await api.control.query('UPDATE webhook_subscriptions SET pending_deliveries = pending_deliveries - 1 WHERE id = $1', [hook.id]);
  expect((await call('POST', `/webhooks/${hook.id}/test`, key)).status).toBe(202);
  const redelivered = await call('POST', `/webhooks/${hook.id}/deliveries/${first!.id}/redeliver`, key);
  expect(redelivered.status).toBe(409);
  expect(redelivered.body.reason).toBe('backlog_full');
  expect(await backlogOf(hook.id)).toEqual({ pending: CAP, dropped: 25 - CAP + 1, counter: CAP });
});

test("the copy engine's deliveries stop at the backlog; the rest are counted as dropped", async () => {
  const leader = walletAddress(0xcab);
  const market = conditionId(77);
  const follower = (await api.admin.createKey('follower', '2')).api_key;
  const hook = (await call('POST', '/webhooks', follower, { url: 'http://127.0.0.1:9/copy', events: ['copy.executed', 'risk.blocked'] }))
    .body.data;
  const copy = await call('POST', '/copy/subscriptions', follower, { leader_wallet: leader, sizing: { rule: 'fixed', usdc: '1' } });
  expect(copy.status).toBe(201);
  // Webhook subscriptions take events logged after their creation, on the wall clock.
  const loggedAt = Date.now() + 1_000;
  now = loggedAt + 1_000;
  const fills = Array.from({ length: 40 }, (_, i) =>
    chainFill({
      tx_hash: txHash(1_000 + i),
      wallet: leader,
      market_id: market,
      ledger_group: market,
      block_time_ms: loggedAt,
      fill: { side: 'buy', asset_id: '777', shares_micro: '2000000', usdc_micro: '1000000', price: 0.5 },
    }),
  );
  await new EventPublisher(log).publish('chainLedger', fills);
  await waitFor(
    async () => Object.values(await sinkLag(log, [STREAMS.chainLedger.topic], COPY_GROUP_ID)).every((lag) => lag === 0),
    20_000,
    'the copy engine to decide every fill',
    10,
  );
  // Each fill is decided (an intent each) and would send one delivery: 5 are queued, 35 dropped.
  expect(engine.stats.intents).toBe(40);
  expect(await backlogOf(hook.id)).toEqual({ pending: CAP, dropped: 40 - CAP, counter: CAP });
  expect(engine.stats.dropped).toBe(40 - CAP);
});
