/**
 * The SDK's stream helper against the real service (API app over the embedded file log): a
 * connection cut under a running `client.stream()` (a TCP relay between the SDK and the API drops
 * every socket, as a network failure does) is resumed with the last cursor, and the caller sees every
 * trade of the market exactly once, in order; refusals a retry cannot fix come out as typed errors.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { EventPublisher } from '../../services/events/publisher.js';
import type { TradeExecuted } from '../../services/events/types.generated.js';
import { type FileEventLog, openFileEventLog } from '../../services/eventlog/file-log.js';
import { allTopicSpecs, topicSchemas } from '../../services/read-models/registry.js';
import { type ApiHarness, startApiHarness } from '../../test/support/api-harness.js';
import { conditionId, T0, tradeExecuted, txHash, walletAddress } from '../../test/support/events.js';
import { createClient, isStreamError, type StreamMessage, type TapelineStream } from './src/index.js';

const chdbPath = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-sdk-stream-chdb-'));
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-sdk-stream-log-'));
const MARKET = conditionId(501);
const OTHER = conditionId(502);

let log: FileEventLog;
let api: ApiHarness;
let publisher: EventPublisher;
let relay: Relay;
let tier2Key: string;
let sequence = 0;

/** A TCP relay to the API whose connections can all be dropped at once. */
interface Relay {
  base: string;
  /** Connections relayed so far. */
  accepted: number;
  cut(): void;
  close(): Promise<void>;
}

async function startRelay(target: URL): Promise<Relay> {
  const sockets = new Set<net.Socket>();
  const relay = { accepted: 0 } as Relay;
  const server = net.createServer((client) => {
    relay.accepted++;
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/v1`;
  relay.cut = () => {
    for (const socket of sockets) socket.destroy();
  };
  relay.close = () => {
    relay.cut();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return relay;
}

beforeAll(async () => {
  log = await openFileEventLog({
    directory: logDir,
    fsync: false,
    pollIntervalMs: 20,
    schemas: topicSchemas(),
    segmentBytes: 16_384,
    retention: { retentionMs: null, hardCapBytes: 65_536 },
    retentionCheckMs: 0,
  });
  await log.createTopics(allTopicSpecs());
  publisher = new EventPublisher(log);
  api = await startApiHarness({ chdbPath, database: 'sdk_stream', log, env: { STREAM_HEARTBEAT_MS: '300', STREAM_POLL_MS: '20' } });
  tier2Key = (await api.admin.createKey('sdk-streamer', '2')).api_key;
  relay = await startRelay(new URL(api.base));
}, 60_000);

afterAll(async () => {
  await relay?.close();
  await api?.close();
  await log?.close();
  fs.rmSync(logDir, { recursive: true, force: true });
});

function tradesOf(market: string, count: number): TradeExecuted[] {
  return Array.from({ length: count }, () => {
    const n = ++sequence;
    return tradeExecuted({
      event_id: `sdk-stream-trade-${n}`,
      market_id: market,
      wallet: walletAddress((n % 3) + 1),
      side: n % 2 === 0 ? 'buy' : 'sell',
      size: 10,
      price: 0.37,
      size_usdc: 3.7,
      timestamp_ms: T0 + n * 1000,
      tx_hash: txHash(n),
    });
  });
}

/** Pulls `count` messages off a stream's iterator (the same iterator across calls), failing after 20 s. */
async function take(iterator: AsyncIterator<StreamMessage<'trades'>>, count: number): Promise<Array<StreamMessage<'trades'>>> {
  const taken: Array<StreamMessage<'trades'>> = [];
  const deadline = Date.now() + 20_000;
  while (taken.length < count) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const next = await Promise.race([
      iterator.next(),
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`only ${taken.length} of ${count} messages`)), deadline - Date.now())),
      ),
    ]).finally(() => clearTimeout(timer));
    if (next.done) throw new Error(`the stream ended after ${taken.length} of ${count} messages`);
    taken.push(next.value);
  }
  return taken;
}

async function waitForSubscription(stream: TapelineStream<'trades'>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (stream.cursor === undefined) {
    if (Date.now() > deadline) throw new Error('never subscribed');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('a connection cut under a running stream is resumed from the last cursor: every trade once, in order', async () => {
  const client = createClient({ baseUrl: relay.base, apiKey: tier2Key });
  const stream = client.stream({ channel: 'trades', filters: { market: MARKET }, reconnect: { baseDelayMs: 50 } });
  const iterator = stream[Symbol.asyncIterator]();
  // The first next() opens the connection; the stream starts live, so publish once it is subscribed.
  const firstBatch = take(iterator, 10);
  await waitForSubscription(stream);
  const produced = tradesOf(MARKET, 60);
  await publisher.publish('trades', [...produced.slice(0, 30), ...tradesOf(OTHER, 10)]);
  const before = await firstBatch;
  const acceptedBefore = relay.accepted;
  relay.cut();
  await publisher.publish('trades', produced.slice(30));
  const after = await take(iterator, 50);
  expect([...before, ...after].map((m) => m.data.trade_id)).toEqual(produced.map((t) => t.event_id));
  expect(after.every((m) => m.data.market_id === MARKET && m.type === 'trade')).toBe(true);
  expect(relay.accepted).toBeGreaterThan(acceptedBefore);
  expect(stream.connections).toBeGreaterThanOrEqual(2);
  expect(stream.cursor).toBe(after.at(-1)!.cursor);
  await iterator.return?.();
});

test('a cursor the log no longer holds is thrown as cursor_expired; a Tier 1 key as payment_required, neither retried', async () => {
  const client = createClient({ baseUrl: `${api.base}/v1`, apiKey: tier2Key });
  const stream = client.stream({ channel: 'trades', filters: { market: MARKET } });
  const iterator = stream[Symbol.asyncIterator]();
  const pending = iterator.next();
  await waitForSubscription(stream);
  const start = stream.cursor!;
  stream.close();
  expect((await pending).done).toBe(true);
  // Enough of the market for the hard cap to delete the segments the cursor points into.
  for (let i = 0; i < 4; i++) await publisher.publish('trades', tradesOf(MARKET, 500));
  await log.enforceRetention();

  const expired = client.stream({ channel: 'trades', filters: { market: MARKET }, cursor: start });
  const error = await expired[Symbol.asyncIterator]()
    .next()
    .catch((e: unknown) => e);
  expect(isStreamError(error, 'cursor_expired')).toBe(true);
  expect(error).toMatchObject({ status: 410, parameter: 'Last-Event-ID' });
  expect(expired.connections).toBe(1);

  const tier1 = createClient({ baseUrl: `${api.base}/v1`, apiKey: (await api.admin.createKey('sdk-free', '1')).api_key });
  const refused = tier1.stream({ channel: 'trades' });
  await expect(refused[Symbol.asyncIterator]().next()).rejects.toMatchObject({ code: 'payment_required', status: 402 });
  expect(refused.connections).toBe(1);
});
