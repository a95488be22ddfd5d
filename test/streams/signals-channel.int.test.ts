/**
 * The `signals` stream channel over the real embedded file log, the API app (chDB, PGlite) and the
 * signals processor: a subscriber to a market receives exactly the signals a webhook subscription to
 * every event type gets delivered for it (the same payloads, `event` field included, each once);
 * event, market and wallet filter server-side; a reconnect with a cursor misses and repeats nothing;
 * backfilled trades decide no signal; a volume spike is streamed as delivered; a filter the channel
 * does not have, or a bad value, is refused naming it; a Tier 1 key is refused the channel.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { Accounts } from '../../services/control/accounts.js';
import { EventPublisher } from '../../services/events/publisher.js';
import type { TradeExecuted } from '../../services/events/types.generated.js';
import type { FileEventLog } from '../../services/eventlog/file-log.js';
import { type SignalsService, startSignals } from '../../services/signals/signals-service.js';
import { type SinkService, startSink } from '../../services/sink/sink-service.js';
import { WebhookSubscriptions } from '../../services/webhooks/subscriptions.js';
import { UrlGuard } from '../../services/webhooks/url-guard.js';
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { conditionId, marketTransition, marketUpserted, tradeExecuted, walletAddress } from '../support/events.js';
import { getJson } from '../support/http.js';
import { openStreamTestLog } from '../support/stream-log.js';
import {
  expectChannelRefused,
  messagesOf,
  openSse as openSse_,
  openWs as openWs_,
  subscribed,
  waitFor,
} from '../support/stream-clients.js';

const chdbPath = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-signals-chdb-'));
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-signals-log-'));

const SIG_A = conditionId(331);
const SIG_B = conditionId(332);
const SIG_C = conditionId(333);
const SIG_D = conditionId(334);
const SIG_E = conditionId(335);
const SIG_F = conditionId(336);
const WHALE = walletAddress(71);
const MINNOW = walletAddress(72);
const LARGE_TRADE_USDC = 1_000;
const CONTEXT = { trades_24h: 4, volume_24h_usdc: 12_345.5, markets_24h: 2, largest_trade_24h_usdc: 5_000 };

let log: FileEventLog;
let api: ApiHarness;
let signals: SignalsService;
/** Stores the markets, so `market` takes a slug. */
let sink: SinkService;
let publisher: EventPublisher;
let tier1Key: string;
let tier2Key: string;
/** The webhook subscription to every signal type whose deliveries the stream must equal. */
let subscriptionId: string;

const openSse = (query: string, key: string | undefined) => openSse_(api.base, query, key);
const openWs = (key: string | undefined) => openWs_(api.base, key);
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
const signalsOf = (client: { messages: any[] }, subscription?: string) => messagesOf(client, 'signal', subscription);
const byId = (payloads: any[]) => [...payloads].sort((a, b) => (a.id < b.id ? -1 : 1));

/** The webhook bodies the outbox holds for `market`, without `delivery_id` (a delivery's own, not the event's). */
async function delivered(market: string): Promise<any[]> {
  const sql = 'SELECT body FROM webhook_deliveries WHERE subscription_id = $1';
  const rows = await api.control.query<{ body: unknown }>(sql, [subscriptionId]);
  return rows
    .map((r) => (typeof r.body === 'string' ? JSON.parse(r.body) : r.body))
    .filter((body) => body.market_id === market)
    .map(({ delivery_id: _, ...payload }) => payload);
}

beforeAll(async () => {
  log = await openStreamTestLog(logDir);
  publisher = new EventPublisher(log);
  api = await startApiHarness({
    chdbPath,
    database: 'signals_channel',
    log,
    env: { STREAM_HEARTBEAT_MS: '300', STREAM_POLL_MS: '20', STREAM_READ_BATCH: '3' },
  });
  tier1Key = (await api.admin.createKey('free', '1')).api_key;
  tier2Key = (await api.admin.createKey('paid', '2')).api_key;
  const account = (await new Accounts(api.control).registerAgent('signals-channel')).account_id;
  const subscriptions = new WebhookSubscriptions({
    store: api.control,
    guard: new UrlGuard(['127.0.0.1']),
    clock: Date.now,
    secretGraceMs: 0,
  });
  // No dispatcher runs: the deliveries stay in the outbox, where the test reads their bodies.
  const subscription = await subscriptions.create(account, {
    url: 'http://127.0.0.1:9/hook',
    events: ['trade.executed', 'trader.large_trade', 'market.price_signal', 'market.volume_spike', 'market.resolved'],
  });
  subscriptionId = subscription.id;
  signals = await startSignals({
    log,
    control: api.control,
    traderContext: async () => CONTEXT,
    largeTradeUsdc: LARGE_TRADE_USDC,
    maxPendingPerSubscription: 10_000,
    priceChangePct: 10,
    priceWindowMs: 3_600_000,
    // Only SIG_F's trades reach 50,000 USDC in an hour (the other markets' stay under 10,000). Its
    // indexed baseline: 240 USDC in the day before, 10 an hour.
    volume: {
      windowMs: 3_600_000,
      baselineMs: 86_400_000,
      spikeRatio: 3,
      minUsdc: 50_000,
      seed: async (markets, _from, to) =>
        markets.includes(SIG_F) ? [[SIG_F, Math.floor((to - 3_600_000) / 60_000) * 60_000, 240] as [string, number, number]] : [],
    },
    logger: pino({ level: 'silent' }),
    groupId: 'signals-channel-test',
  });
  await publisher.publish('markets', [
    marketUpserted({ market_id: SIG_A, event_id: 'sig-a', slug: 'sig-a-market' }),
    marketUpserted({ market_id: SIG_B, event_id: 'sig-b' }),
    marketUpserted({ market_id: SIG_C, event_id: 'sig-c' }),
    marketUpserted({ market_id: SIG_D, event_id: 'sig-d' }),
    marketUpserted({ market_id: SIG_E, event_id: 'sig-e' }),
    marketUpserted({ market_id: SIG_F, event_id: 'sig-f' }),
  ]);
  sink = await startSink(log, api.store, pino({ level: 'silent' }));
  await waitFor('the markets stored', async () => (await getJson(`${api.base}/v1/markets/sig-a-market`, tier1Key)).status === 200);
}, 60_000);

afterAll(async () => {
  await signals?.stop();
  await sink?.stop();
  await api?.close();
  await log?.close();
  fs.rmSync(logDir, { recursive: true, force: true });
});

/** Trade times: after the webhook subscription (so it is delivered them), a second apart, each call after the last. */
let nextTradeMs = Date.now();

/** Trades of `market` at these YES prices: every third from the second on a large one of WHALE, the others small. */
function tradesOf(market: string, tag: string, prices: number[]): TradeExecuted[] {
  const start = Math.max(nextTradeMs, Date.now());
  nextTradeMs = start + prices.length * 1_000;
  return prices.map((price, i) =>
    tradeExecuted({
      event_id: `${tag}-${i}`,
      market_id: market,
      market_title: `Market ${tag}?`,
      wallet: i % 3 === 1 ? WHALE : MINNOW,
      price,
      yes_price: price,
      size: i % 3 === 1 ? 4_000 : 20,
      size_usdc: i % 3 === 1 ? 4_000 * price : 20 * price,
      timestamp_ms: start + i * 1_000,
      ingested_at_ms: start + i * 1_000,
    }),
  );
}

/** The lifecycle's notified resolution of `market`. */
const resolution = (market: string) =>
  marketTransition({
    market_id: market,
    revision: 2,
    kind: 'resolved',
    from_state: 'closed',
    to_state: 'resolved',
    resolution_number: 1,
    resolved_outcome: 'Yes',
    winning_outcome_index: 0,
    payouts: [1, 0],
    final_yes_price: 1,
    final_no_price: 0,
    observed_at_ms: Date.now(),
    notify: true,
  });

test('a subscriber to one market (by slug) receives exactly the signals webhooks deliver for it, the same payloads, each once', async () => {
  const all = await openSse('channel=signals&market=sig-a-market', tier2Key);
  expect(all.status).toBe(200);
  expect(await subscribed(all)).toMatchObject({ channel: 'signals' });
  await publisher.publish('trades', [
    ...tradesOf(SIG_A, 'a', [0.5, 0.52, 0.51, 0.6, 0.61, 0.62]),
    ...tradesOf(SIG_B, 'b', [0.3, 0.4, 0.5]),
  ]);
  // SIG_B's signals are dropped by the market filter.
  await publisher.publish('marketLifecycle', [resolution(SIG_A), resolution(SIG_B)]);

  // trade.executed x6, trader.large_trade x2 (the 2nd and 5th trades), one price move, the resolution.
  await waitFor('the webhook deliveries', async () => (await delivered(SIG_A)).length === 10);
  await waitFor('the signals', async () => signalsOf(all).length >= 10);
  await settle();
  const received = signalsOf(all).map((m) => m.data);
  expect(received.length).toBe(10);
  expect(byId(received)).toEqual(byId(await delivered(SIG_A)));
  expect(received.map((p) => p.event).sort()).toEqual([
    'market.price_signal',
    'market.resolved',
    ...Array(6).fill('trade.executed'),
    'trader.large_trade',
    'trader.large_trade',
  ]);
  expect(received.find((p) => p.event === 'trader.large_trade')).toMatchObject({
    wallet: WHALE,
    threshold_usdc: LARGE_TRADE_USDC,
    trader: { wallet: WHALE, ...CONTEXT },
  });
  expect(signalsOf(all).every((m) => m.channel === 'signals' && m.data.market_id === SIG_A)).toBe(true);
  all.close();
});

test('event, market and wallet filter server-side (an SSE list, a WebSocket array)', async () => {
  const market = SIG_D;
  const byEvent = await openSse(`channel=signals&market=${market}&event=trader.large_trade,market.resolved`, tier2Key);
  const client = await openWs(tier2Key);
  client.send({
    type: 'subscribe',
    channel: 'signals',
    subscription: 'w',
    filters: { market, wallet: WHALE.replace(/[a-f]/g, (c) => c.toUpperCase()) },
  });
  client.send({ type: 'subscribe', channel: 'signals', subscription: 'p', filters: { event: ['market.price_signal'], market } });
  await subscribed(byEvent);
  await subscribed(client, 'w');
  await subscribed(client, 'p');
  // trade.executed x4, trader.large_trade x1 (WHALE's), one price move, the resolution.
  await publisher.publish('trades', tradesOf(market, 'd', [0.5, 0.51, 0.7, 0.71]));
  await publisher.publish('marketLifecycle', [resolution(market)]);

  await waitFor('the deliveries', async () => (await delivered(market)).length === 7);
  await waitFor('the filtered signals', async () => signalsOf(byEvent).length >= 2 && signalsOf(client, 'w').length >= 2);
  await settle();
  const all = await delivered(market);
  const expected = (keep: (p: any) => boolean) => byId(all.filter(keep));
  expect(byId(signalsOf(byEvent).map((m) => m.data))).toEqual(
    expected((p) => p.event === 'trader.large_trade' || p.event === 'market.resolved'),
  );
  expect(signalsOf(byEvent).length).toBe(2);
  expect(byId(signalsOf(client, 'w').map((m) => m.data))).toEqual(expected((p) => p.wallet === WHALE));
  expect(
    signalsOf(client, 'w')
      .map((m) => m.data.event)
      .sort(),
  ).toEqual(['trade.executed', 'trader.large_trade']);
  expect(byId(signalsOf(client, 'p').map((m) => m.data))).toEqual(expected((p) => p.event === 'market.price_signal'));
  expect(signalsOf(client, 'p').length).toBe(1);
  byEvent.close();
  client.ws.close();
});

test('resume over the WebSocket with a cursor has no gap and no duplicate', async () => {
  const market = SIG_C;
  const client = await openWs(tier2Key);
  client.send({ type: 'subscribe', channel: 'signals', subscription: 'c', filters: { market } });
  await subscribed(client, 'c');
  await publisher.publish('trades', tradesOf(market, 'c1', [0.4, 0.41, 0.5, 0.51, 0.52]));
  await waitFor('the first signals', async () => signalsOf(client, 'c').length >= 4);
  const kept = signalsOf(client, 'c').slice(0, 4);
  client.ws.terminate();
  await publisher.publish('trades', tradesOf(market, 'c2', [0.6, 0.61, 0.62]));
  await publisher.publish('marketLifecycle', [resolution(market)]);
  // Before: trade.executed x5, trader.large_trade x2, one price move; while away: x3, x1, one move, the resolution.
  await waitFor('every delivery', async () => (await delivered(market)).length === 14);

  const again = await openWs(tier2Key);
  again.send({ type: 'subscribe', channel: 'signals', subscription: 'c', filters: { market }, cursor: kept.at(-1).cursor });
  const all = await delivered(market);
  await waitFor('the rest', async () => kept.length + signalsOf(again, 'c').length >= all.length);
  await settle();
  const resumed = [...kept, ...signalsOf(again, 'c')].map((m) => m.data);
  expect(new Set(resumed.map((p) => p.id)).size).toBe(resumed.length);
  expect(byId(resumed)).toEqual(byId(all));
  again.ws.close();
});

test('trades ingested long after they happened (a backfill) decide no signal, delivered or streamed; a live trade after them does', async () => {
  const market = SIG_E;
  const client = await openSse(`channel=signals&market=${market}`, tier2Key);
  await subscribed(client);
  // Two hours old when ingested now: past the hour of live-trade.ts, whatever their sizes and price jumps.
  const now = Date.now();
  const backfilled = tradesOf(market, 'e-old', [0.3, 0.6, 0.9]).map((trade, i) => ({
    ...trade,
    timestamp_ms: now - 2 * 3_600_000 + i * 1_000,
    ingested_at_ms: now,
  }));
  const [live] = tradesOf(market, 'e-live', [0.9]);
  await publisher.publish('trades', [...backfilled, live!]);
  await waitFor('the live trade delivered', async () => (await delivered(market)).length >= 1);
  await waitFor('the live trade streamed', async () => signalsOf(client).length >= 1);
  await settle();
  expect((await delivered(market)).map((p) => [p.event, p.trade_id])).toEqual([['trade.executed', live!.event_id]]);
  expect(signalsOf(client).map((m) => [m.data.event, m.data.trade_id])).toEqual([['trade.executed', live!.event_id]]);
  client.close();
});

test('a volume spike is streamed as delivered, once per surge', async () => {
  const market = SIG_F;
  const client = await openSse(`channel=signals&market=${market}&event=market.volume_spike,trader.large_trade`, tier2Key);
  await subscribed(client);
  // 30,000 USDC a trade: the second brings the hour to 60,000, a spike; the third is within the quiet window.
  const surge = tradesOf(market, 'f', [0.5, 0.5, 0.5]).map((trade) => ({ ...trade, wallet: WHALE, size: 60_000, size_usdc: 30_000 }));
  await publisher.publish('trades', surge);
  await waitFor('the deliveries', async () => (await delivered(market)).length === 7);
  await waitFor('the streamed signals', async () => signalsOf(client).length >= 4);
  await settle();
  const all = await delivered(market);
  expect(all.map((p) => p.event).sort()).toEqual([
    'market.volume_spike',
    ...Array(3).fill('trade.executed'),
    ...Array(3).fill('trader.large_trade'),
  ]);
  const spike = all.find((p) => p.event === 'market.volume_spike');
  expect(spike).toMatchObject({ market_id: market, volume_usdc: 60_000, baseline_hourly_usdc: 10, ratio: 6000 });
  expect(byId(signalsOf(client).map((m) => m.data))).toEqual(byId(all.filter((p) => p.event !== 'trade.executed')));
  client.close();
});

test('a filter the channel does not have, or a bad value, is a 400 (SSE) or an error message (WebSocket) naming it', async () => {
  const cases: Array<[string, RegExp]> = [
    ['channel=signals&side=buy', /^side: unknown filter \(signals filters: event, market, wallet\)/],
    ['channel=signals&event=copy.executed', /^event/],
    ['channel=signals&event=resolved', /^event/],
    ['channel=signals&wallet=0x12', /^wallet/],
  ];
  for (const [query, message] of cases) {
    const refused = await openSse(query, tier2Key);
    expect([query, refused.status]).toEqual([query, 400]);
    expect([query, refused.body.error]).toEqual([query, expect.stringMatching(message)]);
  }
  const client = await openWs(tier2Key);
  const asked: Array<[unknown, string]> = [
    [{ type: 'subscribe', channel: 'signals', filters: { event: ['market.resolved', 'strategy.signal'] } }, 'filters.event'],
    [{ type: 'subscribe', channel: 'signals', filters: { event: [] } }, 'filters.event'],
    [{ type: 'subscribe', channel: 'signals', filters: { min_size: 1 } }, 'filters.min_size'],
    [{ type: 'subscribe', channel: 'signals', filters: { wallet: 'whale' } }, 'filters.wallet'],
  ];
  for (const [message, parameter] of asked) {
    const before = client.messages.length;
    client.send(message);
    await waitFor('an answer', async () => client.messages.length > before);
    expect([message, client.messages.at(-1)]).toEqual([
      message,
      expect.objectContaining({ type: 'error', code: 'bad_request', parameter }),
    ]);
  }
  client.ws.close();
});

test('signals needs Tier 2 (it carries every trade with its wallet, as the trades channel): a Tier 1 key is refused it', async () => {
  await expectChannelRefused(api.base, tier1Key, 'signals', 'channel=signals&event=market.resolved');
});
