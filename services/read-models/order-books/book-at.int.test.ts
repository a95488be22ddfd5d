/**
 * Point-in-time books on books the real ingest part captured from the simulator (REST polls, the
 * websocket's book messages and price changes, the books the ingestor rebuilds), with an outage in
 * the middle (the ingest part stopped while the simulator's books move, then started again).
 * The API's rebuild is held to the stored snapshots and to a replay written here over the
 * `format=deltas` pages (a Map per side: a snapshot replaces it, a change sets one level).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { getJson, waitFor } from '../../../test/support/http.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { loadConfig } from '../../config.js';
import { startIngest } from '../../ingest/ingest-service.js';
import { simulatorUpstreamEnv, startSimulator, type RunningSimulator } from '../../../simulator/server.js';

const MINUTE = 60_000;
// Recent (changes are kept 7 days) and on a minute, where the simulator's price path steps.
const T0 = Math.floor((Date.now() - 3 * 3_600_000) / MINUTE) * MINUTE;
const iso = (ms: number) => new Date(ms).toISOString();

interface Level {
  price: number;
  size_shares: number;
}
type BookEvent =
  | { kind: 'snapshot'; id: string; timestamp: string; hash: string; bids: Level[]; asks: Level[] }
  | { kind: 'delta'; id: string; timestamp: string; side: 'bid' | 'ask'; price: number; size_shares: number };

let simulator: RunningSimulator;
let h: ProjectionHarness;
let now = T0;
let market: string;
let asset: string;
let events: BookEvent[];
let downFrom: number;
let downTo: number;

const snapshotCount = async (minTs: number) =>
  Number(
    (await h.rows<{ n: number }>(`SELECT count() AS n FROM order_books WHERE ts >= fromUnixTimestamp64Milli({t:Int64})`, { t: minTs }))[0]
      ?.n,
  );

async function step(): Promise<void> {
  // Three minutes' frames at once: the stream flushes them together (every 50 ms) and stores one
  // rebuilt book after them, so the books of the first two instants exist only as changes.
  for (let i = 0; i < 3; i++) {
    now += MINUTE;
    simulator.pushWebSocket();
  }
  await waitFor(async () => (await snapshotCount(now)) > 0, 20_000, `books at ${iso(now)}`, 20);
}

async function runIngest(steps: number): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-book-at-'));
  const config = loadConfig({ DATA_DIR: dataDir, ...simulatorUpstreamEnv(simulator), TRADES_BACKFILL_MARKETS: '0', LOG_LEVEL: 'silent' });
  const ingest = await startIngest(config, h.log, pino({ level: 'silent' }));
  // Started: the websocket's subscription books (and the REST poll's) at the current instant.
  await waitFor(async () => (await snapshotCount(now)) > 0, 30_000, 'the first books', 50);
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (let i = 0; i < steps; i++) await step();
  await ingest.stop();
}

/** Every page of format=deltas, each page's order checked against the previous. */
async function allEvents(): Promise<BookEvent[]> {
  const out: BookEvent[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `/orderbook/history?market=${market}&format=deltas&from=${iso(T0 - MINUTE)}&to=${iso(now + 1)}&limit=40${cursor ? `&cursor=${cursor}` : ''}`;
    const { status, body } = await h.get(query);
    expect(status).toBe(200);
    asset = body.data.asset_id;
    out.push(...body.data.events);
    cursor = body.data.pagination.next_cursor;
  } while (cursor);
  return out;
}

/** The book at `at` by applying every event of the pages up to it, in the order served (snapshots only up to `lastSnapshot`). */
function independentReplay(at: number, lastSnapshot = at) {
  const bids = new Map<number, number>();
  const asks = new Map<number, number>();
  for (const e of events) {
    if (Date.parse(e.timestamp) > at) break;
    if (e.kind === 'snapshot') {
      if (Date.parse(e.timestamp) > lastSnapshot) continue;
      bids.clear();
      asks.clear();
      for (const l of e.bids) bids.set(l.price, l.size_shares);
      for (const l of e.asks) asks.set(l.price, l.size_shares);
    } else {
      const side = e.side === 'bid' ? bids : asks;
      if (e.size_shares === 0) side.delete(e.price);
      else side.set(e.price, e.size_shares);
    }
  }
  const sorted = (m: Map<number, number>, desc: boolean) =>
    [...m].map(([price, size_shares]) => ({ price, size_shares })).sort((a, b) => (desc ? b.price - a.price : a.price - b.price));
  return { bids: sorted(bids, true), asks: sorted(asks, false) };
}

async function bookAt(at: number | string) {
  const { status, body } = await h.get(`/markets/${market}/orderbook?at=${at}`);
  expect({ at, status, error: body.error }).toEqual({ at, status: 200, error: undefined });
  return body.data.outcomes.find((o: { asset_id: string }) => o.asset_id === asset);
}

beforeAll(async () => {
  simulator = await startSimulator({
    port: 0,
    seed: 21,
    marketCount: 3,
    walletCount: 10,
    historicTrades: 60,
    historyHours: 2,
    clock: () => now,
  });
  h = await projectionHarness('book_at');
  await runIngest(4);
  // The outage: the books move for three minutes while nothing is captured.
  downFrom = now;
  now += 3 * MINUTE;
  downTo = now;
  await runIngest(3);
  await h.given({}, { refresh: false });
  const [busiest] = await h.rows<{ market_id: string }>(
    'SELECT market_id FROM order_book_deltas GROUP BY market_id ORDER BY count() DESC, market_id LIMIT 1',
  );
  // Its YES token (the pages' default outcome).
  market = busiest!.market_id;
  events = await allEvents();
}, 180_000);
afterAll(async () => {
  await h?.close();
  await simulator?.close();
});

test('format=deltas pages every stored snapshot and change of the token once, in replay order', async () => {
  const [counts] = await h.rows<{ snapshots: number; deltas: number }>(
    `SELECT (SELECT count() FROM order_books FINAL WHERE asset_id = {a:String}) AS snapshots,
            (SELECT count() FROM order_book_deltas FINAL WHERE asset_id = {a:String}) AS deltas`,
    { a: asset },
  );
  expect(events.filter((e) => e.kind === 'snapshot')).toHaveLength(Number(counts!.snapshots));
  expect(events.filter((e) => e.kind === 'delta')).toHaveLength(Number(counts!.deltas));
  expect(Number(counts!.deltas)).toBeGreaterThan(20);
  expect(new Set(events.map((e) => `${e.kind}:${e.id}`)).size).toBe(events.length);
  const rank = (e: BookEvent) => [Date.parse(e.timestamp), e.kind === 'delta' ? 0 : 1] as const;
  for (let i = 1; i < events.length; i++) {
    const [a, b] = [rank(events[i - 1]!), rank(events[i]!)];
    expect(a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1])).toBe(true);
  }
});

test('the rebuild at the instant of every stored snapshot is that snapshot, and reproduces the next one except across the outage', async () => {
  const snapshots = events.filter((e): e is Extract<BookEvent, { kind: 'snapshot' }> => e.kind === 'snapshot');
  // The book at an instant is the last snapshot stored at it (the pages put it last).
  const atInstant = new Map(snapshots.map((s) => [Date.parse(s.timestamp), s]));
  const instants = [...atInstant.keys()];
  expect(instants.length).toBeGreaterThan(8);
  let gapsSeen = 0;
  for (const [k, t] of instants.entries()) {
    const stored = atInstant.get(t)!;
    const book = await bookAt(iso(t));
    expect({
      t: iso(t),
      bids: book.bids,
      asks: book.asks,
      hash: book.hash,
      snapshot_at: book.snapshot_at,
      deltas_applied: book.deltas_applied,
    }).toEqual({
      t: iso(t),
      bids: stored.bids,
      asks: stored.asks,
      hash: stored.hash,
      snapshot_at: iso(t),
      deltas_applied: 0,
    });
    // Continuing to the next snapshot checks the changes between: a gap only where this test's own
    // replay does not reach the next snapshot either.
    const next = instants[k + 1];
    const reproduced =
      next === undefined ||
      JSON.stringify(independentReplay(next, t)) === JSON.stringify({ bids: atInstant.get(next)!.bids, asks: atInstant.get(next)!.asks });
    if (!reproduced) gapsSeen += 1;
    expect({ t: iso(t), gaps: book.gaps }).toEqual({ t: iso(t), gaps: reproduced ? [] : [{ from: iso(t), to: iso(next!) }] });
  }
  // The outage, and nothing else, is not reproduced.
  expect(gapsSeen).toBe(1);
});

test('at random instants the rebuild equals the replay of the pages; inside the outage it says so', async () => {
  const first = Date.parse(events.find((e) => e.kind === 'snapshot')!.timestamp);
  let seed = 7;
  const random = () => {
    seed = (seed * 48271) % 2147483647;
    return seed / 2147483647;
  };
  const instants = Array.from({ length: 40 }, () => first + Math.floor(random() * (now - first)));
  // Instants with changes of their own, and the last millisecond before each minute's.
  instants.push(
    ...events
      .filter((e) => e.kind === 'delta')
      .slice(0, 10)
      .map((e) => Date.parse(e.timestamp)),
  );
  instants.push(
    ...events
      .filter((e) => e.kind === 'delta')
      .slice(0, 10)
      .map((e) => Date.parse(e.timestamp) - 1),
  );
  let applied = 0;
  for (const at of instants) {
    const book = await bookAt(iso(at));
    expect({ at: iso(at), bids: book.bids, asks: book.asks }).toEqual({ at: iso(at), ...independentReplay(at) });
    applied += book.deltas_applied;
    if (at >= downFrom && at < downTo) {
      expect(book.gaps).toHaveLength(1);
      expect(Date.parse(book.gaps[0].from)).toBeLessThanOrEqual(downFrom);
      expect(Date.parse(book.gaps[0].to)).toBe(downTo);
    }
  }
  // The rebuild applied changes (snapshots alone would not test the replay).
  expect(applied).toBeGreaterThan(0);
});

test('a capture gap is stated, and the rebuild after it starts from the snapshot that ends it', async () => {
  const inside = await bookAt(iso(downFrom + MINUTE));
  expect(inside.gaps).toEqual([{ from: inside.snapshot_at, to: iso(downTo) }]);
  expect(Date.parse(inside.as_of)).toBeLessThanOrEqual(downFrom);
  expect(inside.next_snapshot_at).toBe(iso(downTo));
  const after = await bookAt(iso(downTo + 1));
  expect(after.snapshot_at).toBe(iso(downTo));
  expect(after.gaps).toEqual([]);
  // Unix seconds name the same instant.
  expect(await bookAt(((downTo + 1000) / 1000).toFixed(3))).toEqual(await bookAt(iso(downTo + 1000)));
});

test('bad at values: 400 naming at', async () => {
  for (const at of [
    'yesterday',
    '2026-13-45T00:00:00Z',
    '99999999999',
    '1999-01-01T00:00:00Z',
    iso(Date.now() + 3_600_000),
    iso(T0 - 3_600_000),
  ]) {
    const { status, body } = await h.get(`/markets/${market}/orderbook?at=${encodeURIComponent(at)}`);
    expect({ at, status, error: String(body.error).slice(0, 3) }).toEqual({ at, status: 400, error: 'at:' });
  }
  // Tier 1 reads it like the live book.
  const tier1 = (await h.api.admin.createKey('t1', '1')).api_key;
  expect((await getJson(`${h.api.base}/v1/markets/${market}/orderbook?at=${iso(downTo)}`, tier1)).status).toBe(200);
});
