/**
 * The dispatcher over a real PGlite outbox and real HTTP to a scripted 127.0.0.1 receiver: success,
 * 500 until the schedule runs out, a hanging receiver, 429 with Retry-After, 410 Gone, a redirect,
 * the connect-time SSRF guard, sustained failure and secret rotation. The retry schedule is shrunk
 * to milliseconds through the same policy object production reads from config.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { verifyWebhook } from '../../clients/webhooks/verify.js';
import { Accounts } from '../../services/control/accounts.js';
import { migrateControlStore } from '../../services/control/migrate.js';
import { openPgliteStore } from '../../services/control/pglite-store.js';
import type { ControlStore } from '../../services/ports/control-store.js';
import { startDispatcher, type Dispatcher, type DispatcherOptions } from '../../services/webhooks/dispatcher.js';
import { eventId } from '../../services/webhooks/event-types.js';
import { createHttpTransport, type HttpTransport } from '../../services/webhooks/http-transport.js';
import { claimDue, enqueueDeliveries } from '../../services/webhooks/outbox.js';
import { WebhookSubscriptions, type Subscription } from '../../services/webhooks/subscriptions.js';
import { UrlGuard } from '../../services/webhooks/url-guard.js';
import { waitFor } from '../support/http.js';
import { startReceiver, type Receiver } from './receiver.js';
import { loadConfig } from '../../services/config.js';

/** The service's backlog cap per webhook subscription (WEBHOOK_PENDING_PER_SUBSCRIPTION's default). */
const BACKLOG = loadConfig({}).webhooks.pendingPerSubscription;

const silent = pino({ level: 'silent' });
const SCHEDULE = [0, 30, 30, 30];

let control: ControlStore;
let receiver: Receiver;
let subscriptions: WebhookSubscriptions;
let accountId: string;
const running: Array<{ dispatcher: Dispatcher; transport: HttpTransport }> = [];

beforeAll(async () => {
  control = await openPgliteStore(fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-dispatch-')));
  await migrateControlStore(control);
  accountId = (await new Accounts(control).registerAgent('dispatch-test')).account_id;
  receiver = await startReceiver();
  subscriptions = new WebhookSubscriptions({ store: control, guard: new UrlGuard(['127.0.0.1']), clock: Date.now, secretGraceMs: 60_000 });
});

// One dispatcher per test, so each test's policy is the only one acting on the outbox.
afterEach(async () => {
  for (const { dispatcher, transport } of running.splice(0)) {
    await dispatcher.stop();
    transport.close();
  }
});

afterAll(async () => {
  await receiver.close();
  await control.close();
});

function start(overrides: Partial<DispatcherOptions> = {}, allowedHosts = ['127.0.0.1']): Dispatcher {
  const transport = createHttpTransport(new UrlGuard(allowedHosts));
  const dispatcher = startDispatcher({
    store: control,
    transport: transport.send,
    policy: { scheduleMs: SCHEDULE, jitter: 0.2, throttleMinDelayMs: 50, retryAfterMaxMs: 250 },
    logger: silent,
    timeoutMs: 300,
    disableAfterMs: 86_400_000,
    pollIntervalMs: 20,
    concurrency: 8,
    ...overrides,
  });
  running.push({ dispatcher, transport });
  return dispatcher;
}

let counter = 0;
async function subscribeAndEnqueue(pathName: string, events = 1): Promise<{ subscription: Subscription; eventIds: string[] }> {
  const subscription = await subscriptions.create(accountId, { url: `${receiver.url}${pathName}`, events: ['trade.executed'] });
  const eventIds: string[] = [];
  const deliveries = [];
  for (let i = 0; i < events; i++) {
    const id = eventId('trade.executed', `case-${counter++}`);
    eventIds.push(id);
    deliveries.push({
      subscriptionId: subscription.id,
      eventId: id,
      eventType: 'trade.executed',
      payload: { event: 'trade.executed', id, trade_id: `t-${counter}`, price: 0.5 },
    });
  }
  await enqueueDeliveries(control, deliveries, Date.now(), BACKLOG);
  return { subscription, eventIds };
}

const deliveryOf = async (subscriptionId: string) =>
  (await control.query<any>('SELECT * FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY seq', [subscriptionId]))[0];
const attemptsOf = (subscriptionId: string) =>
  control.query<any>(
    `SELECT a.* FROM webhook_attempts a JOIN webhook_deliveries d ON d.seq = a.delivery_seq WHERE d.subscription_id = $1 ORDER BY a.attempt`,
    [subscriptionId],
  );
const settled = (subscriptionId: string, status: string) =>
  waitFor(
    async () => {
      const row = await deliveryOf(subscriptionId);
      return row?.status === status ? row : null;
    },
    20_000,
    `delivery of subscription ${subscriptionId} to be ${status}`,
    20,
  );

test('a 2xx delivery arrives once, signed over the exact body, with the documented headers', async () => {
  const dispatcher = start();
  const { subscription, eventIds } = await subscribeAndEnqueue('/ok');
  dispatcher.wake();
  const row = await settled(subscription.id, 'succeeded');
  const [request] = receiver.at('/ok').filter((r) => JSON.parse(r.body).id === eventIds[0]);
  expect(request).toBeDefined();
  expect(request!.body).toBe(row.body);
  expect(JSON.parse(request!.body)).toMatchObject({ event: 'trade.executed', id: eventIds[0], delivery_id: row.id });
  expect(request!.headers).toMatchObject({
    'x-service-event': 'trade.executed',
    'x-service-delivery': row.id,
    'content-type': 'application/json',
  });
  expect(request!.headers['x-service-timestamp']).toMatch(/^\d{10}$/);
  expect(request!.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
  expect(verifyWebhook({ body: request!.body, headers: request!.headers, secret: subscription.secret })).toEqual({ ok: true });
  expect(verifyWebhook({ body: request!.body, headers: request!.headers, secret: 'whsec_wrong' })).toEqual({
    ok: false,
    reason: 'signature_mismatch',
  });
  const attempts = await attemptsOf(subscription.id);
  expect(attempts).toHaveLength(1);
  expect(attempts[0]).toMatchObject({ attempt: 1, status_code: 204, error: null });
});

test('500 is retried on the schedule until it runs out; every attempt is logged and signed afresh', async () => {
  start();
  const { subscription } = await subscribeAndEnqueue('/fail500');
  const row = await settled(subscription.id, 'failed');
  expect(row.attempts).toBe(SCHEDULE.length);
  expect(row.last_error).toContain(`gave up after ${SCHEDULE.length} attempts`);
  const attempts = await attemptsOf(subscription.id);
  expect(attempts.map((a: any) => a.status_code)).toEqual([500, 500, 500, 500]);
  const requests = receiver.at('/fail500').filter((r) => r.headers['x-service-delivery'] === row.id);
  expect(requests).toHaveLength(SCHEDULE.length);
  for (const request of requests)
    expect(verifyWebhook({ body: request.body, headers: request.headers, secret: subscription.secret })).toEqual({ ok: true });
  // Backoff: each retry waited at least the scheduled delay minus the 20% jitter.
  for (let i = 1; i < attempts.length; i++) {
    expect(new Date(attempts[i].attempted_at).getTime() - new Date(attempts[i - 1].attempted_at).getTime()).toBeGreaterThanOrEqual(
      SCHEDULE[i]! * 0.8 - 1,
    );
  }
});

test('a hanging receiver times out and is retried no sooner than the throttle floor', async () => {
  start();
  const { subscription } = await subscribeAndEnqueue('/hang');
  const attempts = await waitFor(
    async () => {
      const rows = await attemptsOf(subscription.id);
      return rows.length >= 2 ? rows : null;
    },
    20_000,
    'two timed-out attempts',
    20,
  );
  expect(attempts[0]).toMatchObject({ status_code: null, error: 'timed out waiting for the receiver' });
  expect(attempts[0].latency_ms).toBeGreaterThanOrEqual(290);
  expect(new Date(attempts[1].attempted_at).getTime() - new Date(attempts[0].attempted_at).getTime()).toBeGreaterThanOrEqual(300 + 50 - 1);
  await subscriptions.update(accountId, subscription.id, { enabled: false });
});

test('429 honours Retry-After, capped at the configured maximum', async () => {
  start();
  const { subscription } = await subscribeAndEnqueue('/throttle');
  const attempts = await waitFor(
    async () => {
      const rows = await attemptsOf(subscription.id);
      return rows.length >= 2 ? rows : null;
    },
    20_000,
    'two throttled attempts',
    20,
  );
  expect(attempts[0].status_code).toBe(429);
  // Retry-After: 1 (1000 ms) capped at retryAfterMax 250 ms, above the 30 ms schedule and the 50 ms floor.
  expect(new Date(attempts[1].attempted_at).getTime() - new Date(attempts[0].attempted_at).getTime()).toBeGreaterThanOrEqual(249);
  await subscriptions.update(accountId, subscription.id, { enabled: false });
});

test('410 Gone fails the delivery at once and disables the subscription with a visible reason', async () => {
  start();
  const { subscription } = await subscribeAndEnqueue('/gone');
  const row = await settled(subscription.id, 'failed');
  expect(row.attempts).toBe(1);
  const after = await subscriptions.get(accountId, subscription.id);
  expect(after).toMatchObject({ enabled: false });
  expect(after!.disabled_reason).toContain('410 Gone');
  // Later events wait in the outbox (never claimed) instead of hammering a receiver that said it is gone.
  const id = eventId('trade.executed', 'after-gone');
  await enqueueDeliveries(
    control,
    [{ subscriptionId: subscription.id, eventId: id, eventType: 'trade.executed', payload: { event: 'trade.executed', id } }],
    Date.now(),
    BACKLOG,
  );
  const due = await claimDue(control, Date.now() + 1, Date.now() + 1000, 100);
  expect(due.filter((d) => d.subscription_id === subscription.id)).toEqual([]);
});

test('a redirect is a failure and is not followed', async () => {
  start();
  const before = receiver.at('/ok').length;
  const { subscription } = await subscribeAndEnqueue('/redirect');
  const row = await settled(subscription.id, 'failed');
  expect(row.last_error).toContain('redirects are not followed');
  expect((await attemptsOf(subscription.id)).every((a: any) => a.status_code === 302)).toBe(true);
  expect(receiver.at('/ok').length).toBe(before);
});

test('the connect-time guard refuses 127.0.0.1 when it is not allow-listed: nothing is sent', async () => {
  const { subscription } = await subscribeAndEnqueue('/blocked-target');
  const strict = start({}, []);
  strict.wake();
  const row = await settled(subscription.id, 'failed');
  expect(row.last_error).toMatch(/blocked: .*loopback/);
  expect(receiver.at('/blocked-target')).toHaveLength(0);
});

test('sustained failure disables the subscription and says why; a success resets the clock', async () => {
  start({ disableAfterMs: 40, policy: { scheduleMs: [0, 30, 30, 30, 30, 30], jitter: 0, throttleMinDelayMs: 0, retryAfterMaxMs: 0 } });
  receiver.script('/flaky', { status: 503 });
  const { subscription } = await subscribeAndEnqueue('/flaky');
  const disabled = await waitFor(
    async () => {
      const s = await subscriptions.get(accountId, subscription.id);
      return s && !s.enabled ? s : null;
    },
    20_000,
    'the subscription to be disabled',
    20,
  );
  expect(disabled.disabled_reason).toMatch(/no successful delivery since .*sustained failure.*HTTP 503/);
  receiver.script('/flaky', { status: 200 });
  const enabled = await subscriptions.update(accountId, subscription.id, { enabled: true });
  expect(enabled).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
  await settled(subscription.id, 'succeeded');
});

test('after a rotation both secrets sign during the grace period', async () => {
  start();
  receiver.script('/rotated', { status: 200 });
  const subscription = await subscriptions.create(accountId, { url: `${receiver.url}/rotated`, events: ['trade.executed'] });
  const rotated = (await subscriptions.rotateSecret(accountId, subscription.id))!;
  expect(rotated.secret).not.toBe(subscription.secret);
  expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
  const id = eventId('trade.executed', 'rotation');
  await enqueueDeliveries(
    control,
    [{ subscriptionId: subscription.id, eventId: id, eventType: 'trade.executed', payload: { event: 'trade.executed', id } }],
    Date.now(),
    BACKLOG,
  );
  await settled(subscription.id, 'succeeded');
  const [request] = receiver.at('/rotated');
  expect(String(request!.headers['x-service-signature']).split(',')).toHaveLength(2);
  expect(verifyWebhook({ body: request!.body, headers: request!.headers, secret: subscription.secret })).toEqual({ ok: true });
  expect(verifyWebhook({ body: request!.body, headers: request!.headers, secret: rotated.secret })).toEqual({ ok: true });
});
