/**
 * The `copy` stream channel over the real file log, chDB, PGlite and the copy engine: each account
 * receives exactly its own copy.executed and risk.blocked events (the intents GET /copy/intents lists,
 * each once, as the webhook payload), with no webhook subscription at all; filters work server-side;
 * a cursor resumes with no gap and no duplicate, on SSE and the WebSocket alike; a cursor retention
 * passed is 410 cursor_expired; a copy cursor on the strategy channel and a Tier 1 key are refused.
 * (The `strategy` channel's delivery is proven in test/copy/strategies.int.test.ts.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { pruneAccountEvents } from '../../services/copy/account-events.js';
import { type CopyEngine, COPY_GROUP_ID, startCopyEngine } from '../../services/copy/copy-engine.js';
import { EventPublisher } from '../../services/events/publisher.js';
import type { FileEventLog } from '../../services/eventlog/file-log.js';
import { STREAMS } from '../../services/read-models/registry.js';
import { sinkLag, type SinkService, startSink } from '../../services/sink/sink-service.js';
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { chainFill, conditionId, marketUpserted, txHash, walletAddress } from '../support/events.js';
import { requestJson } from '../support/http.js';
import { openStreamTestLog } from '../support/stream-log.js';
import { errorOf, expectChannelRefused, messagesOf, openSse, openWs, subscribed, waitFor } from '../support/stream-clients.js';

const chdbPath = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-account-channels-chdb-'));
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-account-channels-log-'));
const LEADER = walletAddress(0xa11);
const POLITICS = conditionId(0xa1);
const OTHER_MARKET = conditionId(0xa2);

let log: FileEventLog;
let api: ApiHarness;
let sink: SinkService;
let engine: CopyEngine;
let publisher: EventPublisher;

beforeAll(async () => {
  log = await openStreamTestLog(logDir);
  publisher = new EventPublisher(log);
  api = await startApiHarness({
    chdbPath,
    database: 'account_channels',
    log,
    env: { STREAM_HEARTBEAT_MS: '300', STREAM_POLL_MS: '20', STREAM_READ_BATCH: '2' },
  });
  sink = await startSink(log, api.store, pino({ level: 'silent' }));
  engine = await startCopyEngine({
    log,
    control: api.control,
    store: api.store,
    logger: pino({ level: 'silent' }),
    maxFillAgeMs: 120_000,
    maxPendingPerSubscription: 100,
    accountEventRetentionMs: 86_400_000,
    groupId: 'account-channels-test',
  });
  await publisher.publish('markets', [
    marketUpserted({ market_id: POLITICS, category: 'Politics', slug: 'account-politics' }),
    marketUpserted({ market_id: OTHER_MARKET, category: 'Politics' }),
  ]);
  await waitFor('the markets stored', async () => Object.values(await sinkLag(log)).every((lag) => lag === 0));
}, 60_000);

afterAll(async () => {
  await engine?.stop();
  await sink?.stop();
  await api?.close();
  await log?.close();
  fs.rmSync(logDir, { recursive: true, force: true });
  fs.rmSync(chdbPath, { recursive: true, force: true });
});

const call = (method: string, route: string, key: string, body?: unknown) => requestJson(method, `${api.base}/v1${route}`, key, body);
const copied = () =>
  waitFor('the copy engine to catch up', async () =>
    Object.values(await sinkLag(log, [STREAMS.chainLedger.topic, STREAMS.trades.topic], 'account-channels-test')).every((l) => l === 0),
  );

test('copy: each account gets exactly its own events, filtered, resumable, expiring; others are refused', async () => {
  expect(COPY_GROUP_ID).not.toBe('account-channels-test');
  const follower = (await api.admin.createKey('follower', '2')).api_key;
  const other = (await api.admin.createKey('other', '2')).api_key;
  const tier1 = (await api.admin.createKey('free', '1')).api_key;
  const followerAccount = Number((await api.accounts.authenticate(follower))!.account_id);
  const otherAccount = Number((await api.accounts.authenticate(other))!.account_id);

  // Subscribed before anything happens: live from the feed's end. No account has a webhook subscription.
  const live = await openSse(api.base, 'channel=copy', follower);
  expect(live.status).toBe(200);
  const start = (await subscribed(live)).cursor;
  const otherWs = await openWs(api.base, other);
  otherWs.send({ type: 'subscribe', channel: 'copy', subscription: 'mine' });
  await subscribed(otherWs, 'mine');

  // The follower: A copies 10 USDC per fill (dry run); B allows only Sports, so every fill is risk.blocked. The other account: C.
  const a = (await call('POST', '/copy/subscriptions', follower, { leader_wallet: LEADER, sizing: { rule: 'fixed', usdc: 10 } })).body.data;
  const b = (
    await call('POST', '/copy/subscriptions', follower, {
      leader_wallet: LEADER,
      sizing: { rule: 'fixed', usdc: 10 },
      limits: { allowed_categories: ['Sports'] },
    })
  ).body.data;
  const c = (await call('POST', '/copy/subscriptions', other, { leader_wallet: LEADER, sizing: { rule: 'fixed', usdc: 5 } })).body.data;
  expect([a.id, b.id, c.id].every((id) => Number.isInteger(id))).toBe(true);

  const at = Date.now() + 1_000;
  await publisher.publish(
    'chainLedger',
    [1, 2, 3].map((n) =>
      chainFill({
        tx_hash: txHash(0xa00 + n),
        wallet: LEADER,
        market_id: n === 3 ? OTHER_MARKET : POLITICS,
        ledger_group: n === 3 ? OTHER_MARKET : POLITICS,
        block_time_ms: at,
        fill: { side: 'buy', asset_id: `77${n}`, shares_micro: '100000000', usdc_micro: '50000000', price: 0.5 },
      }),
    ),
  );
  await copied();

  // Exactly the follower's intents, each once, in the feed's order; the other account's only its own.
  const intents = (await call('GET', '/copy/intents?limit=50', follower)).body.data;
  expect(intents).toHaveLength(6);
  await waitFor('the follower streamed its 6 events', async () => messagesOf(live, 'copy').length >= 6);
  await waitFor('the other account streamed its 3 events', async () => messagesOf(otherWs, 'copy', 'mine').length >= 3);
  await new Promise((resolve) => setTimeout(resolve, 400));
  const mine = messagesOf(live, 'copy');
  expect(mine).toHaveLength(6);
  expect(mine.map((m) => m.data.trade_intent_id).sort()).toEqual(intents.map((i: any) => i.trade_intent_id).sort());
  expect(new Set(mine.map((m) => m.data.id)).size).toBe(6);
  expect(mine.every((m) => m.data.user_id === followerAccount && m.channel === 'copy')).toBe(true);
  expect(mine.filter((m) => m.data.event === 'risk.blocked').map((m) => [m.data.copy_subscription_id, m.data.reason])).toEqual([
    [b.id, 'category_not_allowed'],
    [b.id, 'category_not_allowed'],
    [b.id, 'category_not_allowed'],
  ]);
  expect(mine.find((m) => m.data.event === 'copy.executed')!.data).toMatchObject({
    copy_subscription_id: a.id,
    leader_wallet: LEADER,
    child_size_usdc: 10,
    leader_size_usdc: 50,
    status: 'dry_run',
    dry_run: true,
  });
  const theirs = messagesOf(otherWs, 'copy', 'mine');
  expect(theirs).toHaveLength(3);
  expect(theirs.every((m) => m.data.user_id === otherAccount && m.data.copy_subscription_id === c.id)).toBe(true);
  live.close();

  // Resume: from the start cursor, everything again; from the second message's cursor, exactly the rest.
  const replay = await openSse(api.base, `channel=copy&cursor=${start}`, follower);
  await waitFor('the replay', async () => messagesOf(replay, 'copy').length >= 6);
  expect(messagesOf(replay, 'copy').map((m) => m.data.id)).toEqual(mine.map((m) => m.data.id));
  replay.close();
  const rest = await openSse(api.base, 'channel=copy', follower, { 'last-event-id': mine[1].cursor });
  await waitFor('the rest', async () => messagesOf(rest, 'copy').length >= 4);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(messagesOf(rest, 'copy').map((m) => m.data.id)).toEqual(mine.slice(2).map((m) => m.data.id));
  rest.close();

  // Server-side filters: by event type, by copy subscription, by market (slug).
  const blocked = await openSse(api.base, `channel=copy&event=risk.blocked&cursor=${start}`, follower);
  const ofA = await openSse(api.base, `channel=copy&copy_subscription_id=${a.id}&cursor=${start}`, follower);
  const ws = await openWs(api.base, follower);
  ws.send({ type: 'subscribe', channel: 'copy', subscription: 'politics', filters: { market: 'account-politics' }, cursor: start });
  await waitFor('the filtered replays', async () => {
    const done = (client: { messages: any[] }) => client.messages.some((m) => m.type === 'heartbeat');
    return done(blocked) && done(ofA) && messagesOf(ws, 'heartbeat', 'politics').length > 0;
  });
  expect(messagesOf(blocked, 'copy').map((m) => m.data.id)).toEqual(
    mine.filter((m) => m.data.event === 'risk.blocked').map((m) => m.data.id),
  );
  expect(messagesOf(ofA, 'copy').map((m) => m.data.id)).toEqual(
    mine.filter((m) => m.data.copy_subscription_id === a.id).map((m) => m.data.id),
  );
  expect(messagesOf(ws, 'copy', 'politics').map((m) => m.data.id)).toEqual(
    mine.filter((m) => m.data.market_id === POLITICS).map((m) => m.data.id),
  );
  blocked.close();
  ofA.close();

  // Bad filters and cursors name the parameter; a copy cursor is not a strategy cursor.
  expect((await openSse(api.base, `channel=copy&wallet=0x${'1'.repeat(40)}`, follower)).body.error).toMatch(/^wallet: unknown filter/);
  ws.send({ type: 'subscribe', channel: 'copy', subscription: 'bad', filters: { copy_subscription_id: 'x' } });
  expect(await errorOf(ws)).toMatchObject({ code: 'bad_request', parameter: 'filters.copy_subscription_id', subscription: 'bad' });
  // A heartbeat's cursor is the feed's end (past the other account's events the filters never saw).
  const newest = messagesOf(ws, 'heartbeat', 'politics').at(-1).cursor;
  ws.ws.close();
  const crossed = await openSse(api.base, `channel=strategy&cursor=${start}`, follower);
  expect(crossed.status).toBe(400);
  expect(crossed.body.error).toMatch(/^cursor: a cursor of another channel/);
  await expectChannelRefused(api.base, tier1, 'copy');

  // Retention: past it, the start cursor is gone (410, resync from REST); the end still resumes. The newest of the 9 rows stays.
  expect(await pruneAccountEvents(api.control, Date.now() + 60_000)).toBe(8);
  const expired = await openSse(api.base, `channel=copy&cursor=${start}`, follower);
  expect(expired.status).toBe(410);
  expect(expired.body).toMatchObject({ code: 'GONE', reason: 'cursor_expired' });
  expect(expired.body.error).toMatch(/resync from REST \(\/v1\/copy\/intents\)/);
  const latest = await openSse(api.base, `channel=copy&cursor=${newest}`, follower);
  expect(latest.status).toBe(200);
  latest.close();
  otherWs.ws.close();
}, 90_000);
