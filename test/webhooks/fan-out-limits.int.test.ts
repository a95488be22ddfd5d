/**
 * One account cannot take webhook delivery from everyone else: subscriptions per account are
 * capped, deliveries in flight per account are capped and accounts take turns for the slots, a
 * subscription's backlog is capped (events past it are counted as dropped), large-trade thresholds
 * have a floor, and finished deliveries are purged after the retention period.
 */
import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { loadConfig } from '../../services/config.js';
import { Accounts } from '../../services/control/accounts.js';
import { migrateControlStore } from '../../services/control/migrate.js';
import { freshControlStore } from '../support/control-template.js';
import type { ControlStore } from '../../services/ports/control-store.js';
import { type Dispatcher, startDispatcher } from '../../services/webhooks/dispatcher.js';
import { eventId } from '../../services/webhooks/event-types.js';
import { createHttpTransport, type HttpTransport } from '../../services/webhooks/http-transport.js';
import {
  claimDue,
  ENQUEUE_CHUNK,
  enqueueDeliveries,
  enqueueInChunks,
  listDeliveries,
  purgeFinished,
  recordAttempt,
} from '../../services/webhooks/outbox.js';
import { type Subscription, SubscriptionRefusedError, WebhookSubscriptions } from '../../services/webhooks/subscriptions.js';
import { dnsResolver, UrlGuard } from '../../services/webhooks/url-guard.js';
import { waitFor } from '../support/http.js';
import { type Receiver, startReceiver } from './receiver.js';

const silent = pino({ level: 'silent' });
/** The service's backlog cap per webhook subscription (WEBHOOK_PENDING_PER_SUBSCRIPTION's default). */
const BACKLOG = loadConfig({}).webhooks.pendingPerSubscription;
let control: ControlStore;
let receiver: Receiver;
let subscriptions: WebhookSubscriptions;
let accounts: Accounts;

beforeAll(async () => {
  control = await freshControlStore();
  await migrateControlStore(control);
  accounts = new Accounts(control);
  receiver = await startReceiver();
  subscriptions = new WebhookSubscriptions({
    store: control,
    guard: new UrlGuard(['127.0.0.1']),
    clock: Date.now,
    secretGraceMs: 60_000,
    maxPerAccount: 3,
    minLargeTradeUsdc: 1_000,
  });
}, 60_000);
afterAll(async () => {
  await receiver.close();
  await control.close();
});

let counter = 0;
async function enqueue(subscription: Subscription, count: number, maxPending = BACKLOG): Promise<number> {
  const deliveries = Array.from({ length: count }, () => {
    const id = eventId('trade.executed', `fan-out-${counter++}`);
    return { subscriptionId: subscription.id, eventId: id, eventType: 'trade.executed', payload: { event: 'trade.executed', id } };
  });
  return (await control.transaction((tx) => enqueueDeliveries(tx, deliveries, Date.now(), maxPending))).enqueued;
}

test('an account holds at most its limit of subscriptions; a large-trade threshold has a floor', async () => {
  const account = (await accounts.registerAgent('capped')).account_id;
  for (let i = 0; i < 3; i++) await subscriptions.create(account, { url: `${receiver.url}/ok?i=${i}`, events: ['market.resolved'] });
  await expect(subscriptions.create(account, { url: `${receiver.url}/ok`, events: ['market.resolved'] })).rejects.toMatchObject({
    kind: 'limit',
  });
  const other = (await accounts.registerAgent('floor')).account_id;
  const low = subscriptions.create(other, {
    url: `${receiver.url}/ok`,
    events: ['trader.large_trade'],
    filters: { large_trade_min_usdc: 0.000001 },
  });
  await expect(low).rejects.toBeInstanceOf(SubscriptionRefusedError);
  await expect(low).rejects.toThrow(/large_trade_min_usdc: must be at least 1000/);
  const ok = await subscriptions.create(other, {
    url: `${receiver.url}/ok`,
    events: ['trader.large_trade'],
    filters: { large_trade_min_usdc: 1_000 },
  });
  expect(ok.filters).toEqual({ large_trade_min_usdc: 1_000 });
});

test("one account's hanging receivers hold at most its share of slots; another account is served meanwhile", async () => {
  const slow = (await accounts.registerAgent('slow-receivers')).account_id;
  const fast = (await accounts.registerAgent('fast-receiver')).account_id;
  const hanging = await subscriptions.create(slow, { url: `${receiver.url}/hang`, events: ['trade.executed'] });
  const quick = await subscriptions.create(fast, { url: `${receiver.url}/ok`, events: ['trade.executed'] });
  // The slow account's deliveries are queued first, so first-come-first-served would give it every slot.
  await enqueue(hanging, 40);
  await enqueue(quick, 5);
  const finished: string[] = [];
  const transport: HttpTransport = createHttpTransport(new UrlGuard(['127.0.0.1']));
  const dispatcher: Dispatcher = startDispatcher({
    store: control,
    transport: transport.send,
    policy: { scheduleMs: [0, 60_000], jitter: 0, throttleMinDelayMs: 60_000, retryAfterMaxMs: 0 },
    logger: silent,
    timeoutMs: 4_000,
    disableAfterMs: 86_400_000,
    pollIntervalMs: 20,
    concurrency: 4,
    accountConcurrency: 2,
    onAttempt: ({ delivery }) => finished.push(delivery.subscription_id),
  });
  try {
    await waitFor(async () => finished.filter((id) => id === quick.id).length === 5, 20_000, 'the fast account’s deliveries', 20);
    // All five arrived before any of the slow account's attempts ended (they hang until the 4 s timeout).
    expect(finished.slice(0, 5)).toEqual(Array(5).fill(quick.id));
    expect(receiver.at('/hang').length).toBeLessThanOrEqual(2);
  } finally {
    await dispatcher.stop();
    transport.close();
  }
});

test('one slow receiver host holds at most its share of slots, whichever accounts point at it', async () => {
  const other = await startReceiver();
  const transport: HttpTransport = createHttpTransport(new UrlGuard(['127.0.0.1']));
  const slowAccounts = await Promise.all([0, 1, 2].map((i) => accounts.registerAgent(`slow-host-${i}`)));
  const hanging = await Promise.all(
    slowAccounts.map((a) => subscriptions.create(a.account_id, { url: `${receiver.url}/hang`, events: ['trade.executed'] })),
  );
  const fastAccount = (await accounts.registerAgent('other-host')).account_id;
  const quick = await subscriptions.create(fastAccount, { url: `${other.url}/ok`, events: ['trade.executed'] });
  for (const subscription of hanging) await enqueue(subscription, 10);
  await enqueue(quick, 5);
  const hangingBefore = receiver.at('/hang').length;
  const finished: string[] = [];
  const dispatcher: Dispatcher = startDispatcher({
    store: control,
    transport: transport.send,
    policy: { scheduleMs: [0, 60_000], jitter: 0, throttleMinDelayMs: 60_000, retryAfterMaxMs: 0 },
    logger: silent,
    timeoutMs: 4_000,
    disableAfterMs: 86_400_000,
    pollIntervalMs: 20,
    concurrency: 6,
    accountConcurrency: 4,
    hostConcurrency: 2,
    onAttempt: ({ delivery }) => finished.push(delivery.subscription_id),
  });
  try {
    await waitFor(async () => finished.filter((id) => id === quick.id).length === 5, 20_000, 'the other host’s deliveries', 20);
    expect(other.at('/ok')).toHaveLength(5);
    // Three accounts point at the slow host, but it holds two slots; the other host got its five meanwhile.
    expect(receiver.at('/hang').length - hangingBefore).toBeLessThanOrEqual(2);
    expect(finished.slice(0, 5)).toEqual(Array(5).fill(quick.id));
  } finally {
    await dispatcher.stop();
    transport.close();
    await other.close();
  }
});

test('a host at its cap is skipped in the claim; a subscription whose URL moves to another host counts against that one', async () => {
  const owners = await Promise.all([0, 1].map((i) => accounts.registerAgent(`moving-host-${i}`)));
  const [first, second] = await Promise.all(
    owners.map((a, i) => subscriptions.create(a.account_id, { url: `http://127.0.0.1:${40_100 + i}/x`, events: ['trade.executed'] })),
  );
  await enqueue(first!, 3);
  await enqueue(second!, 3);
  const now = Date.now();
  const mine = (claimed: Array<{ subscription_id: string }>) =>
    claimed.filter((d) => d.subscription_id === first!.id || d.subscription_id === second!.id).map((d) => d.subscription_id);
  // Each host takes one in flight: one delivery of each subscription.
  expect(mine(await claimDue(control, now, now + 60_000, 50, { perHost: 1 })).sort()).toEqual([first!.id, second!.id].sort());
  // Both hosts are at their cap: nothing more, although both subscriptions have due deliveries.
  expect(mine(await claimDue(control, now, now + 60_000, 50, { perHost: 1 }))).toEqual([]);
  // The second now points at the first's host: its leased delivery counts there, so that host holds two.
  await subscriptions.update(owners[1]!.account_id, second!.id, { url: 'http://127.0.0.1:40100/y' });
  const [row] = await control.query<{ host: string }>('SELECT host FROM webhook_subscriptions WHERE id = $1', [second!.id]);
  expect(row!.host).toBe('127.0.0.1:40100');
  expect(mine(await claimDue(control, now, now + 60_000, 50, { perHost: 2 }))).toEqual([]);
  expect(mine(await claimDue(control, now, now + 60_000, 50, { perHost: 3 }))).toHaveLength(1);
});

test('fan-out is enqueued in chunks that commit one by one, with turns for the event loop between them; a replay adds nothing', async () => {
  const owners = await Promise.all([0, 1, 2].map((i) => accounts.registerAgent(`chunked-${i}`)));
  const subs = await Promise.all(
    owners.map((a) => subscriptions.create(a.account_id, { url: `${receiver.url}/hang`, events: ['trade.executed'] })),
  );
  const count = ENQUEUE_CHUNK * 2 + 7;
  const wanted = Array.from({ length: count }, (_, i) => {
    const id = eventId('trade.executed', `chunked-${i}`);
    return { subscriptionId: subs[i % 3]!.id, eventId: id, eventType: 'trade.executed', payload: { event: 'trade.executed', id } };
  });
  let transactions = 0;
  const counting: ControlStore = {
    ...control,
    transaction: (work) => {
      transactions += 1;
      return control.transaction(work);
    },
  };
  // A macrotask queued before the enqueue runs before it ends: the event loop had a turn between chunks.
  let turn = false;
  setImmediate(() => (turn = true));
  const enqueued = enqueueInChunks(counting, wanted, Date.now(), BACKLOG);
  expect(await enqueued).toEqual({ enqueued: count, dropped: 0 });
  expect(turn).toBe(true);
  expect(transactions).toBe(3);
  // A retried batch (the signals processor replays it after a failure part way) adds no second copy.
  expect(await enqueueInChunks(control, wanted, Date.now(), BACKLOG)).toEqual({ enqueued: 0, dropped: 0 });
  const [stored] = await control.query<{ n: string; counted: string }>(
    `SELECT count(*)::text AS n, (SELECT sum(pending_deliveries) FROM webhook_subscriptions WHERE id = ANY($1::bigint[]))::text AS counted
       FROM webhook_deliveries WHERE subscription_id = ANY($1::bigint[])`,
    [subs.map((s) => s.id)],
  );
  expect(stored).toEqual({ n: String(count), counted: String(count) });
});

test('a subscription holds at most its backlog of undelivered deliveries; the rest are counted as dropped', async () => {
  const account = (await accounts.registerAgent('backlog')).account_id;
  const subscription = await subscriptions.create(account, { url: `${receiver.url}/hang`, events: ['trade.executed'] });
  expect(await enqueue(subscription, 7, 5)).toBe(5);
  expect(await enqueue(subscription, 3, 5)).toBe(0);
  // One delivery finishes: its place in the backlog is free again.
  const [claimed] = (await claimDue(control, Date.now(), Date.now() + 60_000, 50)).filter((d) => d.subscription_id === subscription.id);
  await control.transaction((tx) =>
    recordAttempt(
      tx,
      {
        delivery: claimed!,
        attemptedAtMs: Date.now(),
        latencyMs: 1,
        statusCode: 204,
        error: null,
        next: { status: 'succeeded' },
        subscription: { succeeded: true },
      },
      86_400_000,
    ),
  );
  expect(await enqueue(subscription, 2, 5)).toBe(1);
  const stored = await subscriptions.get(account, subscription.id);
  expect(stored).toMatchObject({ dropped_events: '6' });
  expect(stored!.last_dropped_at).not.toBeNull();
  const [pending] = await control.query<{ n: string }>(
    "SELECT count(*)::text AS n FROM webhook_deliveries WHERE subscription_id = $1 AND status = 'pending'",
    [subscription.id],
  );
  expect(Number(pending!.n)).toBe(5);
  const [counter] = await control.query<{ n: number }>('SELECT pending_deliveries AS n FROM webhook_subscriptions WHERE id = $1', [
    subscription.id,
  ]);
  expect(Number(counter!.n)).toBe(5);
});

test('finished deliveries older than the retention period are purged with their attempt logs; pending ones are kept', async () => {
  const account = (await accounts.registerAgent('retention')).account_id;
  const subscription = await subscriptions.create(account, { url: `${receiver.url}/ok`, events: ['trade.executed'] });
  await enqueue(subscription, 4);
  const rows = await control.query<{ seq: string }>(
    'SELECT seq::text AS seq FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY seq',
    [subscription.id],
  );
  const old = new Date(Date.now() - 40 * 86_400_000);
  await control.query(`UPDATE webhook_deliveries SET created_at = $2, status = 'succeeded' WHERE seq = ANY($1::bigint[])`, [
    rows.slice(0, 2).map((r) => r.seq),
    old,
  ]);
  await control.query(`UPDATE webhook_deliveries SET created_at = $2 WHERE seq = $1`, [rows[2]!.seq, old]);
  await control.query(
    `INSERT INTO webhook_attempts (delivery_seq, attempt, attempted_at, status_code, latency_ms) VALUES ($1, 1, $2, 204, 3)`,
    [rows[0]!.seq, old],
  );
  expect(await purgeFinished(control, Date.now() - 30 * 86_400_000)).toBe(2);
  const left = await control.query<{ status: string }>('SELECT status FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY seq', [
    subscription.id,
  ]);
  expect(left.map((r) => r.status)).toEqual(['pending', 'pending']);
  const [attempts] = await control.query<{ n: string }>('SELECT count(*)::text AS n FROM webhook_attempts WHERE delivery_seq = $1', [
    rows[0]!.seq,
  ]);
  expect(Number(attempts!.n)).toBe(0);
});

test('subscriber names resolve through DNS queries (c-ares), cached for their TTL', async () => {
  // A one-record DNS server on 127.0.0.1: answers A queries for hooks.example with 93.184.216.34, TTL 60.
  const server = dgram.createSocket('udp4');
  let queries = 0;
  server.on('message', (message, peer) => {
    queries++;
    const qtype = message.readUInt16BE(message.length - 4);
    const question = message.subarray(12);
    const header = Buffer.from([message[0]!, message[1]!, 0x81, 0x80, 0, 1, 0, qtype === 1 ? 1 : 0, 0, 0, 0, 0]);
    const answer = qtype === 1 ? Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 93, 184, 216, 34]) : Buffer.alloc(0);
    server.send(Buffer.concat([header, question, answer]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => server.bind(0, '127.0.0.1', resolve));
  try {
    const resolve = dnsResolver({ servers: [`127.0.0.1:${(server.address() as AddressInfo).port}`], timeoutMs: 2_000 });
    expect(await resolve('hooks.example')).toEqual(['93.184.216.34']);
    const afterFirst = queries;
    expect(await resolve('hooks.example')).toEqual(['93.184.216.34']);
    expect(queries).toBe(afterFirst);
    const guard = new UrlGuard([], resolve);
    await expect(guard.check('https://hooks.example/x')).resolves.toBeInstanceOf(URL);
  } finally {
    server.close();
  }
});

test('deliveries list newest first by number, across digit counts (9 before 10 would be text order)', async () => {
  const account = (await accounts.registerAgent('listing')).account_id;
  const subscription = await subscriptions.create(account, { url: `${receiver.url}/ok`, events: ['trade.executed'] });
  await enqueue(subscription, 12);
  const listed = await listDeliveries(control, subscription.id, 20, null, null);
  const seqs = listed.map((d) => BigInt(d.seq));
  expect(seqs).toHaveLength(12);
  expect(seqs).toEqual([...seqs].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)));
  // The page after the newest five starts right below them, whatever the digit count.
  const next = await listDeliveries(control, subscription.id, 5, String(seqs[4]), null);
  expect(next.map((d) => BigInt(d.seq))).toEqual(seqs.slice(5, 10));
});
