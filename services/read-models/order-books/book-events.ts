/**
 * GET /orderbook/history?format=deltas: one token's stored snapshots and deltas in replay order,
 * keyset-paged. Order: instant, then deltas before snapshots (a snapshot holds the deltas of its own
 * instant), then ingestion time, then id; a client applying them in this order (a snapshot replaces
 * the book, a delta sets one level) holds the book book-replay.ts rebuilds at every instant.
 */
import { queryOf } from '../../http/query.js';
import type { Request } from 'express';
import { ApiError } from '../../http/errors.js';
import { keysetPage } from '../../http/keyset.js';
import { timeParam } from '../../http/time-params.js';
import type { BookEvent, OrderBookEvents } from '../../http/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { iso } from '../../shared/time.js';
import type { MarketRow } from '../markets/queries.js';

const DELTA = 0;
const SNAPSHOT = 1;

interface EventRow {
  kind: number;
  id: string;
  ts_ms: number | string;
  ingested_ms: number | string;
  hash: string;
  side: string;
  price: number;
  size: number;
  best_bid: number | null;
  best_ask: number | null;
  bid_prices: number[];
  bid_sizes: number[];
  ask_prices: number[];
  ask_sizes: number[];
  origin: string;
}

const zip = (prices: number[], sizes: number[]) => prices.map((price, i) => ({ price, size_shares: sizes[i] ?? 0 }));

function present(row: EventRow): BookEvent {
  const timestamp = iso(Number(row.ts_ms));
  if (Number(row.kind) === SNAPSHOT) {
    return {
      kind: 'snapshot',
      id: row.id,
      timestamp,
      hash: row.hash,
      origin: row.origin,
      bids: zip(row.bid_prices, row.bid_sizes),
      asks: zip(row.ask_prices, row.ask_sizes),
    };
  }
  return {
    kind: 'delta',
    id: row.id,
    timestamp,
    hash: row.hash || null,
    side: row.side as 'bid' | 'ask',
    price: row.price,
    size_shares: row.size,
    best_bid: row.best_bid,
    best_ask: row.best_ask,
  };
}

export async function bookEventsPage(
  store: AnalyticsStore,
  request: Request,
  market: MarketRow,
  outcomeIndex: number,
): Promise<OrderBookEvents> {
  const assetId = market.outcome_token_ids[outcomeIndex]!;
  const query = queryOf(request, 'getOrderbookHistory');
  const to = timeParam('to', query.to) ?? Date.now();
  const from = timeParam('from', query.from) ?? to - 24 * 3_600_000;
  if (from >= to) throw ApiError.badRequest('from: must be before to');
  const page = await keysetPage<EventRow, BookEvent>(request, {
    filters: { market: market.market_id, asset: assetId, format: 'deltas', from, to },
    shape: ['ms', 'int', 'ms', 'string'],
    defaultLimit: 500,
    fetch: async (after, take) => {
      const params = {
        asset: assetId,
        from: after ? Math.max(from, Number(after[0])) : from,
        to,
        take,
        after_ms: after?.[0] ?? 0,
        after_kind: after?.[1] ?? 0,
        after_ingested: after?.[2] ?? 0,
        after_id: after?.[3] ?? '',
      };
      const keyset = (kind: number, id: string) =>
        after
          ? `AND (ts, ${kind}, ingested_at, ${id}) > (fromUnixTimestamp64Milli({after_ms:Int64}), {after_kind:UInt8}, fromUnixTimestamp64Milli({after_ingested:Int64}), {after_id:String})`
          : '';
      const window =
        'asset_id = {asset:String} AND ts >= fromUnixTimestamp64Milli({from:Int64}) AND ts < fromUnixTimestamp64Milli({to:Int64})';
      // Each table read in its own order from the cursor and bounded by the page size; the merge keeps the first `take`.
      const [deltas, snapshots] = await Promise.all([
        store.query<EventRow>(
          `SELECT ${DELTA} AS kind, delta_id AS id, toUnixTimestamp64Milli(ts) AS ts_ms, toUnixTimestamp64Milli(ingested_at) AS ingested_ms,
                  hash, toString(side) AS side, price, size, best_bid, best_ask,
                  [] AS bid_prices, [] AS bid_sizes, [] AS ask_prices, [] AS ask_sizes, '' AS origin
             FROM order_book_deltas FINAL WHERE ${window} ${keyset(DELTA, 'delta_id')}
            ORDER BY ts, ingested_at, delta_id LIMIT {take:UInt32}`,
          params,
          { limits: { maxRowsToRead: 0 } },
        ),
        store.query<EventRow>(
          `SELECT ${SNAPSHOT} AS kind, book_id AS id, toUnixTimestamp64Milli(ts) AS ts_ms, toUnixTimestamp64Milli(ingested_at) AS ingested_ms,
                  hash, '' AS side, 0 AS price, 0 AS size, best_bid, best_ask,
                  bid_prices, bid_sizes, ask_prices, ask_sizes, toString(origin) AS origin
             FROM order_books FINAL WHERE ${window} ${keyset(SNAPSHOT, 'book_id')}
            ORDER BY ts, ingested_at, book_id LIMIT {take:UInt32}`,
          params,
          { limits: { maxRowsToRead: 0 } },
        ),
      ]);
      const key = (r: EventRow): [number, number, number, string] => [Number(r.ts_ms), Number(r.kind), Number(r.ingested_ms), r.id];
      const compare = (a: EventRow, b: EventRow) => {
        const [x, y] = [key(a), key(b)];
        for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
        return x[3] < y[3] ? -1 : x[3] > y[3] ? 1 : 0;
      };
      return [...deltas, ...snapshots].sort(compare).slice(0, take);
    },
    keyOf: (row) => [Number(row.ts_ms), Number(row.kind), Number(row.ingested_ms), row.id],
    present,
  });
  return {
    market_id: market.market_id,
    outcome: market.outcomes[outcomeIndex]!,
    asset_id: assetId,
    format: 'deltas',
    from: iso(from),
    to: iso(to),
    events: page.data,
    pagination: page.pagination,
  };
}
