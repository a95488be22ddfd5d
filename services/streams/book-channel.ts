/**
 * `book`: one market's order books, per outcome token. A subscription without a cursor first gets
 * each wanted token's latest stored book (the order_books row GET /markets/{id}/orderbook serves) and
 * the stored level changes after it, then the log's live books and changes; with a cursor it replays
 * from the log only, as every channel does.
 *
 * No gap and no duplicate at the switch: the stored rows are read after taking the sink's committed
 * offsets of the market's partitions, so every record before those offsets is in the store (the sink
 * commits after its insert) and the live read starts there. Records from there on that the stored
 * ones already hold are dropped: by id (a change the sink stored meanwhile), and by time (a record
 * of a token at or before its stored book's instant, which that book holds, as book-replay.ts takes
 * it). Books and changes are two topics the subscription reads in turn, so their order with each
 * other is not the log's: per token, a change at or before the last book sent and a book older than
 * the last change sent are dropped, so a client's book only moves forward. Market required, as for
 * prices: a subscription reads only its market's partition.
 */
import type { BookDelta, BookSnapshot } from '../events/types.generated.js';
import { ApiError } from '../http/errors.js';
import type { StreamBook, StreamBookDelta } from '../http/types.generated.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { partitionForKey } from '../eventlog/partitioner.js';
import { findMarket } from '../read-models/markets/queries.js';
import { bookDeltas, bookSnapshots } from '../read-models/order-books/index.js';
import { SINK_GROUP_ID } from '../sink/sink-service.js';
import { servedAmount, servedAmountOrNull } from '../shared/decimal.js';
import { iso } from '../shared/time.js';
import type { Channel, ChannelMessage, InitialContext, InitialMessages } from './channel.js';
import { badFilter, marketOf, onlyFilters } from './filters.js';

/** Per token, what the subscription has sent: its book's instant, the latest instant sent, the stored changes' ids. */
interface Sent {
  bookMs: number;
  lastMs: number;
  ids: ReadonlySet<string>;
}

export interface BookFilters {
  market: string;
  /** The wanted outcome tokens (the market's, or the one `asset_id` names). */
  assets: readonly string[];
  /** The subscription's own state (filters are parsed per subscription): what it sent per token. */
  sent: Map<string, Sent>;
}

const NOTHING_SENT: Sent = { bookMs: -Infinity, lastMs: -Infinity, ids: new Set() };

const FILTERS = ['market', 'asset_id'] as const;

/**
 * Stored changes after a token's latest book sent on subscribe at most; more is refused (503) rather
 * than read unbounded. Books are stored on every REST poll that sees a change, so the changes after
 * the latest are few.
 */
const MAX_STORED_DELTAS = 5_000;

async function parseFilters(input: Record<string, unknown>, prefix: string, store: AnalyticsStore): Promise<BookFilters> {
  onlyFilters(input, prefix, 'book', FILTERS);
  const market = await marketOf(input.market, prefix, store);
  if (market === undefined) throw badFilter(prefix, 'market', 'required: the book channel carries one market');
  const row = await findMarket(store, market);
  if (row === undefined) throw ApiError.notFound(`${prefix}market: no market with condition id ${market}`);
  if (row.outcome_token_ids.length === 0) throw ApiError.notFound(`${prefix}market: ${market} has no indexed outcome tokens`);
  const asset = input.asset_id;
  if (asset === undefined) return { market, assets: row.outcome_token_ids, sent: new Map() };
  if (typeof asset !== 'string' || !row.outcome_token_ids.includes(asset))
    throw badFilter(prefix, 'asset_id', `not an outcome token of this market (${row.outcome_token_ids.join(', ')})`);
  return { market, assets: [asset], sent: new Map() };
}

/** What a book message carries of the event (a stored row has the same). */
type Book = Pick<BookSnapshot, 'event_id' | 'market_id' | 'asset_id' | 'hash' | 'timestamp_ms' | 'origin' | 'bids' | 'asks'>;
type Delta = Pick<
  BookDelta,
  'event_id' | 'market_id' | 'asset_id' | 'hash' | 'timestamp_ms' | 'side' | 'price' | 'size' | 'best_bid' | 'best_ask'
>;

const levels = (side: Array<{ price: number; size: number }>) =>
  side.filter((l) => l.size > 0).map((l) => ({ price: servedAmount(l.price), size_shares: servedAmount(l.size) }));

function presentBook(book: Book): StreamBook {
  return {
    id: book.event_id,
    market_id: book.market_id,
    asset_id: book.asset_id,
    hash: book.hash,
    timestamp: iso(book.timestamp_ms),
    origin: book.origin,
    bids: levels(book.bids),
    asks: levels(book.asks),
  };
}

function presentDelta(delta: Delta): StreamBookDelta {
  return {
    id: delta.event_id,
    market_id: delta.market_id,
    asset_id: delta.asset_id,
    hash: delta.hash || null,
    timestamp: iso(delta.timestamp_ms),
    side: delta.side,
    price: servedAmount(delta.price),
    size_shares: servedAmount(delta.size),
    best_bid: servedAmountOrNull(delta.best_bid),
    best_ask: servedAmountOrNull(delta.best_ask),
  };
}

interface BookRow {
  book_id: string;
  market_id: string;
  asset_id: string;
  hash: string;
  ts_ms: number | string;
  origin: BookSnapshot['origin'];
  bid_prices: number[];
  bid_sizes: number[];
  ask_prices: number[];
  ask_sizes: number[];
}

interface DeltaRow {
  delta_id: string;
  market_id: string;
  asset_id: string;
  hash: string;
  ts_ms: number | string;
  side: 'bid' | 'ask';
  price: number;
  size: number;
  best_bid: number | null;
  best_ask: number | null;
}

const zip = (prices: number[], sizes: number[]) => prices.map((price, i) => ({ price, size: sizes[i] ?? 0 }));

/** A token's latest stored book and the stored changes after it, as the log's events. */
async function storedState(store: AnalyticsStore, asset: string): Promise<{ book: Book; deltas: Delta[] } | undefined> {
  // The same read as GET /markets/{id}/orderbook: the newest row in the table's order.
  const [row] = await store.query<BookRow>(
    `SELECT book_id, market_id, asset_id, hash, toUnixTimestamp64Milli(ts) AS ts_ms, toString(origin) AS origin,
            bid_prices, bid_sizes, ask_prices, ask_sizes
       FROM order_books WHERE asset_id = {asset:String}
      ORDER BY ts DESC, ingested_at DESC LIMIT 1`,
    { asset },
    { limits: { maxRowsToRead: 0 } },
  );
  if (row === undefined) return undefined;
  const tsMs = Number(row.ts_ms);
  const deltas = await store.query<DeltaRow>(
    `SELECT delta_id, market_id, asset_id, hash, toUnixTimestamp64Milli(ts) AS ts_ms, toString(side) AS side, price, size, best_bid, best_ask
       FROM order_book_deltas FINAL
      WHERE asset_id = {asset:String} AND ts > fromUnixTimestamp64Milli({after:Int64})
      ORDER BY ts, ingested_at, delta_id LIMIT {take:UInt32}`,
    { asset, after: tsMs, take: MAX_STORED_DELTAS + 1 },
    { limits: { maxRowsToRead: 0 } },
  );
  if (deltas.length > MAX_STORED_DELTAS)
    throw ApiError.unavailable(`asset ${asset}: more than ${MAX_STORED_DELTAS} level changes since its last stored book; retry shortly`, 5);
  return {
    book: {
      event_id: row.book_id,
      market_id: row.market_id,
      asset_id: row.asset_id,
      hash: row.hash,
      timestamp_ms: tsMs,
      origin: row.origin,
      bids: zip(row.bid_prices, row.bid_sizes),
      asks: zip(row.ask_prices, row.ask_sizes),
    },
    deltas: deltas.map((d) => ({
      event_id: d.delta_id,
      market_id: d.market_id,
      asset_id: d.asset_id,
      side: d.side,
      price: d.price,
      size: d.size,
      hash: d.hash,
      best_bid: d.best_bid,
      best_ask: d.best_ask,
      timestamp_ms: Number(d.ts_ms),
    })),
  };
}

async function initial(filters: BookFilters, { store, log, ends }: InitialContext): Promise<InitialMessages<BookFilters>> {
  // First the sink's offsets, then the store: every record before them is stored by then.
  const positions = new Map([...ends].map(([topic, offsets]) => [topic, [...offsets]]));
  for (const stream of [bookSnapshots, bookDeltas]) {
    const offsets = positions.get(stream.topic)!;
    const partition = partitionForKey(filters.market, offsets.length);
    const committed = (await log.positions(SINK_GROUP_ID, stream.topic)).find((p) => p.partition === partition);
    if (committed !== undefined) offsets[partition] = Math.min(committed.committedOffset, offsets[partition]!);
  }
  const messages: ChannelMessage[] = [];
  const sent = new Map<string, Sent>();
  for (const asset of filters.assets) {
    const state = await storedState(store, asset);
    // A token with no stored book yet gets none: its first live book starts it.
    if (state === undefined) continue;
    messages.push({ type: 'book_snapshot', data: presentBook(state.book) });
    for (const delta of state.deltas) messages.push({ type: 'book_delta', data: presentDelta(delta) });
    const lastMs = state.deltas.at(-1)?.timestamp_ms ?? state.book.timestamp_ms;
    sent.set(asset, { bookMs: state.book.timestamp_ms, lastMs, ids: new Set(state.deltas.map((d) => d.event_id)) });
  }
  return { messages, positions, filters: { ...filters, sent } };
}

export const bookChannel: Channel<BookFilters> = {
  filters: FILTERS,
  name: 'book',
  access: 'tier1',
  resyncFrom: '/v1/markets/{id}/orderbook',
  streams: [bookSnapshots, bookDeltas],
  parseFilters,
  partitionKey: (filters) => filters.market,
  initial,
  select(stream, event, filters) {
    const record = event as BookSnapshot | BookDelta;
    if (record.market_id !== filters.market || !filters.assets.includes(record.asset_id)) return null;
    const sent = filters.sent.get(record.asset_id) ?? NOTHING_SENT;
    const ms = record.timestamp_ms;
    if (stream.topic === bookSnapshots.topic) {
      // Books and changes are two topics, read in turn: a book older than a change sent would undo it.
      if (ms <= sent.bookMs || ms < sent.lastMs) return null;
      filters.sent.set(record.asset_id, { bookMs: ms, lastMs: ms, ids: sent.ids });
      return { type: 'book_snapshot', data: presentBook(record as BookSnapshot) };
    }
    // A change at or before the book sent is in that book; a stored one was sent already.
    if (ms <= sent.bookMs || sent.ids.has(record.event_id)) return null;
    filters.sent.set(record.asset_id, { ...sent, lastMs: Math.max(sent.lastMs, ms) });
    return { type: 'book_delta', data: presentDelta(record as BookDelta) };
  },
};
