/**
 * Live streams over the real embedded file log and the API app (chDB, PGlite, the sink for the REST
 * comparison): GET /v1/stream/sse and the /v1/stream WebSocket deliver exactly a market's trades in
 * order, as the same objects /markets/{id}/trades serves; a reconnect with the last cursor misses
 * and repeats nothing; refusals (caps, tiers, keys in URLs, bad input, expired cursors) are clear;
 * a client that never reads is dropped with slow_consumer while another keeps receiving.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { EventPublisher } from '../../services/events/publisher.js';
import type { TradeExecuted } from '../../services/events/types.generated.js';
import type { FileEventLog } from '../../services/eventlog/file-log.js';
import { openStreamTestLog } from '../support/stream-log.js';
import { partitionForKey } from '../../services/eventlog/partitioner.js';
import { STREAMS } from '../../services/read-models/registry.js';
import { type SinkService, startSink } from '../../services/sink/sink-service.js';
import { PENDING_AUTH_PER_ADDRESS } from '../../api/streams/websocket.js';
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { conditionId, marketUpserted, T0, tradeExecuted, txHash, walletAddress } from '../support/events.js';
import { getJson, waitFor as poll } from '../support/http.js';
import { errorOf, messagesOf, openSse as openSse_, openWs as openWs_, subscribed, waitFor } from '../support/stream-clients.js';

const chdbPath = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-streams-chdb-'));
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-streams-log-'));
const PARTITIONS = STREAMS.trades.partitions;

/** Markets on different partitions of the trades topic, so a flood of one is not read by a subscriber of another. */
function marketsOnDistinctPartitions(count: number): string[] {
  const found: string[] = [];
  const used = new Set<number>();
  for (let n = 100; found.length < count; n++) {
    const partition = partitionForKey(conditionId(n), PARTITIONS);
    if (used.has(partition)) continue;
    used.add(partition);
    found.push(conditionId(n));
  }
  return found;
}
const [MARKET_A, MARKET_B, MARKET_C, MARKET_FLOOD, MARKET_D, MARKET_E] = marketsOnDistinctPartitions(6) as [
  string,
  string,
  string,
  string,
  string,
  string,
];

let log: FileEventLog;
let api: ApiHarness;
let publisher: EventPublisher;
let tier2Key: string;
let sequence = 0;

beforeAll(async () => {
  log = await openStreamTestLog(logDir, { segmentBytes: 16_384, retention: { retentionMs: null, hardCapBytes: 65_536 } });
  publisher = new EventPublisher(log);
  api = await startApiHarness({
    chdbPath,
    database: 'streams',
    log,
    env: {
      STREAM_HEARTBEAT_MS: '300',
      STREAM_POLL_MS: '20',
      STREAM_CONNECTIONS_PER_KEY: '3',
      STREAM_SUBSCRIPTIONS_PER_KEY: '4',
      STREAM_BUFFER_BYTES: '65536',
      // Also the grace a dropped client has to read its close frame: long enough for a loaded machine's
      // test to see the drop and read again.
      STREAM_SLOW_CONSUMER_MS: '2000',
      STREAM_READ_BATCH: '100',
    },
  });
  tier2Key = (await api.admin.createKey('streamer', '2')).api_key;
}, 60_000);

afterAll(async () => {
  await api?.close();
  await log?.close();
  fs.rmSync(logDir, { recursive: true, force: true });
});

/** `count` distinct trades of a market, in time order. */
function tradesOf(market: string, count: number, over: Partial<TradeExecuted> = {}): TradeExecuted[] {
  return Array.from({ length: count }, () => {
    const n = ++sequence;
    return tradeExecuted({
      event_id: `stream-trade-${n}`,
      market_id: market,
      wallet: walletAddress((n % 3) + 1),
      side: n % 2 === 0 ? 'buy' : 'sell',
      // Sizes with a 7th decimal in size_usdc, so the micro rounding is exercised.
      size: 10 + (n % 7) * 1.25,
      price: 0.37,
      size_usdc: Number(((10 + (n % 7) * 1.25) * 0.37).toFixed(7)),
      timestamp_ms: T0 + n * 1000,
      tx_hash: txHash(n),
      ...over,
    });
  });
}

const openSse = (query: string, key: string | undefined, headers: Record<string, string> = {}) => openSse_(api.base, query, key, headers);
const openWs = (key: string | undefined, url?: string) => openWs_(api.base, key, url);
const dataOf = (client: { messages: any[] }) => messagesOf(client, 'trade');
/** The key's calls counted today, as /usage serves them. */
const usedBy = async (key: string) => {
  await api.meter.flush();
  return (await getJson(`${api.base}/v1/usage`, key)).body.data.used as number;
};
const idsOf = (client: { messages: any[] }) => dataOf(client).map((m) => m.data.trade_id);

// --- tests ----------------------------------------------------------------------------------------

test("an SSE subscriber to one market's trades receives exactly its trades, in order, as /markets/{id}/trades serves them", async () => {
  const sink: SinkService = await startSink(log, api.store, pino({ level: 'silent' }));
  try {
    await publisher.publish('markets', [marketUpserted({ market_id: MARKET_A, event_id: 'market-a' })]);
    const client = await openSse(`channel=trades&market=${MARKET_A}`, tier2Key);
    expect(client.status).toBe(200);
    await subscribed(client);
    const ofA = tradesOf(MARKET_A, 25);
    const ofB = tradesOf(MARKET_B, 25);
    // Interleaved, in several produce calls.
    for (let i = 0; i < 25; i += 5) await publisher.publish('trades', [...ofA.slice(i, i + 5), ...ofB.slice(i, i + 5)]);
    await waitFor('25 trades', async () => dataOf(client).length >= 25);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(idsOf(client)).toEqual(ofA.map((t) => t.event_id));
    expect(dataOf(client).every((m) => m.channel === 'trades' && m.subscription === 'sse')).toBe(true);

    // The same objects, field for field, as the REST tape serves once the sink stored them.
    await waitFor(
      'the REST tape',
      async () => (await getJson(`${api.base}/v1/markets/${MARKET_A}/trades?limit=100`, tier2Key)).body.data?.length === 25,
    );
    const rest = (await getJson(`${api.base}/v1/markets/${MARKET_A}/trades?limit=100`, tier2Key)).body.data as any[];
    expect(dataOf(client).map((m) => m.data)).toEqual([...rest].reverse());
    client.close();
  } finally {
    await sink.stop();
  }
});

test('SSE: disconnect mid-stream, reconnect with Last-Event-ID: the union has no gap and no duplicate', async () => {
  const first = await openSse(`channel=trades&market=${MARKET_C}`, tier2Key);
  await subscribed(first);
  const produced = tradesOf(MARKET_C, 40);
  await publisher.publish('trades', produced.slice(0, 20));
  await waitFor('8 trades', async () => dataOf(first).length >= 8);
  // The client dies after its 8th message: whatever else reached its socket is lost with it.
  const kept = dataOf(first).slice(0, 8);
  first.close();
  await publisher.publish('trades', produced.slice(20));
  const second = await openSse(`channel=trades&market=${MARKET_C}`, tier2Key, { 'last-event-id': kept.at(-1)!.cursor });
  expect(second.status).toBe(200);
  await waitFor('the rest', async () => dataOf(second).length >= 32);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect([...kept.map((m) => m.data.trade_id), ...idsOf(second)]).toEqual(produced.map((t) => t.event_id));
  second.close();
});

test('a trade published again (a history read overlapping the live poll) is sent once, live and on resume', async () => {
  const before = await repeatsFound();
  const live = await openSse(`channel=trades&market=${MARKET_E}`, tier2Key);
  await subscribed(live);
  const produced = tradesOf(MARKET_E, 15);
  await publisher.publish('trades', produced.slice(0, 10));
  // What a market's history read publishes: trades the live poll published already, then new ones, then an old one again.
  await publisher.publish('trades', [...produced.slice(2, 7), ...produced.slice(10)]);
  await publisher.publish('trades', [produced[0]!]);
  await waitFor('15 trades', async () => dataOf(live).length >= 15);
  await waitFor('the six repeats read', async () => (await repeatsFound()) - before === 6);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const ids = produced.map((t) => t.event_id);
  expect(idsOf(live)).toEqual(ids);
  // Resumed after the 5th: the rest once, though two of them were published again after the 10th.
  const resumed = await openSse(`channel=trades&market=${MARKET_E}`, tier2Key, { 'last-event-id': dataOf(live)[4].cursor });
  await waitFor('10 trades', async () => dataOf(resumed).length >= 10);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(idsOf(resumed)).toEqual(ids.slice(5));
  live.close();
  resumed.close();
});

test('WebSocket: same messages, filters server-side, resume with the cursor in a subscribe message', async () => {
  const client = await openWs(tier2Key);
  const wallet = walletAddress(2);
  client.send({
    type: 'subscribe',
    channel: 'trades',
    subscription: 'mine',
    filters: { market: MARKET_D, wallet, side: 'buy', min_size: 4.5 },
  });
  await subscribed(client, 'mine');
  const produced = tradesOf(MARKET_D, 60);
  const wanted = produced.filter((t) => t.wallet === wallet && t.side === 'buy' && t.size_usdc >= 4.5);
  expect(wanted.length).toBeGreaterThan(3);
  expect(wanted.length).toBeLessThan(produced.length);
  await publisher.publish('trades', produced.slice(0, 30));
  const early = wanted.filter((t) => produced.indexOf(t) < 30);
  await waitFor('the first half', async () => dataOf(client).length >= early.length);
  const kept = dataOf(client).slice(0, 2);
  client.ws.terminate();

  await publisher.publish('trades', produced.slice(30));
  const again = await openWs(undefined);
  again.send({ type: 'auth', key: tier2Key });
  again.send({
    type: 'subscribe',
    channel: 'trades',
    subscription: 'mine',
    filters: { market: MARKET_D, wallet, side: 'buy', min_size: 4.5 },
    cursor: kept.at(-1)!.cursor,
  });
  await waitFor('every wanted trade', async () => dataOf(again).length >= wanted.length - 2);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect([...kept.map((m) => m.data.trade_id), ...idsOf(again)]).toEqual(wanted.map((t) => t.event_id));
  // Heartbeats carry the cursor on quiet streams.
  await waitFor('a heartbeat', async () => again.messages.some((m) => m.type === 'heartbeat' && m.subscription === 'mine'));
  again.ws.close();
});

test('subscriptions at the end share their reads of the log: each still receives every trade, in order', async () => {
  const key = (await api.admin.createKey('fan-out', '2')).api_key;
  const client = await openWs(key);
  const names = ['f1', 'f2', 'f3', 'f4'];
  for (const name of names) client.send({ type: 'subscribe', channel: 'trades', subscription: name, filters: { market: MARKET_B } });
  for (const name of names) await subscribed(client, name);
  const before = await logReads();
  const produced = tradesOf(MARKET_B, 20);
  for (let batch = 0; batch < 5; batch++) {
    await publisher.publish('trades', produced.slice(batch * 4, batch * 4 + 4));
    await waitFor('the batch at every subscription', async () =>
      names.every((name) => messagesOf(client, 'trade', name).length >= batch * 4 + 4),
    );
  }
  for (const name of names) expect(messagesOf(client, 'trade', name).map((m) => m.data.trade_id)).toEqual(produced.map((t) => t.event_id));
  const after = await logReads();
  // Four subscriptions, one partition: the log is read about once per batch, the other three answered from memory.
  expect(after.memory - before.memory).toBeGreaterThanOrEqual(2 * (after.log - before.log));
  expect(after.log - before.log).toBeGreaterThan(0);
  client.ws.close();
});

test('bad input is a 4xx (SSE) or an error message (WebSocket) naming the parameter, never a 500', async () => {
  const cases: Array<[string, number, RegExp]> = [
    ['channel=nope', 400, /^channel/],
    ['channel=trades&side=up', 400, /^side/],
    ['channel=trades&min_size=-1', 400, /^min_size/],
    ['channel=trades&cursor=not-a-cursor', 400, /^cursor/],
    ['channel=trades&market=no-such-slug', 404, /^market/],
  ];
  for (const [query, status, message] of cases) {
    const refused = await openSse(query, tier2Key);
    expect([query, refused.status]).toEqual([query, status]);
    expect(refused.body).toMatchObject({ success: false });
    expect(refused.body.error).toMatch(message);
  }
  const client = await openWs(tier2Key);
  const asked: Array<[unknown, string]> = [
    [{ type: 'subscribe', channel: 'nope' }, 'channel'],
    [{ type: 'subscribe', channel: 'trades', filters: { side: 'up' } }, 'filters.side'],
    [{ type: 'subscribe', channel: 'trades', filters: { colour: 'red' } }, 'filters.colour'],
    [{ type: 'subscribe', channel: 'trades', cursor: 'bm9wZQ' }, 'cursor'],
    [{ type: 'dance' }, 'type'],
  ];
  for (const [message, parameter] of asked) {
    const before = client.messages.length;
    client.send(message);
    await waitFor('an answer', async () => client.messages.length > before);
    expect(client.messages.at(-1)).toMatchObject({ type: 'error', code: 'bad_request', parameter });
  }
  client.ws.send('not json');
  await waitFor('an answer', async () => client.messages.at(-1)?.parameter === 'message');
  // Still open and usable.
  client.send({ type: 'subscribe', channel: 'trades', subscription: 'ok' });
  await subscribed(client, 'ok');
  client.ws.close();
});

test('a key in the URL is refused; a Tier 1 key is refused the trades channel', async () => {
  const ws = `${api.base.replace('http', 'ws')}/v1/stream`;
  await expect(openWs(undefined, `${ws}?key=${tier2Key}`)).rejects.toMatchObject({
    status: 400,
    body: { error: expect.stringMatching(/^key: .*never accepted in the URL/) },
  });
  await expect(openWs(undefined, `${ws}?api_key=${tier2Key}`)).rejects.toMatchObject({ status: 400 });
  // SSE reads no key from the URL either: without the header it is unauthenticated.
  expect((await openSse(`channel=trades&key=${tier2Key}`, undefined)).status).toBe(401);
  await expect(openWs('aif_not_a_key')).rejects.toMatchObject({ status: 401 });

  const tier1Key = (await api.admin.createKey('free', '1')).api_key;
  const sse = await openSse('channel=trades', tier1Key);
  expect(sse.status).toBe(402);
  expect(sse.body.code).toBe('PAYMENT_REQUIRED');
  const client = await openWs(tier1Key);
  client.send({ type: 'subscribe', channel: 'trades', subscription: 't' });
  expect(await errorOf(client)).toMatchObject({ code: 'payment_required', subscription: 't' });
  expect(client.messages.some((m) => m.type === 'subscribed')).toBe(false);
  client.ws.close();

  // An unauthenticated socket can do nothing but authenticate, and a wrong key closes it.
  const anonymous = await openWs(undefined);
  anonymous.send({ type: 'subscribe', channel: 'trades' });
  expect(await errorOf(anonymous)).toMatchObject({ code: 'unauthorized' });
  anonymous.send({ type: 'auth', key: 'aif_wrong' });
  expect((await anonymous.closed).code).toBe(1008);
});

test('connections waiting to authenticate are bounded per address; authenticating frees the place', async () => {
  const waiting = await Promise.all(Array.from({ length: PENDING_AUTH_PER_ADDRESS }, () => openWs(undefined)));
  await expect(openWs(undefined)).rejects.toMatchObject({
    status: 429,
    body: { code: 'RATE_LIMITED', error: expect.stringMatching(/waiting to authenticate/) },
  });
  // A key on the upgrade is never held back by the anonymous sockets of its address.
  const keyed = await openWs(tier2Key);
  keyed.ws.close();
  waiting[0]!.send({ type: 'auth', key: tier2Key });
  waiting[0]!.send({ type: 'subscribe', channel: 'trades', subscription: 'after-auth' });
  await subscribed(waiting[0]!, 'after-auth');
  const next = await openWs(undefined);
  waiting[1]!.ws.close();
  await waiting[1]!.closed;
  const another = await poll(async () => openWs(undefined).catch(() => null), 20_000, 'the place of a closed socket back', 20);
  for (const client of [...waiting, next, another]) client.ws.close();
});

test('per-key connection and subscription caps refuse past the cap, charge nothing for a refusal, and free the slot on close', async () => {
  const key = (await api.admin.createKey('capped', '2')).api_key;
  const start = await usedBy(key);
  const open = [await openSse('channel=trades', key), await openSse('channel=trades', key), await openSse('channel=trades', key)];
  expect(open.map((c) => c.status)).toEqual([200, 200, 200]);
  const fourth = await openSse('channel=trades', key);
  expect(fourth.status).toBe(429);
  expect(fourth.body).toMatchObject({ code: 'RATE_LIMITED', reason: 'account_limit' });
  expect(fourth.body.error).toMatch(/STREAM_CONNECTIONS_PER_KEY/);
  // Three connections served, one refused at opening: three calls.
  await waitFor('the refusal given back', async () => (await usedBy(key)) === start + 3);
  await expect(openWs(key)).rejects.toMatchObject({ status: 429 });
  open[0]!.close();
  await open[0]!.ended;
  await waitFor('the slot back', async () => {
    const again = await openSse('channel=trades', key);
    again.close();
    return again.status === 200;
  });
  for (const client of open) client.close();

  // 4 subscriptions per key, over all its connections.
  const other = (await api.admin.createKey('subscriber', '2')).api_key;
  const ws = await openWs(other);
  for (const id of ['a', 'b', 'c', 'd']) {
    ws.send({ type: 'subscribe', channel: 'trades', subscription: id });
    await subscribed(ws, id);
  }
  ws.send({ type: 'subscribe', channel: 'trades', subscription: 'e' });
  expect(await errorOf(ws)).toMatchObject({ code: 'limit_reached', subscription: 'e' });
  await waitFor('four subscriptions counted, the refused one given back', async () => (await usedBy(other)) === 4);
  ws.send({ type: 'unsubscribe', subscription: 'a' });
  ws.send({ type: 'subscribe', channel: 'trades', subscription: 'e' });
  await subscribed(ws, 'e');
  // Five subscriptions opened (a-d, then e), one refused: five calls.
  await waitFor('five subscriptions counted', async () => (await usedBy(other)) === 5);
  ws.ws.close();
});

test('a WebSocket client that never reads is dropped with slow_consumer and its cursor; another subscriber keeps receiving', async () => {
  const stuck = await openWs(tier2Key);
  stuck.send({ type: 'subscribe', channel: 'trades', subscription: 'stuck', filters: { market: MARKET_FLOOD } });
  await subscribed(stuck, 'stuck');
  const control = await openWs(tier2Key);
  control.send({ type: 'subscribe', channel: 'trades', subscription: 'control', filters: { market: MARKET_B } });
  await subscribed(control, 'control');
  // The stuck client stops reading its socket: the kernel buffers fill, then the server's.
  (stuck.ws as unknown as { _socket: { pause(): void } })._socket.pause();
  const slowBefore = (await metricsText()).match(/tapeline_stream_slow_consumers_total (\d+)/)![1];
  for (let i = 0; i < 12; i++) await publisher.publish('trades', tradesOf(MARKET_FLOOD, 2_000));
  const live = tradesOf(MARKET_B, 5);
  await publisher.publish('trades', live);
  await waitFor('the control subscriber', async () => idsOf(control).includes(live.at(-1)!.event_id));
  await waitFor('the stuck client dropped', async () => {
    const now = (await metricsText()).match(/tapeline_stream_slow_consumers_total (\d+)/)![1];
    return Number(now) > Number(slowBefore);
  });

  // Reading again within the close's grace (STREAM_SLOW_CONSUMER_MS; past it the socket is cut), the
  // stuck client finds what was sent, then slow_consumer with its cursor, then the close.
  (stuck.ws as unknown as { _socket: { resume(): void } })._socket.resume();
  const closed = await stuck.closed;
  expect(closed).toEqual({ code: 4008, reason: 'slow_consumer' });
  const last = stuck.messages.at(-1);
  expect(last).toMatchObject({ type: 'error', code: 'slow_consumer', subscription: 'stuck' });
  expect(last.cursor).toBe(dataOf(stuck).at(-1)!.cursor);
  expect(dataOf(stuck).length).toBeLessThan(24_000);
  control.ws.close();
});

test('a cursor older than the retained log is cursor_expired (410 on SSE, an error message on WebSocket)', async () => {
  const client = await openSse(`channel=trades&market=${MARKET_A}`, tier2Key);
  const start = (await subscribed(client)).cursor;
  client.close();
  // Enough of market A for the hard cap to delete the segments the cursor points into.
  for (let i = 0; i < 4; i++) await publisher.publish('trades', tradesOf(MARKET_A, 500));
  await log.enforceRetention();
  const partition = partitionForKey(MARKET_A, PARTITIONS);
  const held = (await log.partitionOffsets(STREAMS.trades.topic))[partition]!;
  expect(held.startOffset).toBeGreaterThan(25);

  const before = await usedBy(tier2Key);
  const sse = await openSse(`channel=trades&market=${MARKET_A}&cursor=${start}`, tier2Key);
  expect(sse.status).toBe(410);
  expect(sse.body).toMatchObject({ code: 'GONE', reason: 'cursor_expired' });
  expect(sse.body.error).toMatch(/resync from REST/);
  const ws = await openWs(tier2Key);
  ws.send({ type: 'subscribe', channel: 'trades', subscription: 'old', filters: { market: MARKET_A }, cursor: start });
  expect(await errorOf(ws)).toMatchObject({ code: 'cursor_expired', subscription: 'old', parameter: 'cursor' });
  // Nothing opened, nothing charged; a malformed cursor is the caller's mistake and counts, as a REST 400 does.
  await waitFor('the expired cursors given back', async () => (await usedBy(tier2Key)) === before);
  ws.send({ type: 'subscribe', channel: 'trades', subscription: 'bad', cursor: 'not-a-cursor' });
  await waitFor('the malformed cursor refused', async () => ws.messages.some((m) => m.type === 'error' && m.subscription === 'bad'));
  expect(ws.messages.find((m) => m.subscription === 'bad')).toMatchObject({ code: 'bad_request', parameter: 'cursor' });
  await waitFor('the malformed cursor counted', async () => (await usedBy(tier2Key)) === before + 1);
  ws.ws.close();
});

async function metricsText(): Promise<string> {
  const families = await api.api.metrics.collect();
  return families.map((family) => family.samples.map((sample) => `${family.name} ${sample.value}`).join('\n')).join('\n');
}

/** tapeline_stream_log_reads_total by where the reads were answered. */
async function repeatsFound(): Promise<number> {
  return (await api.api.metrics.collect()).find((f) => f.name === 'tapeline_stream_repeats_total')!.samples[0]!.value;
}

async function logReads(): Promise<{ memory: number; log: number }> {
  const family = (await api.api.metrics.collect()).find((f) => f.name === 'tapeline_stream_log_reads_total')!;
  const of = (from: string) => family.samples.find((sample) => sample.labels.from === from)!.value;
  return { memory: of('memory'), log: of('log') };
}
