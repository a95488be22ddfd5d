/**
 * /v1/webhooks over HTTP with every request and response validated against the OpenAPI document:
 * create (secret once), SSRF and type refusals as 400, account scoping, list paging, update, rotate,
 * test event through the real dispatcher to a local receiver, delivery log, redelivery, delete.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { createApiHandler } from '../../api/app.js';
import { Meter } from '../../services/access/meter.js';
import { loadConfig } from '../../services/config.js';
import { verifyWebhook } from '../../clients/webhooks/verify.js';
import { Accounts } from '../../services/control/accounts.js';
import { KeyLifecycle } from '../../services/control/key-lifecycle.js';
import { migrateControlStore } from '../../services/control/migrate.js';
import { openPgliteStore } from '../../services/control/pglite-store.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import type { ControlStore } from '../../services/ports/control-store.js';
import { startDispatcher, type Dispatcher } from '../../services/webhooks/dispatcher.js';
import { createHttpTransport, type HttpTransport } from '../../services/webhooks/http-transport.js';
import { WebhookSubscriptions } from '../../services/webhooks/subscriptions.js';
import { UrlGuard } from '../../services/webhooks/url-guard.js';
import { getJson, postJson, waitFor } from '../support/http.js';
import { startReceiver, type Receiver } from './receiver.js';

/** The service's backlog cap per webhook subscription (WEBHOOK_PENDING_PER_SUBSCRIPTION's default). */
const BACKLOG = loadConfig({}).webhooks.pendingPerSubscription;

const silent = pino({ level: 'silent' });
let control: ControlStore;
let server: http.Server;
let base: string;
let key: string;
let otherKey: string;
let receiver: Receiver;
let dispatcher: Dispatcher;
let transport: HttpTransport;
let meter: Meter;

// The webhook routes never touch the analytics store; anything that does is a bug this makes loud.
const noAnalytics = new Proxy(
  {},
  { get: () => () => Promise.reject(new Error('analytics store not available in this test')) },
) as AnalyticsStore;

beforeAll(async () => {
  control = await openPgliteStore(fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-webhooks-api-')));
  await migrateControlStore(control);
  const accounts = new Accounts(control);
  key = (await accounts.registerAgent('hooks')).api_key;
  otherKey = (await accounts.registerAgent('someone-else')).api_key;
  receiver = await startReceiver();
  // Stub resolver: names resolve to fixed addresses, so the guard is exercised without real DNS.
  const guard = new UrlGuard(
    ['127.0.0.1'],
    async (host) => ({ 'public.example': ['93.184.216.34'], 'internal.example': ['10.1.2.3'] })[host] ?? [],
  );
  transport = createHttpTransport(guard);
  dispatcher = startDispatcher({
    store: control,
    transport: transport.send,
    logger: silent,
    timeoutMs: 2_000,
    disableAfterMs: 86_400_000,
    pollIntervalMs: 50,
    concurrency: 4,
    policy: { scheduleMs: [0, 50, 50], jitter: 0, throttleMinDelayMs: 0, retryAfterMaxMs: 0 },
  });
  const subscriptions = new WebhookSubscriptions({ store: control, guard, clock: Date.now, secretGraceMs: 3_600_000, maxPerAccount: 12 });
  // Rate limits lifted: this test calls faster than any tier allows.
  const { access } = loadConfig({
    RATE_SANDBOX_PER_SECOND: '100000',
    RATE_TIER1_PER_SECOND: '100000',
    RATE_FREE_PER_IP_PER_SECOND: '100000',
  });
  meter = new Meter(control, { ...access, flushIntervalMs: access.meterFlushIntervalMs });
  const { app } = createApiHandler({
    store: noAnalytics,
    accounts,
    keys: new KeyLifecycle(control, { keysPerAccount: 10 }),
    control,
    logger: silent,
    validateResponses: true,
    meter,
    access,
    auth: { cacheTtlMs: 0, negativeCacheTtlMs: 0, failuresPerIpPerMinute: 100_000, trustProxyHops: 0 },
    health: { version: 'test', sources: () => [], sinkLag: async () => ({}) },
    webhooks: { subscriptions, store: control, clock: Date.now, wake: () => dispatcher.wake(), maxPendingPerSubscription: BACKLOG },
  });
  server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await meter.stop();
  await dispatcher.stop();
  transport.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await receiver.close();
  await control.close();
});

async function send(method: string, url: string, body?: unknown, apiKey = key) {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

test('create returns the subscription with its whsec_ secret once; reads show only a hint', async () => {
  const created = await postJson(
    `${base}/webhooks`,
    { url: `${receiver.url}/ok`, events: ['trade.executed', 'market.resolved'] },
    { apiKey: key },
  );
  expect(created.status).toBe(201);
  expect(created.body.data).toMatchObject({
    url: `${receiver.url}/ok`,
    events: ['trade.executed', 'market.resolved'],
    enabled: true,
    filters: {},
  });
  expect(created.body.data.secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
  const read = await getJson(`${base}/webhooks/${created.body.data.id}`, key);
  expect(read.status).toBe(200);
  expect(read.body.data.secret).toBeUndefined();
  expect(read.body.data.secret_hint).toBe(`${created.body.data.secret.slice(0, 10)}…${created.body.data.secret.slice(-4)}`);
});

test.each([
  [{ url: 'ftp://127.0.0.1/x', events: ['trade.executed'] }, 'url'],
  [{ url: 'http://internal.example/hook', events: ['trade.executed'] }, 'private address'],
  [{ url: 'http://169.254.169.254/latest', events: ['trade.executed'] }, 'metadata'],
  [{ url: 'http://[::ffff:10.0.0.1]/hook', events: ['trade.executed'] }, 'private'],
  [{ url: 'http://nowhere.example/hook', events: ['trade.executed'] }, 'does not resolve'],
  [{ url: 'https://public.example/hook', events: ['trade.exploded'] }, 'events'],
  [{ url: 'https://public.example/hook', events: [] }, 'events'],
  [{ url: 'https://public.example/hook' }, 'events'],
  [{ url: 'https://public.example/hook', events: ['trade.executed'], filters: { wallets: ['0x12'] } }, 'filters'],
  [{ url: 'https://public.example/hook', events: ['trade.executed'], extra: 1 }, 'extra'],
])('bad subscription %j is a 400 naming the problem', async (body, mentions) => {
  const response = await postJson(`${base}/webhooks`, body, { apiKey: key });
  expect(response.status).toBe(400);
  expect(response.body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
  expect(response.body.error).toContain(mentions);
});

test('a public URL passes the guard (resolved through the stub, never contacted)', async () => {
  const response = await postJson(
    `${base}/webhooks`,
    { url: 'https://public.example/hook', events: ['market.price_signal'], filters: { min_change_pct: 10 } },
    { apiKey: key },
  );
  expect(response.status).toBe(201);
  await send('DELETE', `${base}/webhooks/${response.body.data.id}`);
});

test('subscriptions are scoped to the account: others get 404, lists never mix', async () => {
  const mine = await postJson(`${base}/webhooks`, { url: `${receiver.url}/ok`, events: ['trade.executed'] }, { apiKey: key });
  const id = mine.body.data.id;
  expect((await getJson(`${base}/webhooks/${id}`, otherKey)).status).toBe(404);
  expect((await send('PATCH', `${base}/webhooks/${id}`, { enabled: false }, otherKey)).status).toBe(404);
  expect((await send('DELETE', `${base}/webhooks/${id}`, undefined, otherKey)).status).toBe(404);
  expect((await send('POST', `${base}/webhooks/${id}/rotate-secret`, undefined, otherKey)).status).toBe(404);
  expect((await getJson(`${base}/webhooks`, otherKey)).body.data).toEqual([]);
  expect((await getJson(`${base}/webhooks/abc`, key)).status).toBe(400);
});

test('an edited cursor is a 400, never a store error', async () => {
  for (let i = 0; i < 2; i++)
    await postJson(`${base}/webhooks`, { url: `${receiver.url}/ok?edit=${i}`, events: ['market.resolved'] }, { apiKey: key });
  const real = (await getJson(`${base}/webhooks?limit=1`, key)).body.pagination.next_cursor as string;
  const { q } = JSON.parse(Buffer.from(real, 'base64url').toString('utf8'));
  // The query fingerprint is kept, so only the edited key can be what is refused.
  for (const edited of [['abc'], ['1e3'], [12], ['99999999999999999999']]) {
    const cursor = Buffer.from(JSON.stringify({ v: 1, k: edited, q })).toString('base64url');
    const response = await getJson(`${base}/webhooks?cursor=${cursor}`, key);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'BAD_REQUEST' });
    expect(response.body.error).toMatch(/^cursor: not a cursor issued by this API/);
  }
});

test('list pages with a cursor, newest first, each subscription once', async () => {
  for (let i = 0; i < 3; i++)
    await postJson(`${base}/webhooks`, { url: `${receiver.url}/ok?n=${i}`, events: ['market.resolved'] }, { apiKey: key });
  const all: string[] = [];
  let url = `${base}/webhooks?limit=2`;
  for (;;) {
    const page = await getJson(url, key);
    expect(page.status).toBe(200);
    all.push(...page.body.data.map((s: any) => s.id));
    if (!page.body.pagination.has_more) break;
    url = `${base}/webhooks?limit=2&cursor=${page.body.pagination.next_cursor}`;
  }
  expect(new Set(all).size).toBe(all.length);
  expect([...all].sort((a, b) => Number(b) - Number(a))).toEqual(all);
  expect(all.length).toBeGreaterThanOrEqual(5);
});

test('update, rotate, test event, delivery log, redeliver, delete', async () => {
  const created = (await postJson(`${base}/webhooks`, { url: `${receiver.url}/fail500`, events: ['trade.executed'] }, { apiKey: key })).body
    .data;
  const id = created.id;
  const patched = await send('PATCH', `${base}/webhooks/${id}`, { url: `${receiver.url}/ok`, filters: { min_size_usdc: 100 } });
  expect(patched.body.data).toMatchObject({ url: `${receiver.url}/ok`, filters: { min_size_usdc: 100 } });
  expect((await send('PATCH', `${base}/webhooks/${id}`, { url: 'http://internal.example/' })).status).toBe(400);
  expect((await send('PATCH', `${base}/webhooks/${id}`, {})).status).toBe(400);

  const rotated = await send('POST', `${base}/webhooks/${id}/rotate-secret`);
  expect(rotated.status).toBe(200);
  expect(rotated.body.data.secret).not.toBe(created.secret);
  expect(rotated.body.data.previous_secret_expires_at).not.toBeNull();

  const queued = await send('POST', `${base}/webhooks/${id}/test`);
  expect(queued.status).toBe(202);
  expect(queued.body.data).toMatchObject({ event: 'webhook.test', status: 'pending' });
  const deliveryId = queued.body.data.id;
  const log = await waitFor(
    async () => {
      const page = await getJson(`${base}/webhooks/${id}/deliveries`, key);
      return page.body.data[0]?.status === 'succeeded' ? page.body : null;
    },
    10_000,
    'the test delivery to succeed',
    50,
  );
  expect(log.data[0]).toMatchObject({ id: deliveryId, attempts: 1, last_status_code: 204, next_attempt_at: null });
  expect(log.data[0].attempt_log).toEqual([expect.objectContaining({ attempt: 1, status_code: 204, error: null })]);
  const request = receiver.received.find((r) => r.headers['x-service-delivery'] === deliveryId)!;
  expect(JSON.parse(request.body)).toMatchObject({ event: 'webhook.test', subscription_id: id });
  expect(verifyWebhook({ body: request.body, headers: request.headers, secret: rotated.body.data.secret })).toEqual({ ok: true });
  expect(verifyWebhook({ body: request.body, headers: request.headers, secret: created.secret })).toEqual({ ok: true });

  const again = await send('POST', `${base}/webhooks/${id}/deliveries/${deliveryId}/redeliver`);
  expect(again.status).toBe(202);
  await waitFor(
    async () => {
      const page = await getJson(`${base}/webhooks/${id}/deliveries?status=succeeded`, key);
      return page.body.data[0]?.attempts === 2 ? page.body : null;
    },
    10_000,
    'the redelivery',
    50,
  );
  const sameDelivery = receiver.received.filter((r) => r.headers['x-service-delivery'] === deliveryId);
  expect(sameDelivery).toHaveLength(2);
  expect(sameDelivery[1]!.body).toBe(sameDelivery[0]!.body);
  expect((await send('POST', `${base}/webhooks/${id}/deliveries/dlv_${'0'.repeat(32)}/redeliver`)).status).toBe(404);
  expect((await send('POST', `${base}/webhooks/${id}/deliveries/nope/redeliver`)).status).toBe(400);

  expect((await send('DELETE', `${base}/webhooks/${id}`)).body).toEqual({ success: true, data: { id, deleted: true } });
  expect((await getJson(`${base}/webhooks/${id}`, key)).status).toBe(404);
});
