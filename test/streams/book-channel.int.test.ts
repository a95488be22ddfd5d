/**
 * The `book` stream channel over the real embedded file log and the API app (chDB, PGlite, the sink):
 * a subscription without a cursor first gets each wanted token's latest stored book (the book GET
 * /markets/{id}/orderbook serves) and the stored changes after it, then the log from the sink's
 * committed position on - records the sink had not stored yet arrive once, none is lost or repeated
 * at the switch; another market's never arrive; a cursor resumes with no gap and no duplicate; a bad
 * asset_id is refused naming it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { EventPublisher } from '../../services/events/publisher.js';
import type { BookDelta, BookSnapshot } from '../../services/events/types.generated.js';
import type { FileEventLog } from '../../services/eventlog/file-log.js';
import { openStreamTestLog } from '../support/stream-log.js';
import { type SinkService, sinkLag, startSink } from '../../services/sink/sink-service.js';
import { bookChannel } from '../../services/streams/book-channel.js';
import { type ApiHarness, startApiHarness } from '../support/api-harness.js';
import { bookDelta, bookSnapshot, conditionId, marketUpserted, T0 } from '../support/events.js';
import { getJson } from '../support/http.js';
import { messagesOf, openSse as openSse_, openWs as openWs_, subscribed, waitFor } from '../support/stream-clients.js';

const chdbPath = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-book-chdb-'));
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-book-log-'));

// Decimal-looking hex tails, so the fixture token ids of the two markets differ.
const BOOK_A = conditionId(0x341);
const BOOK_B = conditionId(0x342);
const BOOK_TOPICS = bookChannel.streams.map((stream) => stream.topic);

let log: FileEventLog;
let api: ApiHarness;
let sink: SinkService | undefined;
let publisher: EventPublisher;
let key: string;

const openSse = (query: string) => openSse_(api.base, query, key);
const openWs = () => openWs_(api.base, key);
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
const sinkCaughtUp = () =>
  waitFor('the sink to store the books', async () => Object.values(await sinkLag(log, BOOK_TOPICS)).every((lag) => lag === 0));

beforeAll(async () => {
  log = await openStreamTestLog(logDir);
  publisher = new EventPublisher(log);
  api = await startApiHarness({
    chdbPath,
    database: 'bookchannel',
    log,
    env: { STREAM_HEARTBEAT_MS: '300', STREAM_POLL_MS: '20', STREAM_READ_BATCH: '3' },
  });
  sink = await startSink(log, api.store, pino({ level: 'silent' }));
  key = (await api.admin.createKey('books', '1')).api_key;
  await publisher.publish('markets', [
    marketUpserted({ market_id: BOOK_A, event_id: 'book-a', slug: 'book-a-market' }),
    marketUpserted({ market_id: BOOK_B, event_id: 'book-b' }),
  ]);
  await waitFor('the markets', async () => (await getJson(`${api.base}/v1/markets/${BOOK_B}`, key)).status === 200);
  await waitFor('the markets', async () => (await getJson(`${api.base}/v1/markets/${BOOK_A}`, key)).status === 200);
}, 60_000);

afterAll(async () => {
  await sink?.stop();
  await api?.close();
  await log?.close();
  fs.rmSync(logDir, { recursive: true, force: true });
});

const book = (market: string, asset: string, hash: string, at: number, bid: number): BookSnapshot =>
  bookSnapshot({
    market_id: market,
    asset_id: asset,
    hash,
    timestamp_ms: T0 + at * 1_000,
    bids: [
      { price: bid, size: 100 },
      { price: bid - 0.01, size: 250.5 },
    ],
    asks: [{ price: bid + 0.02, size: 40 }],
  });
const change = (market: string, asset: string, n: number, at: number): BookDelta =>
  bookDelta({
    event_id: `${asset}:${at}:${n}`,
    market_id: market,
    asset_id: asset,
    side: n % 2 ? 'bid' : 'ask',
    price: 0.3 + n / 100,
    size: n,
    hash: `h${asset}-${n}`,
    best_bid: 0.4,
    best_ask: 0.42,
    timestamp_ms: T0 + at * 1_000,
  });
const ids = (client: { messages: any[] }, subscription?: string) =>
  client.messages
    .filter((m) => (m.type === 'book_snapshot' || m.type === 'book_delta') && (!subscription || m.subscription === subscription))
    .map((m) => `${m.type === 'book_snapshot' ? 'S' : 'D'}:${m.data.id}`);
const S = (e: BookSnapshot) => `S:${e.event_id}`;
const D = (e: BookDelta) => `D:${e.event_id}`;

test('book: the stored book first (as GET /orderbook serves it), the stored and unstored changes after it once, in order, then live; one token with asset_id; another market never; a cursor resumes with no gap and no duplicate', async () => {
  const tokens: string[] = (await getJson(`${api.base}/v1/markets/${BOOK_A}`, key)).body.data.outcome_token_ids;
  const tokensB: string[] = (await getJson(`${api.base}/v1/markets/${BOOK_B}`, key)).body.data.outcome_token_ids;
  const [yes, no] = tokens as [string, string];

  // Stored: each token's book, and changes after the yes book (one older than it, which its book holds).
  const older = change(BOOK_A, yes, 1, 0.5);
  const booksA = [book(BOOK_A, yes, 'a0', 1, 0.4), book(BOOK_A, no, 'a1', 1, 0.55)];
  const storedChanges = [change(BOOK_A, yes, 2, 2), change(BOOK_A, yes, 3, 3)];
  await publisher.publish('bookDeltas', [older]);
  await publisher.publish('bookSnapshots', [...booksA, book(BOOK_B, tokensB[0]!, 'b0', 1, 0.2)]);
  await publisher.publish('bookDeltas', [...storedChanges, change(BOOK_B, tokensB[0]!, 4, 2)]);
  await sinkCaughtUp();

  // In the log only: the sink is stopped, so the store's latest is still the books above.
  await sink!.stop();
  sink = undefined;
  const unstored = [change(BOOK_A, yes, 5, 4), change(BOOK_A, no, 6, 4)];
  // Late in the log but older than the yes book, which holds it: never sent.
  const late = change(BOOK_A, yes, 13, 0.8);
  await publisher.publish('bookDeltas', [unstored[0]!, late, change(BOOK_B, tokensB[0]!, 7, 4), unstored[1]!]);

  const rest = (await getJson(`${api.base}/v1/markets/${BOOK_A}/orderbook`, key)).body.data;
  const all = await openSse('channel=book&market=book-a-market');
  expect(all.status).toBe(200);
  expect(await subscribed(all)).toMatchObject({ channel: 'book' });
  const client = await openWs();
  client.send({ type: 'subscribe', channel: 'book', subscription: 'y', filters: { market: BOOK_A, asset_id: yes } });
  await subscribed(client, 'y');

  const initialAll = [S(booksA[0]!), ...storedChanges.map(D), S(booksA[1]!), ...unstored.map(D)];
  const initialYes = [S(booksA[0]!), ...storedChanges.map(D), D(unstored[0]!)];
  await waitFor('the stored books and changes', async () => ids(all).length >= initialAll.length);
  await waitFor('the yes book and changes', async () => ids(client, 'y').length >= initialYes.length);
  await settle();
  expect(ids(all)).toEqual(initialAll);
  expect(ids(client, 'y')).toEqual(initialYes);

  // The book on subscribe is the one GET /markets/{id}/orderbook serves.
  const snapshots = messagesOf(all, 'book_snapshot');
  for (const [index, asset] of tokens.entries()) {
    const served = rest.outcomes[index];
    const sent = snapshots.find((m) => m.data.asset_id === asset)!.data;
    expect({ asset, bids: sent.bids, asks: sent.asks, hash: sent.hash, timestamp: sent.timestamp }).toEqual({
      asset,
      bids: served.bids,
      asks: served.asks,
      hash: served.hash,
      timestamp: served.timestamp,
    });
  }
  expect(snapshots[0].data).toEqual({
    id: booksA[0]!.event_id,
    market_id: BOOK_A,
    asset_id: yes,
    hash: 'a0',
    timestamp: new Date(T0 + 1_000).toISOString(),
    origin: 'clob-rest',
    bids: [
      { price: 0.4, size_shares: 100 },
      { price: 0.39, size_shares: 250.5 },
    ],
    asks: [{ price: 0.42, size_shares: 40 }],
  });
  expect(messagesOf(all, 'book_delta')[0].data).toEqual({
    id: storedChanges[0]!.event_id,
    market_id: BOOK_A,
    asset_id: yes,
    hash: `h${yes}-2`,
    timestamp: new Date(T0 + 2_000).toISOString(),
    side: 'ask',
    price: 0.32,
    size_shares: 2,
    best_bid: 0.4,
    best_ask: 0.42,
  });

  // Live (the sink back): a change and a new book follow, once each.
  sink = await startSink(log, api.store, pino({ level: 'silent' }));
  const live = [change(BOOK_A, yes, 8, 5), change(BOOK_A, no, 9, 5)];
  const newer = book(BOOK_A, yes, 'a2', 6, 0.41);
  await publisher.publish('bookDeltas', [live[0]!, change(BOOK_B, tokensB[0]!, 10, 5), live[1]!]);
  // Books and changes are two topics read in turn: the book goes out once the changes before it did.
  await waitFor('the live changes', async () => ids(all).length >= initialAll.length + live.length);
  await publisher.publish('bookSnapshots', [newer, book(BOOK_B, tokensB[1]!, 'b1', 6, 0.7)]);
  const wantedAll = [...initialAll, ...live.map(D), S(newer)];
  const wantedYes = [...initialYes, D(live[0]!), S(newer)];
  await waitFor('the live records', async () => ids(all).length >= wantedAll.length);
  await waitFor('the live yes records', async () => ids(client, 'y').length >= wantedYes.length);
  await settle();
  expect(ids(all)).toEqual(wantedAll);
  expect(ids(client, 'y')).toEqual(wantedYes);
  expect(all.messages.filter((m) => m.data?.market_id !== undefined).every((m) => m.data.market_id === BOOK_A)).toBe(true);

  // Resume after the newest book: what came while away, once.
  const kept = client.messages.filter((m) => m.subscription === 'y' && m.type.startsWith('book_'));
  client.ws.terminate();
  const away = [change(BOOK_A, yes, 11, 7), change(BOOK_A, yes, 14, 8)];
  await publisher.publish('bookDeltas', [change(BOOK_A, no, 12, 7), away[0]!, change(BOOK_B, tokensB[0]!, 15, 7), away[1]!]);
  const again = await openWs();
  again.send({
    type: 'subscribe',
    channel: 'book',
    subscription: 'y',
    filters: { market: 'book-a-market', asset_id: yes },
    cursor: kept.at(-1).cursor,
  });
  const rest2 = away.map(D);
  await waitFor('the rest', async () => ids(again, 'y').length >= rest2.length);
  // SSE with Last-Event-ID: the same.
  const sseAgain = await openSse_(api.base, `channel=book&market=${BOOK_A}&asset_id=${yes}`, key, { 'last-event-id': kept.at(-1).cursor });
  await waitFor('the rest over SSE', async () => ids(sseAgain).length >= rest2.length);
  await settle();
  expect([...ids({ messages: kept }), ...ids(again, 'y')]).toEqual([...wantedYes, ...rest2]);
  expect(ids(sseAgain)).toEqual(rest2);
  all.close();
  sseAgain.close();
  again.ws.close();
});

test('book: market is required, and asset_id must be one of its outcome tokens (400 naming it, SSE and WebSocket)', async () => {
  const tokensB: string[] = (await getJson(`${api.base}/v1/markets/${BOOK_B}`, key)).body.data.outcome_token_ids;
  const cases: Array<[string, number, RegExp]> = [
    ['channel=book', 400, /^market: required/],
    [`channel=book&market=${BOOK_A}&asset_id=${tokensB[0]}`, 400, /^asset_id: not an outcome token of this market/],
    [`channel=book&market=${BOOK_A}&kind=midpoint`, 400, /^kind: unknown filter \(book filters: market, asset_id\)/],
    [`channel=book&market=${conditionId(398)}`, 404, /^market: no market/],
  ];
  for (const [query, status, message] of cases) {
    const refused = await openSse(query);
    expect([query, refused.status]).toEqual([query, status]);
    expect([query, refused.body.error]).toEqual([query, expect.stringMatching(message)]);
  }
  const client = await openWs();
  for (const [filters, parameter] of [
    [{ market: BOOK_A, asset_id: tokensB[1] }, 'filters.asset_id'],
    [{ market: BOOK_A, asset_id: 7 }, 'filters.asset_id'],
    [{ asset_id: tokensB[1] }, 'filters.market'],
  ] as const) {
    const before = client.messages.length;
    client.send({ type: 'subscribe', channel: 'book', filters });
    await waitFor('an answer', async () => client.messages.length > before);
    expect([filters, client.messages.at(-1)]).toEqual([
      filters,
      expect.objectContaining({ type: 'error', code: 'bad_request', parameter }),
    ]);
  }
  client.ws.close();
});
