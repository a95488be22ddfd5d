/**
 * The `fills`, `lifecycle` and `prices` stream channels over the real embedded file log and the API app (chDB,
 * PGlite, the sink for the REST comparison): a subscriber receives exactly the records of its
 * filters, in order, as the same objects REST serves for them (/markets/{id}/trades for chain fills,
 * the market detail's lifecycle block for transitions); a reconnect with a cursor misses and repeats
 * nothing; a filter the channel does not have, or a bad value, is refused naming it; each channel
 * needs its REST equivalent's tier.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { EventPublisher } from '../../services/events/publisher.js';
import type { ChainLedgerEvent, MarketLifecycleTransition, PriceTick } from '../../services/events/types.generated.js';
import type { FileEventLog } from '../../services/eventlog/file-log.js';
import { openStreamTestLog } from '../support/stream-log.js';
import { partitionForKey } from '../../services/eventlog/partitioner.js';
import { STREAMS } from '../../services/read-models/registry.js';
import { type SinkService, startSink } from '../../services/sink/sink-service.js';
import { channelNamed, channelNames } from '../../services/streams/channels.js';
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import {
  chainFill,
  chainLedgerEvent,
  conditionId,
  marketTransition,
  marketUpserted,
  priceTick,
  T0,
  txHash,
  walletAddress,
} from '../support/events.js';
import { getJson } from '../support/http.js';
import {
  expectChannelRefused,
  messagesOf,
  openSse as openSse_,
  openWs as openWs_,
  subscribed,
  waitFor,
} from '../support/stream-clients.js';

const chdbPath = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-channels-chdb-'));
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-channels-log-'));

const FILLS_A = conditionId(301);
const FILLS_B = conditionId(302);
/** A neg-risk market: its fills are keyed by its neg-risk event's id, on another partition than its own id's. */
const FILLS_NEG = conditionId(303);
const NEG_GROUP = (() => {
  const partitions = STREAMS.chainLedger.partitions;
  for (let n = 400; ; n++)
    if (partitionForKey(conditionId(n), partitions) !== partitionForKey(FILLS_NEG, partitions)) return conditionId(n);
})();
const LIFE_A = conditionId(311);
const LIFE_B = conditionId(312);
const PRICE_A = conditionId(321);
const PRICE_B = conditionId(322);

let log: FileEventLog;
let api: ApiHarness;
let sink: SinkService;
let publisher: EventPublisher;
let tier2Key: string;
let tier1Key: string;

const openSse = (query: string, key: string | undefined, headers: Record<string, string> = {}) => openSse_(api.base, query, key, headers);
const openWs = (key: string | undefined) => openWs_(api.base, key);
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

beforeAll(async () => {
  log = await openStreamTestLog(logDir);
  publisher = new EventPublisher(log);
  api = await startApiHarness({
    chdbPath,
    database: 'channels',
    log,
    env: { STREAM_HEARTBEAT_MS: '300', STREAM_POLL_MS: '20', STREAM_READ_BATCH: '7' },
  });
  sink = await startSink(log, api.store, pino({ level: 'silent' }));
  tier2Key = (await api.admin.createKey('streamer', '2')).api_key;
  tier1Key = (await api.admin.createKey('free', '1')).api_key;
  await publisher.publish('markets', [
    marketUpserted({ market_id: FILLS_A, event_id: 'fills-a' }),
    marketUpserted({ market_id: LIFE_A, event_id: 'life-a', slug: 'life-a-market' }),
    marketUpserted({ market_id: LIFE_B, event_id: 'life-b' }),
    marketUpserted({ market_id: PRICE_A, event_id: 'price-a', slug: 'price-a-market' }),
    marketUpserted({ market_id: PRICE_B, event_id: 'price-b' }),
  ]);
}, 60_000);

afterAll(async () => {
  await sink?.stop();
  await api?.close();
  await log?.close();
  fs.rmSync(logDir, { recursive: true, force: true });
});

// --- fills ------------------------------------------------------------------------------------------

let match = 0;

/**
 * `count` matches of `market` in chain order, each a maker fill and its taker fill in one
 * transaction, with wallets, sides, sizes and fees that vary so every filter keeps some and drops some.
 */
function matchesOf(market: string, count: number, ledgerGroup = market): ChainLedgerEvent[] {
  return Array.from({ length: count }, () => {
    const n = ++match;
    const block = 80_000_000 + n;
    const shares = 1_000_000n * BigInt(5 + (n % 9));
    const priceMicro = 300_000n + BigInt((n % 5) * 50_000);
    const usdc = (shares * priceMicro) / 1_000_000n;
    const price = Number(priceMicro) / 1e6;
    const common = {
      market_id: market,
      ledger_group: ledgerGroup,
      neg_risk: ledgerGroup !== market,
      market_title: `Market ${market.slice(-4)}?`,
      tx_hash: txHash(5_000 + n),
      block_number: block,
      block_hash: `0x${block.toString(16).padStart(64, '0')}`,
      block_time_ms: T0 + n * 2_000,
    };
    const takerSide = n % 2 === 0 ? 'buy' : 'sell';
    const fill = { shares_micro: String(shares), usdc_micro: String(usdc), price, yes_price: price, outcome: 'Yes', outcome_index: 0 };
    return [
      chainFill({
        ...common,
        log_index: 4,
        wallet: walletAddress(n % 3 === 0 ? 20 : 25),
        fill: { ...fill, role: 'maker', side: takerSide === 'buy' ? 'sell' : 'buy', fee_micro: '0' },
      }),
      chainFill({
        ...common,
        log_index: 5,
        wallet: walletAddress(20 + (Math.floor(n / 2) % 2)),
        fill: {
          ...fill,
          role: 'taker',
          side: takerSide,
          fee_micro: String(1_000n + BigInt(n)),
          fee_asset: n % 4 === 0 ? 'shares' : 'usdc',
        },
      }),
    ];
  }).flat();
}

const fillIds = (client: { messages: any[] }, subscription?: string) =>
  messagesOf(client, 'fill', subscription).map((m) => m.data.trade_id);

test('fills: an SSE subscriber to one market receives exactly its chain fills of both sides, in chain order, as /markets/{id}/trades serves them', async () => {
  const client = await openSse(`channel=fills&market=${FILLS_A}`, tier2Key);
  expect(client.status).toBe(200);
  expect(await subscribed(client)).toMatchObject({ channel: 'fills', subscription: 'sse' });
  const negRisk = await openSse(`channel=fills&market=${FILLS_NEG}`, tier2Key);
  await subscribed(negRisk);
  const ofA = matchesOf(FILLS_A, 12);
  const ofB = matchesOf(FILLS_B, 12);
  const ofNeg = matchesOf(FILLS_NEG, 4, NEG_GROUP);
  // Interleaved with the other market and with ledger events that are not fills, in several produce calls.
  for (let i = 0; i < ofA.length; i += 6) {
    const others = [
      chainLedgerEvent({ market_id: FILLS_A, tx_hash: txHash(9_000 + i), block_number: 81_000_000 + i, block_time_ms: T0 + i }),
      chainLedgerEvent({
        kind: 'watermark',
        market_id: '',
        ledger_group: FILLS_A,
        event_id: `137:watermark:${FILLS_A}:${i}`,
        position_change: null,
        tx_hash: '',
        log_index: -1,
      }),
    ];
    await publisher.publish('chainLedger', [...ofA.slice(i, i + 6), ...others, ...ofB.slice(i, i + 6)]);
  }
  await publisher.publish('chainLedger', ofNeg);
  await waitFor('24 fills', async () => messagesOf(client, 'fill').length >= ofA.length);
  await settle();
  expect(fillIds(client)).toEqual(ofA.map((e) => e.event_id));
  expect(messagesOf(client, 'fill').every((m) => m.channel === 'fills')).toBe(true);
  expect(new Set(messagesOf(client, 'fill').map((m) => m.data.role))).toEqual(new Set(['maker', 'taker']));

  // The same objects, field for field, as the REST tape serves for these chain records (both roles).
  const restOf = async () => (await getJson(`${api.base}/v1/markets/${FILLS_A}/trades?role=all&limit=100`, tier2Key)).body.data as any[];
  await waitFor('the REST tape', async () => (await restOf())?.length === ofA.length);
  const rest = await restOf();
  expect(rest.every((t) => t.origin === 'chain')).toBe(true);
  expect(messagesOf(client, 'fill').map((m) => m.data)).toEqual([...rest].reverse());
  client.close();

  // A neg-risk market's fills travel on its event's partition: the market filter still finds them all.
  await waitFor('the neg-risk fills', async () => messagesOf(negRisk, 'fill').length >= ofNeg.length);
  await settle();
  expect(fillIds(negRisk)).toEqual(ofNeg.map((e) => e.event_id));
  negRisk.close();
});

test('fills: a reorg is a fill_retracted message naming the orphaned block; every fill names its block, so a client drops exactly the voided ones', async () => {
  const market = conditionId(304);
  await publisher.publish('markets', [marketUpserted({ market_id: market, event_id: 'fills-reorg' })]);
  const all = await openSse(`channel=fills&market=${market}`, tier2Key);
  await subscribed(all);
  // A wallet filter the orphaned block's fills do not match: the retraction still reaches it (on the
  // WebSocket, so each transport carries one).
  const other = await openWs(tier2Key);
  other.send({ type: 'subscribe', channel: 'fills', subscription: 'other', filters: { wallet: walletAddress(99) } });
  await subscribed(other, 'other');
  const kept = matchesOf(market, 2);
  const orphaned = matchesOf(market, 2).map((e) => ({ ...e, block_number: 90_000_000, block_hash: `0x${'dead'.repeat(16)}` }));
  const replacements = orphaned.map((e) => ({ ...e, event_id: `${e.event_id}:r`, block_hash: `0x${'beef'.repeat(16)}` }));
  const retraction = chainLedgerEvent({
    event_id: `137:0x${'dead'.repeat(16)}:${market}:retracted`,
    kind: 'block_retracted',
    block_number: 90_000_000,
    block_hash: `0x${'dead'.repeat(16)}`,
    tx_hash: '',
    log_index: -1,
    contract: '',
    ledger_group: market,
    market_id: '',
    wallet: '',
    position_change: null,
  });
  await publisher.publish('chainLedger', [...kept, ...orphaned, retraction, ...replacements]);
  await waitFor(
    'the fills, the retraction and the replacements',
    async () => all.messages.filter((m) => m.type !== 'heartbeat').length >= 10,
  );
  await waitFor('the retraction on the other subscription', async () => messagesOf(other, 'fill_retracted').length === 1);
  await settle();
  expect(all.messages.filter((m) => m.type === 'fill' || m.type === 'fill_retracted').map((m) => m.type)).toEqual([
    ...kept.map(() => 'fill'),
    ...orphaned.map(() => 'fill'),
    'fill_retracted',
    ...replacements.map(() => 'fill'),
  ]);
  expect(messagesOf(all, 'fill').map((m) => m.block_hash)).toEqual([...kept, ...orphaned, ...replacements].map((e) => e.block_hash));
  const [retracted] = messagesOf(all, 'fill_retracted');
  expect(retracted.data).toEqual({ block_number: 90_000_000, block_hash: `0x${'dead'.repeat(16)}`, ledger_group: market });
  expect(retracted.channel).toBe('fills');
  // What a client holds after dropping the retracted block's fills is what REST serves.
  const held = messagesOf(all, 'fill').filter((m) => m.block_hash !== retracted.data.block_hash);
  const restOf = async () => (await getJson(`${api.base}/v1/markets/${market}/trades?role=all&limit=100`, tier2Key)).body.data as any[];
  await waitFor('the REST tape without the orphaned block', async () => (await restOf())?.length === held.length);
  expect(held.map((m) => m.data)).toEqual([...(await restOf())].reverse());
  expect(messagesOf(other, 'fill')).toEqual([]);
  expect(messagesOf(other, 'fill_retracted').map((m) => m.data)).toEqual([retracted.data]);
  all.close();
  other.ws.close();
});

test('fills: WebSocket filters (wallet, side, role, min_size) server-side; resume with the cursor has no gap and no duplicate', async () => {
  const filters = { market: FILLS_A, wallet: walletAddress(20), side: 'buy', role: 'taker', min_size: 2.5 };
  const client = await openWs(tier2Key);
  client.send({ type: 'subscribe', channel: 'fills', subscription: 'f', filters });
  await subscribed(client, 'f');
  const produced = matchesOf(FILLS_A, 60);
  const wanted = produced.filter(
    (e) => e.wallet === filters.wallet && e.fill!.side === 'buy' && e.fill!.role === 'taker' && BigInt(e.fill!.usdc_micro) >= 2_500_000n,
  );
  expect(wanted.length).toBeGreaterThan(4);
  // Each filter drops something the others keep.
  const keeps = {
    wallet: (e: ChainLedgerEvent) => e.wallet === filters.wallet,
    side: (e: ChainLedgerEvent) => e.fill!.side === 'buy',
    role: (e: ChainLedgerEvent) => e.fill!.role === 'taker',
    min_size: (e: ChainLedgerEvent) => BigInt(e.fill!.usdc_micro) >= 2_500_000n,
  };
  for (const name of Object.keys(keeps) as Array<keyof typeof keeps>) {
    const others = Object.entries(keeps).filter(([other]) => other !== name);
    expect([name, produced.filter((e) => others.every(([, keep]) => keep(e))).length]).not.toEqual([name, wanted.length]);
  }
  await publisher.publish('chainLedger', produced.slice(0, 60));
  const early = wanted.filter((e) => produced.indexOf(e) < 60);
  await waitFor('the first half', async () => fillIds(client, 'f').length >= Math.min(3, early.length));
  const kept = messagesOf(client, 'fill', 'f').slice(0, 3);
  client.ws.terminate();

  await publisher.publish('chainLedger', produced.slice(60));
  const again = await openWs(tier2Key);
  again.send({ type: 'subscribe', channel: 'fills', subscription: 'f', filters, cursor: kept.at(-1)!.cursor });
  await waitFor('every wanted fill', async () => fillIds(again, 'f').length >= wanted.length - kept.length);
  await settle();
  expect([...kept.map((m) => m.data.trade_id), ...fillIds(again, 'f')]).toEqual(wanted.map((e) => e.event_id));
  again.ws.close();
});

// --- lifecycle --------------------------------------------------------------------------------------

/** A market's life: listed, closed, reopened, closed, resolved, confirmed by the chain. */
function lifeOf(market: string, slug: string): MarketLifecycleTransition[] {
  const base = { market_id: market, slug, title: `Market ${market.slice(-4)}?`, notify: true };
  const settled = {
    resolution_number: 1,
    resolved_outcome: 'Yes',
    winning_outcome_index: 0,
    payouts: [1, 0],
    final_yes_price: 1,
    final_no_price: 0,
  };
  const steps: Array<Partial<MarketLifecycleTransition>> = [
    { kind: 'listed', from_state: null, to_state: 'active', notify: false },
    { kind: 'closed', from_state: 'active', to_state: 'closed', occurred_at_ms: T0 + 10_500 },
    { kind: 'reopened', from_state: 'closed', to_state: 'active' },
    { kind: 'closed', from_state: 'active', to_state: 'closed', occurred_at_ms: T0 + 30_250 },
    { kind: 'resolved', from_state: 'closed', to_state: 'resolved', authority: 'clob-ws', occurred_at_ms: T0 + 40_125, ...settled },
    { kind: 'confirmed', from_state: 'resolved', to_state: 'resolved', authority: 'chain', ...settled },
  ];
  return steps.map((step, i) =>
    marketTransition({ ...base, ...step, revision: i + 1, event_id: `${market}:${i + 1}`, observed_at_ms: T0 + (i + 1) * 10_000 + 7 }),
  );
}

const lifecycleOf = (client: { messages: any[] }, subscription?: string) => messagesOf(client, 'lifecycle', subscription);

test("lifecycle: a subscriber to one market (by slug) receives exactly its transitions, in order, as the market detail's lifecycle block serves them", async () => {
  const all = await openSse('channel=lifecycle&market=life-a-market', tier2Key);
  expect(all.status).toBe(200);
  expect(await subscribed(all)).toMatchObject({ channel: 'lifecycle' });
  const settlements = await openSse(`channel=lifecycle&market=${LIFE_A}&event=closed,resolved`, tier2Key);
  expect([settlements.status, settlements.body]).toEqual([200, undefined]);
  await subscribed(settlements);
  const ofA = lifeOf(LIFE_A, 'life-a-market');
  const ofB = lifeOf(LIFE_B, `market-${LIFE_B.slice(-4)}`);
  for (let i = 0; i < ofA.length; i += 2) await publisher.publish('marketLifecycle', [...ofA.slice(i, i + 2), ...ofB.slice(i, i + 2)]);
  await waitFor('6 transitions', async () => lifecycleOf(all).length >= ofA.length);
  await settle();
  expect(lifecycleOf(all).map((m) => m.data.transition.revision)).toEqual([1, 2, 3, 4, 5, 6]);
  expect(lifecycleOf(all).every((m) => m.data.market_id === LIFE_A && m.channel === 'lifecycle')).toBe(true);
  expect(lifecycleOf(settlements).map((m) => [m.data.transition.revision, m.data.transition.kind])).toEqual([
    [2, 'closed'],
    [4, 'closed'],
    [5, 'resolved'],
  ]);

  const detail = async () => (await getJson(`${api.base}/v1/markets/${LIFE_A}`, tier2Key)).body.data;
  await waitFor('the lifecycle block', async () => (await detail())?.lifecycle?.transitions?.length === ofA.length);
  const { lifecycle } = await detail();
  expect(lifecycleOf(all).map((m) => m.data.transition)).toEqual(lifecycle.transitions);
  // The settlement each message leaves is the block's while it is the latest transition.
  expect(lifecycleOf(all).at(-1)!.data.resolution).toEqual(lifecycle.resolution);
  expect(lifecycleOf(all).find((m) => m.data.transition.kind === 'resolved')!.data.resolution).toEqual({
    ...lifecycle.resolution,
    resolved_at: new Date(T0 + 40_125).toISOString(),
  });
  expect(
    lifecycleOf(all)
      .slice(0, 4)
      .map((m) => m.data.resolution),
  ).toEqual([null, null, null, null]);
  expect(lifecycleOf(all).map((m) => m.data.notify)).toEqual([false, true, true, true, true, true]);
  all.close();
  settlements.close();
});

test('lifecycle: Tier 1 is enough (as the market detail); resume over the WebSocket with a cursor has no gap and no duplicate', async () => {
  const market = conditionId(313);
  await publisher.publish('markets', [marketUpserted({ market_id: market, event_id: 'life-c' })]);
  const client = await openWs(tier1Key);
  client.send({
    type: 'subscribe',
    channel: 'lifecycle',
    subscription: 'l',
    filters: { market, event: ['closed', 'reopened', 'resolved'] },
  });
  await subscribed(client, 'l');
  const produced = lifeOf(market, 'life-c');
  await publisher.publish('marketLifecycle', produced.slice(0, 3));
  await waitFor('the first', async () => lifecycleOf(client, 'l').length >= 1);
  const kept = lifecycleOf(client, 'l').slice(0, 1);
  client.ws.terminate();
  await publisher.publish('marketLifecycle', produced.slice(3));
  const again = await openWs(tier1Key);
  again.send({
    type: 'subscribe',
    channel: 'lifecycle',
    subscription: 'l',
    filters: { market, event: 'closed,reopened,resolved' },
    cursor: kept[0].cursor,
  });
  await waitFor('the rest', async () => lifecycleOf(again, 'l').length >= 3);
  await settle();
  expect([...kept, ...lifecycleOf(again, 'l')].map((m) => m.data.transition.revision)).toEqual([2, 3, 4, 5]);
  again.ws.close();
});

// --- prices -----------------------------------------------------------------------------------------

const KINDS = ['last_trade', 'midpoint', 'best_bid_ask'] as const;
/** `count` ticks of each of `market`'s two tokens, kinds in turn, a second apart. */
function ticksOf(market: string, count: number, tokens: readonly string[], from = 0): PriceTick[] {
  return Array.from({ length: count }, (_, i) =>
    tokens.map((asset, side) =>
      priceTick({
        event_id: `${market.slice(-4)}-${asset}-${from + i}`,
        market_id: market,
        asset_id: asset,
        kind: KINDS[(from + i) % KINDS.length]!,
        price: side === 0 ? 0.4 + (from + i) / 1000 : 0.6 - (from + i) / 1000,
        best_bid: (from + i) % KINDS.length === 2 ? 0.39 : null,
        best_ask: (from + i) % KINDS.length === 2 ? 0.41 : null,
        // Upstream's casing: served as a trade's side is (`sell`).
        side: (from + i) % KINDS.length === 0 ? 'SELL' : null,
        timestamp_ms: T0 + (from + i) * 1_000 + side,
      }),
    ),
  ).flat();
}
const priceIds = (client: { messages: any[] }, subscription?: string) =>
  messagesOf(client, 'price', subscription).map((m) => m.data.tick_id);

test("prices: a subscriber to one market (by slug) receives exactly its ticks, in order, as /markets/{id}/price/ticks serves them; kind filters; Tier 1 and a cursor's resume", async () => {
  const market = (await getJson(`${api.base}/v1/markets/${PRICE_A}`, tier1Key)).body.data;
  const tokens: string[] = market.outcome_token_ids;
  const all = await openSse('channel=prices&market=price-a-market', tier1Key);
  expect(all.status).toBe(200);
  expect(await subscribed(all)).toMatchObject({ channel: 'prices' });
  const client = await openWs(tier1Key);
  client.send({
    type: 'subscribe',
    channel: 'prices',
    subscription: 'p',
    filters: { market: PRICE_A, kind: ['last_trade', 'best_bid_ask'] },
  });
  await subscribed(client, 'p');
  const ofA = ticksOf(PRICE_A, 6, tokens);
  const ofB = ticksOf(PRICE_B, 6, ['9001', '9002']);
  for (let i = 0; i < ofA.length; i += 4) await publisher.publish('priceTicks', [...ofA.slice(i, i + 4), ...ofB.slice(i, i + 4)]);
  await waitFor('12 ticks', async () => priceIds(all).length >= ofA.length);
  await waitFor('8 kept ticks', async () => priceIds(client, 'p').length >= 8);
  await settle();
  expect(priceIds(all)).toEqual(ofA.map((t) => t.event_id));
  expect(priceIds(client, 'p')).toEqual(ofA.filter((t) => t.kind !== 'midpoint').map((t) => t.event_id));

  // The same objects as REST (newest first there).
  const rest = async () => (await getJson(`${api.base}/v1/markets/${PRICE_A}/price/ticks?limit=100`, tier1Key)).body.data as any[];
  await waitFor('the REST ticks', async () => (await rest()).length === ofA.length);
  expect(messagesOf(all, 'price').map((m) => m.data)).toEqual([...(await rest())].reverse());
  expect(messagesOf(all, 'price').every((m) => m.data.market_id === PRICE_A && m.channel === 'prices')).toBe(true);
  expect(new Set(messagesOf(all, 'price').map((m) => m.data.outcome))).toEqual(new Set(['Yes', 'No']));
  expect(new Set(messagesOf(all, 'price').map((m) => `${m.data.kind}:${m.data.side}`))).toEqual(
    new Set(['last_trade:sell', 'midpoint:null', 'best_bid_ask:null']),
  );

  // Resume after the third kept tick: the rest, once, including ticks published while away.
  const kept = messagesOf(client, 'price', 'p').slice(0, 3);
  client.ws.terminate();
  const more = ticksOf(PRICE_A, 3, tokens, 6);
  await publisher.publish('priceTicks', more);
  const again = await openWs(tier1Key);
  again.send({
    type: 'subscribe',
    channel: 'prices',
    subscription: 'p',
    filters: { market: PRICE_A, kind: 'last_trade,best_bid_ask' },
    cursor: kept.at(-1).cursor,
  });
  const wanted = [...ofA, ...more].filter((t) => t.kind !== 'midpoint').map((t) => t.event_id);
  await waitFor('the rest', async () => kept.length + priceIds(again, 'p').length >= wanted.length);
  await settle();
  expect([...kept.map((m) => m.data.tick_id), ...priceIds(again, 'p')]).toEqual(wanted);
  all.close();
  again.ws.close();
});

// --- refusals ---------------------------------------------------------------------------------------

test('a filter the channel does not have, or a bad value, is a 4xx (SSE) or an error message (WebSocket) naming it', async () => {
  const cases: Array<[string, number, RegExp]> = [
    ['channel=fills&event=closed', 400, /^event: unknown filter \(fills filters: market, wallet, side, role, min_size\)/],
    ['channel=fills&role=both', 400, /^role/],
    ['channel=fills&min_size=0.0000001', 400, /^min_size/],
    ['channel=lifecycle&wallet=0x0000000000000000000000000000000000000001', 400, /^wallet: unknown filter/],
    ['channel=lifecycle&side=buy', 400, /^side: unknown filter/],
    ['channel=lifecycle&event=closd', 400, /^event/],
    ['channel=lifecycle&market=no-such-slug', 404, /^market/],
    ['channel=trades&role=maker', 400, /^role: unknown filter/],
    ['channel=prices', 400, /^market: required/],
    [`channel=prices&market=${PRICE_A}&kind=trade`, 400, /^kind/],
    [`channel=prices&market=${PRICE_A}&wallet=0x0000000000000000000000000000000000000001`, 400, /^wallet: unknown filter/],
    [`channel=prices&market=${conditionId(399)}`, 404, /^market: no market/],
  ];
  for (const [query, status, message] of cases) {
    const refused = await openSse(query, tier2Key);
    expect([query, refused.status]).toEqual([query, status]);
    expect([query, refused.body.error]).toEqual([query, expect.stringMatching(message)]);
  }
  const client = await openWs(tier2Key);
  const asked: Array<[unknown, string]> = [
    [{ type: 'subscribe', channel: 'fills', filters: { role: 'both' } }, 'filters.role'],
    [{ type: 'subscribe', channel: 'fills', filters: { event: ['closed'] } }, 'filters.event'],
    [{ type: 'subscribe', channel: 'lifecycle', filters: { event: ['closed', 'nope'] } }, 'filters.event'],
    [{ type: 'subscribe', channel: 'lifecycle', filters: { event: [] } }, 'filters.event'],
    [{ type: 'subscribe', channel: 'lifecycle', filters: { min_size: 1 } }, 'filters.min_size'],
    [{ type: 'subscribe', channel: 'prices', filters: {} }, 'filters.market'],
    [{ type: 'subscribe', channel: 'prices', filters: { market: PRICE_A, kind: ['history', 'bbo'] } }, 'filters.kind'],
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
  // A cursor of another channel.
  const trades = await openSse('channel=trades', tier2Key);
  const tradesCursor = (await subscribed(trades)).cursor;
  trades.close();
  const crossed = await openSse(`channel=fills&cursor=${tradesCursor}`, tier2Key);
  expect(crossed.status).toBe(400);
  expect(crossed.body.error).toMatch(/^cursor: a cursor of another channel/);
  client.ws.close();
});

test('fills needs Tier 2 (as /trades): a Tier 1 key is refused it on SSE and WebSocket', async () => {
  await expectChannelRefused(api.base, tier1Key, 'fills');
  const lifecycle = await openSse('channel=lifecycle', tier1Key);
  expect(lifecycle.status).toBe(200);
  lifecycle.close();
});

test('GET /pricing/access lists each stream channel with the tier the channel itself checks, and what a subscribe gets', async () => {
  for (const [key, tier] of [
    [tier1Key, 1],
    [tier2Key, 2],
  ] as const) {
    const listing = (await getJson(`${api.base}/v1/pricing/access`, key)).body.data;
    const streams = listing.endpoints.filter((e: any) => e.path.startsWith('/v1/stream'));
    expect(streams.map((e: any) => [e.path, e.metered, e.metered_per])).toEqual([
      ['/v1/stream/sse', true, 'connection'],
      ['/v1/stream', true, 'subscription'],
    ]);
    for (const endpoint of streams) {
      expect(endpoint.channels.map((c: any) => c.channel)).toEqual(channelNames());
      for (const listed of endpoint.channels) expect(listed.requires).toBe(channelNamed(listed.channel)!.access);
    }
    // What the listing says is what subscribing meets: per channel, the SSE status and the WebSocket refusal.
    // The prices and book channels need their market.
    const required = (channel: string): Record<string, string> => (['prices', 'book'].includes(channel) ? { market: PRICE_A } : {});
    for (const listed of streams[0].channels) {
      const sse = await openSse(
        `channel=${listed.channel}${Object.entries(required(listed.channel))
          .map(([k, v]) => `&${k}=${v}`)
          .join('')}`,
        key,
      );
      expect([tier, listed.channel, sse.status]).toEqual([tier, listed.channel, listed.status_if_called]);
      sse.close();
      const client = await openWs(key);
      client.send({ type: 'subscribe', channel: listed.channel, subscription: 'probe', filters: required(listed.channel) });
      await waitFor('the answer to a subscribe', async () => client.messages.some((m) => m.type === 'subscribed' || m.type === 'error'));
      expect(client.messages.some((m) => m.type === 'subscribed')).toBe(listed.allowed);
      client.ws.close();
    }
    expect(streams.every((e: any) => e.allowed && e.requires === 'tier1')).toBe(true);
  }
});

test('a stream is metered as the listing says: one call per SSE connection, one per WebSocket subscription', async () => {
  const key = (await api.admin.createKey('metered-streams', '1')).api_key;
  const used = async () => {
    await api.meter.flush();
    return (await getJson(`${api.base}/v1/usage`, key)).body.data.used as number;
  };
  const start = await used();
  const sse = await openSse('channel=lifecycle', key);
  expect(sse.status).toBe(200);
  await waitFor('subscribed', async () => sse.messages.length > 0);
  expect(await used()).toBe(start + 1);
  sse.close();
  const client = await openWs(key);
  client.send({ type: 'subscribe', channel: 'lifecycle', subscription: 'a' });
  client.send({ type: 'subscribe', channel: 'lifecycle', subscription: 'b' });
  await waitFor('two subscriptions', async () => client.messages.filter((m) => m.type === 'subscribed').length === 2);
  expect(await used()).toBe(start + 3);
  client.ws.close();
});
