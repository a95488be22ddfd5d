/**
 * Reads what a point-in-time book needs from order_books and order_book_deltas and replays it
 * (book-replay.ts): the last snapshot at or before the instant, the first snapshot after it, and
 * the deltas between the first and the second, each read in table order (asset_id, ts) so the work
 * is bounded by the deltas read, never by the token's history.
 */
import { ApiError } from '../../http/errors.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { iso } from '../../shared/time.js';
import { type ReplayedBook, replayBook, type StoredDelta, type StoredSnapshot } from './book-replay.js';

/** Deltas replayed between the snapshot and `at` at most; a longer window is refused (400 naming `at`). */
const MAX_REPLAY_DELTAS = 20_000;
/** Deltas after `at` read at most to check the replay against the next snapshot; beyond it the check is skipped. */
const MAX_CHECK_DELTAS = 20_000;

interface SnapshotRow {
  ts_ms: number | string;
  hash: string;
  bid_prices: number[];
  bid_sizes: number[];
  ask_prices: number[];
  ask_sizes: number[];
  source: string;
}

interface DeltaRow {
  ts_ms: number | string;
  side: 'bid' | 'ask';
  price: number;
  size: number;
  hash: string;
  best_bid: number | null;
  best_ask: number | null;
}

export interface BookAt extends ReplayedBook {
  source: string;
  /** The first snapshot after `at` the replay was checked against; null when none is stored or it lies beyond the bound. */
  nextSnapshotAtMs: number | null;
}

const zip = (prices: number[], sizes: number[]) => prices.map((price, i) => ({ price, size: sizes[i] ?? 0 }));

const snapshotOf = (row: SnapshotRow): StoredSnapshot => ({
  tsMs: Number(row.ts_ms),
  hash: row.hash,
  bids: zip(row.bid_prices, row.bid_sizes),
  asks: zip(row.ask_prices, row.ask_sizes),
});

const SNAPSHOT_COLUMNS = 'toUnixTimestamp64Milli(ts) AS ts_ms, hash, bid_prices, bid_sizes, ask_prices, ask_sizes, source';
// An ordered read counts every row it may touch against max_rows_to_read; LIMIT bounds these.
const ORDERED = { limits: { maxRowsToRead: 0 } };

/**
 * Every token's book at `atMs` in two statements whatever the number of outcomes (chDB runs one
 * statement at a time, each with a fixed cost): the snapshots around `atMs`, then the deltas
 * between them. A token with no book stored at or before `atMs` refuses the request.
 */
export async function booksAt(store: AnalyticsStore, assetIds: readonly string[], atMs: number): Promise<BookAt[]> {
  const snapshotParams: Record<string, unknown> = { at: atMs };
  const aroundAt = assetIds.flatMap((asset, i) => {
    snapshotParams[`a${i}`] = asset;
    return [
      `(SELECT ${i} AS token, 0 AS next, ${SNAPSHOT_COLUMNS} FROM order_books
         WHERE asset_id = {a${i}:String} AND ts <= fromUnixTimestamp64Milli({at:Int64})
         ORDER BY ts DESC, ingested_at DESC LIMIT 1)`,
      // The latest snapshot stored at the first instant after `at`.
      `(SELECT ${i} AS token, 1 AS next, ${SNAPSHOT_COLUMNS} FROM order_books
         WHERE asset_id = {a${i}:String} AND ts > fromUnixTimestamp64Milli({at:Int64})
         ORDER BY ts ASC, ingested_at DESC LIMIT 1)`,
    ];
  });
  const snapshotRows = await store.query<SnapshotRow & { token: number; next: number }>(
    aroundAt.join(' UNION ALL '),
    snapshotParams,
    ORDERED,
  );
  const take = MAX_REPLAY_DELTAS + MAX_CHECK_DELTAS + 1;
  const windows = assetIds.map((assetId, i) => {
    const anchorRow = snapshotRows.find((r) => Number(r.token) === i && Number(r.next) === 0);
    if (!anchorRow) throw ApiError.badRequest(`at: no book of token ${assetId} is stored at or before ${iso(atMs)}`);
    const nextRow = snapshotRows.find((r) => Number(r.token) === i && Number(r.next) === 1);
    return { anchorRow, anchor: snapshotOf(anchorRow), next: nextRow ? snapshotOf(nextRow) : null };
  });
  const deltaParams: Record<string, unknown> = { take };
  const between = windows.map((w, i) => {
    Object.assign(deltaParams, { [`a${i}`]: assetIds[i], [`from${i}`]: w.anchor.tsMs, [`to${i}`]: w.next?.tsMs ?? atMs });
    return `(SELECT ${i} AS token, toUnixTimestamp64Milli(ts) AS ts_ms, delta_id, side, price, size, hash, best_bid, best_ask
               FROM order_book_deltas FINAL
              WHERE asset_id = {a${i}:String} AND ts > fromUnixTimestamp64Milli({from${i}:Int64}) AND ts <= fromUnixTimestamp64Milli({to${i}:Int64})
              ORDER BY ts, delta_id LIMIT {take:UInt32})`;
  });
  const deltaRows = await store.query<DeltaRow & { token: number }>(
    `SELECT * FROM (${between.join(' UNION ALL ')}) ORDER BY token, ts_ms, delta_id`,
    deltaParams,
    ORDERED,
  );
  return windows.map((w, i) => {
    const rows = deltaRows.filter((r) => Number(r.token) === i);
    return replayWindow(w.anchorRow, w.anchor, w.next, rows, atMs, take);
  });
}

function replayWindow(
  anchorRow: SnapshotRow,
  anchor: StoredSnapshot,
  nextSnapshot: StoredSnapshot | null,
  rows: DeltaRow[],
  atMs: number,
  take: number,
): BookAt {
  let next = nextSnapshot;
  const deltas: StoredDelta[] = rows.map((r) => ({
    tsMs: Number(r.ts_ms),
    side: r.side,
    price: r.price,
    size: r.size,
    hash: r.hash,
    bestBid: r.best_bid,
    bestAsk: r.best_ask,
  }));
  const inWindow = deltas.findIndex((d) => d.tsMs > atMs);
  const windowCount = inWindow < 0 ? deltas.length : inWindow;
  if (windowCount > MAX_REPLAY_DELTAS) {
    throw ApiError.badRequest(
      `at: the book at ${iso(atMs)} is more than ${MAX_REPLAY_DELTAS} deltas after the last snapshot stored before it (${iso(anchor.tsMs)}); choose another instant`,
    );
  }
  // Read up to the bound without reaching the next snapshot: its check cannot be made.
  if (rows.length === take) {
    deltas.length = windowCount;
    next = null;
  }
  return { ...replayBook({ atMs, anchor, deltas, next }), source: anchorRow.source, nextSnapshotAtMs: next?.tsMs ?? null };
}
