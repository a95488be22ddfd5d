/**
 * Point-in-time books (writes bench/results/orderbook-at.json): GET /markets/{id}/orderbook?at= for a
 * busy market, p50/p99 over random instants of the day (every request a new instant, the read cache
 * off: uncached), as a ratio to the live book request (`/orderbook` without `at`) in the same run.
 * Goal (issue #56): p99 <= 100 ms.
 *
 * The day is made the way the ingest part stores it: BENCH_FRAMES_PER_SECOND websocket price_change
 * frames a second (exponential gaps), each moving 1-4 levels of the YES book and the same levels of
 * its NO mirror, applied to the ingestor's own local books (services/ingest/book-state.ts), which
 * store a rebuilt book per token after each 50 ms flush that changed it. A second market carries the
 * same changes with a stored book only every BENCH_SPARSE_SNAPSHOT_S seconds (the REST poll's
 * cadence, books imported from elsewhere): the replay windows are then that long.
 *
 *   npx tsx bench/orderbook-at.bench.ts     (BENCH_FRAMES_PER_SECOND=1, BENCH_REQUESTS=200)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openChdbStore } from '../services/analytics/clickhouse-store.js';
import { migrate } from '../services/analytics/migrate.js';
import type { BookDelta, BookSnapshot } from '../services/events/types.js';
import { LocalBooks } from '../services/ingest/book-state.js';
import { marketRow } from '../services/read-models/markets/rows.js';
import { bookDeltaRow, bookSnapshotRow } from '../services/read-models/order-books/rows.js';
import { startApiHarness } from '../test/support/api-harness.js';
import { conditionId, marketUpserted } from '../test/support/events.js';

const FRAMES_PER_SECOND = Number(process.env.BENCH_FRAMES_PER_SECOND ?? 1);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const SPARSE_SNAPSHOT_S = Number(process.env.BENCH_SPARSE_SNAPSHOT_S ?? 300);
const FLUSH_MS = 50;
const DAY = 86_400_000;
const here = path.dirname(fileURLToPath(import.meta.url));

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** Deterministic uniform [0, 1). */
function rng(seed: number) {
  let s = seed;
  return () => {
    s = (s * 48271) % 2147483647;
    return s / 2147483647;
  };
}

interface Day {
  snapshots: BookSnapshot[];
  sparseSnapshots: BookSnapshot[];
  deltas: BookDelta[];
  frames: number;
}

/** A day of one market's frames through the ingestor's local books. */
function makeDay(market: string, yes: string, no: string, start: number): Day {
  const random = rng(12345);
  const books = new LocalBooks();
  // YES: bids 0.01..0.49, asks 0.51..0.99 (49 levels a side at most); NO is its mirror.
  const yesBook = { bid: new Map<number, number>(), ask: new Map<number, number>() };
  for (let t = 20; t <= 49; t++) yesBook.bid.set(t, 100 + Math.floor(random() * 5000));
  for (let t = 51; t <= 80; t++) yesBook.ask.set(t, 100 + Math.floor(random() * 5000));
  const price = (ticks: number) => ticks / 100;
  const levels = (side: Map<number, number>, mirror: boolean, desc: boolean) =>
    [...side]
      .map(([t, size]) => ({ price: price(mirror ? 100 - t : t), size }))
      .sort((a, b) => (desc ? b.price - a.price : a.price - b.price));
  const snapshotOf = (asset: string, ts: number, n: number): BookSnapshot => {
    const mirror = asset === no;
    const bids = levels(mirror ? yesBook.ask : yesBook.bid, mirror, true);
    const asks = levels(mirror ? yesBook.bid : yesBook.ask, mirror, false);
    return {
      event_id: `${asset}:h${n}`,
      source: 'simulator',
      market_id: market,
      asset_id: asset,
      hash: `h${n}`,
      timestamp_ms: ts,
      bids,
      asks,
      best_bid: bids[0]?.price ?? null,
      best_ask: asks[0]?.price ?? null,
      tick_size: 0.01,
      min_order_size: 5,
      last_trade_price: null,
      origin: 'clob-rest',
      ingested_at_ms: ts,
    };
  };
  const day: Day = { snapshots: [], sparseSnapshots: [], deltas: [], frames: 0 };
  let version = 0;
  for (const asset of [yes, no]) {
    const first = snapshotOf(asset, start, version);
    books.applySnapshot(first);
    day.snapshots.push(first);
    day.sparseSnapshots.push(first);
  }
  let now = start;
  let flushAt = Number.POSITIVE_INFINITY;
  let nextSparse = start + SPARSE_SNAPSHOT_S * 1000;
  const dirty = new Set<string>();
  const flush = (at: number) => {
    for (const asset of dirty) {
      const snapshot = books.snapshot(asset, at)!;
      day.snapshots.push({ ...snapshot, event_id: `${snapshot.event_id}:${at}` });
    }
    dirty.clear();
    flushAt = Number.POSITIVE_INFINITY;
  };
  while (true) {
    now += Math.max(1, Math.round((-Math.log(1 - random()) / FRAMES_PER_SECOND) * 1000));
    if (now >= start + DAY) break;
    if (now > flushAt) flush(flushAt);
    while (now > nextSparse) {
      version += 1;
      for (const asset of [yes, no]) day.sparseSnapshots.push(snapshotOf(asset, nextSparse, version));
      nextSparse += SPARSE_SNAPSHOT_S * 1000;
    }
    // 1-4 level changes near the top of the YES book; the NO book moves with it.
    const changes: Array<{ side: 'bid' | 'ask'; ticks: number; size: number }> = [];
    for (let i = 0, n = 1 + Math.floor(random() * 4); i < n; i++) {
      const side = random() < 0.5 ? 'bid' : 'ask';
      const levelsOf = yesBook[side];
      const best = side === 'bid' ? Math.max(...levelsOf.keys()) : Math.min(...levelsOf.keys());
      const ticks = Math.min(99, Math.max(1, best + (side === 'bid' ? -1 : 1) * Math.floor(random() * 12)));
      // Removals only above 25 levels a side: the book keeps the depth of a busy Polymarket book.
      const remove = levelsOf.size > 25 && random() < 0.4;
      const size = remove ? 0 : 100 + Math.floor(random() * 5000);
      if (size === 0) levelsOf.delete(ticks);
      else levelsOf.set(ticks, size);
      changes.push({ side, ticks, size });
    }
    version += 1;
    const deltas: BookDelta[] = [];
    for (const asset of [yes, no]) {
      const mirror = asset === no;
      const bids = levels(mirror ? yesBook.ask : yesBook.bid, mirror, true);
      const asks = levels(mirror ? yesBook.bid : yesBook.ask, mirror, false);
      for (const [k, c] of changes.entries()) {
        const side = mirror ? (c.side === 'bid' ? 'ask' : 'bid') : c.side;
        deltas.push({
          event_id: `${asset}:${now}:${k}`,
          source: 'simulator',
          market_id: market,
          asset_id: asset,
          side,
          price: price(mirror ? 100 - c.ticks : c.ticks),
          size: c.size,
          hash: `h${version}`,
          best_bid: bids[0]?.price ?? 0,
          best_ask: asks[0]?.price ?? 1,
          timestamp_ms: now,
          ingested_at_ms: now,
        });
      }
    }
    for (const [asset, outcome] of books.applyFrame(deltas)) {
      if (outcome !== 'applied') throw new Error(`the bench's frame did not apply to ${asset}: ${outcome}`);
      dirty.add(asset);
    }
    day.deltas.push(...deltas);
    day.frames += 1;
    if (flushAt === Number.POSITIVE_INFINITY) flushAt = now + FLUSH_MS;
  }
  flush(flushAt === Number.POSITIVE_INFINITY ? now : flushAt);
  return day;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-orderbook-at-'));
  const store = await openChdbStore({ path: path.join(dir, 'chdb'), database: 'bench_orderbook_at' });
  await migrate(store);
  // Yesterday, so the whole day lies before now and inside the tables' TTLs.
  const start = Math.floor((Date.now() - DAY - 3_600_000) / 1000) * 1000;
  const dense = { market: conditionId(0xa1), yes: '71'.repeat(38), no: '72'.repeat(38) };
  const sparse = { market: conditionId(0xa2), yes: '81'.repeat(38), no: '82'.repeat(38) };
  const built = performance.now();
  const day = makeDay(dense.market, dense.yes, dense.no, start);
  const sparseDay = makeDay(sparse.market, sparse.yes, sparse.no, start);
  const generateMs = performance.now() - built;
  await store.insert('markets', [
    marketRow(marketUpserted({ market_id: dense.market, outcome_token_ids: [dense.yes, dense.no] })),
    marketRow(marketUpserted({ market_id: sparse.market, outcome_token_ids: [sparse.yes, sparse.no] })),
  ]);
  const loaded = performance.now();
  const insertAll = async (table: string, rows: Record<string, unknown>[]) => {
    for (let i = 0; i < rows.length; i += 20_000) await store.insert(table, rows.slice(i, i + 20_000));
  };
  await insertAll('order_books', day.snapshots.map(bookSnapshotRow));
  await insertAll('order_books', sparseDay.sparseSnapshots.map(bookSnapshotRow));
  const sparseDeltas = sparseDay.deltas;
  await insertAll('order_book_deltas', [...day.deltas, ...sparseDeltas].map(bookDeltaRow));
  await store.command('OPTIMIZE TABLE order_books FINAL');
  await store.command('OPTIMIZE TABLE order_book_deltas FINAL');
  const loadMs = performance.now() - loaded;

  const api = await startApiHarness({ store, env: { VALIDATE_RESPONSES: 'false' } });
  const key = (await api.admin.createKey('bench', '1')).api_key;
  const get = async (url: string) => {
    const began = performance.now();
    const response = await fetch(`${api.base}/v1${url}`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await response.json()) as { data?: { outcomes: Array<{ deltas_applied?: number; bids: unknown[] }> }; error?: string };
    if (response.status !== 200) throw new Error(`${url}: ${response.status} ${body.error}`);
    return { ms: performance.now() - began, body };
  };
  const random = rng(99);
  const instant = () => new Date(start + 1000 + Math.floor(random() * (DAY - 2000))).toISOString();
  const measure = async (url: () => string) => {
    for (let i = 0; i < 20; i++) await get(url()); // warm-up
    const times: number[] = [];
    const applied: number[] = [];
    const levels: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const { ms, body } = await get(url());
      times.push(ms);
      for (const outcome of body.data?.outcomes ?? []) {
        applied.push(outcome.deltas_applied ?? 0);
        levels.push(outcome.bids.length);
      }
    }
    times.sort((a, b) => a - b);
    applied.sort((a, b) => a - b);
    return {
      requests: REQUESTS,
      p50_ms: round(percentile(times, 50)),
      p99_ms: round(percentile(times, 99)),
      max_ms: round(times.at(-1)!),
      deltas_applied_p50: percentile(applied, 50),
      deltas_applied_max: applied.at(-1)!,
      bid_levels_p50: percentile(
        levels.sort((a, b) => a - b),
        50,
      ),
    };
  };
  // Interleaved would mix their caches in the engine; each runs its requests in a row, the live book first.
  const live = await measure(() => `/markets/${dense.market}/orderbook`);
  const at = await measure(() => `/markets/${dense.market}/orderbook?at=${instant()}`);
  const sparseAt = await measure(() => `/markets/${sparse.market}/orderbook?at=${instant()}`);
  await api.close();
  await store.close();

  const result = {
    benchmark: 'orderbook-at',
    at: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version },
    day: {
      frames_per_second: FRAMES_PER_SECOND,
      frames: day.frames,
      deltas: day.deltas.length,
      stored_books: day.snapshots.length,
      sparse_stored_books: sparseDay.sparseSnapshots.length,
      generate_ms: Math.round(generateMs),
      load_ms: Math.round(loadMs),
    },
    live_book: live,
    at_book: {
      ...at,
      ratio_p50_to_live: round(at.p50_ms / live.p50_ms),
      ratio_p99_to_live: round(at.p99_ms / live.p99_ms),
      goal_p99_ms: 100,
      met: at.p99_ms <= 100,
    },
    at_book_sparse_snapshots: {
      snapshot_every_s: SPARSE_SNAPSHOT_S,
      ...sparseAt,
      ratio_p50_to_live: round(sparseAt.p50_ms / live.p50_ms),
      ratio_p99_to_live: round(sparseAt.p99_ms / live.p99_ms),
    },
  };
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  fs.writeFileSync(path.join(here, 'results', 'orderbook-at.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result, null, 2));
  fs.rmSync(dir, { recursive: true, force: true });
}

await main();
