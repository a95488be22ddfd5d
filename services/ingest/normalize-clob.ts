/**
 * CLOB REST and market-websocket shapes -> price ticks, book snapshots/deltas and resolutions.
 * Traps handled: every websocket value is a string; book levels are printed worst-first (bids
 * ascending, asks descending), so levels are re-sorted best-first here; either side may be empty;
 * `price_change` has a current form (`price_changes[]`, several tokens per frame) and a 2024 flat
 * form; size "0" removes a level.
 */
import { CONDITION_ID } from '../shared/ids.js';
import type { BookDelta, BookLevel, BookSnapshot, MarketResolved, PriceTick, Source } from '../events/types.js';
import { hashParts } from './content-id.js';
import { resolutionEventId } from './normalize-market.js';
import { fail, ok, parseOptionalNumber, parseStringArray, parseTimestampMs, parseTokenId, parseTokenIds, type Parsed } from './parse.js';

type Json = Record<string, unknown>;
const TOKEN_ID = /^\d{1,80}$/;
const isObject = (raw: unknown): raw is Json => !!raw && typeof raw === 'object' && !Array.isArray(raw);

function marketAndAsset(raw: Json): Parsed<{ marketId: string; assetId: string }> {
  const marketId = typeof raw.market === 'string' ? raw.market.toLowerCase() : '';
  if (!CONDITION_ID.test(marketId)) return fail(`market (condition id) missing or malformed: ${JSON.stringify(raw.market)}`);
  const assetId = parseTokenId(raw.asset_id, 'asset_id');
  if (!assetId.ok) return assetId;
  return ok({ marketId, assetId: assetId.value });
}

function price(raw: unknown, field: string): Parsed<number> {
  const value = parseOptionalNumber(raw);
  if (value === null || value < 0 || value > 1) return fail(`${field} is not a price in 0..1: ${JSON.stringify(raw)}`);
  return ok(value);
}

/** Levels best-first: bids by price descending, asks ascending. Zero-size levels are dropped. */
function parseLevels(raw: unknown, side: 'bid' | 'ask'): Parsed<BookLevel[]> {
  if (!Array.isArray(raw)) return fail(`${side}s is not an array`);
  const levels: BookLevel[] = [];
  for (const level of raw) {
    if (!isObject(level)) return fail(`${side} level is not an object`);
    const p = price(level.price, `${side} price`);
    if (!p.ok) return p;
    const size = parseOptionalNumber(level.size);
    if (size === null || size < 0) return fail(`${side} size is not a non-negative number: ${JSON.stringify(level.size)}`);
    if (size > 0) levels.push({ price: p.value, size });
  }
  levels.sort(side === 'bid' ? (a, b) => b.price - a.price : (a, b) => a.price - b.price);
  return ok(levels);
}

/** A REST `/book` (or `/books` element) or a websocket `book` message. Id: token + upstream hash. */
export function normalizeBook(raw: unknown, source: Source, nowMs: number, origin: BookSnapshot['origin']): Parsed<BookSnapshot> {
  if (!isObject(raw)) return fail('book is not an object');
  const ids = marketAndAsset(raw);
  if (!ids.ok) return ids;
  const hash = typeof raw.hash === 'string' ? raw.hash.toLowerCase().replace(/^0x/, '') : '';
  if (!/^[0-9a-f]{8,64}$/.test(hash)) return fail(`hash missing or not hex: ${JSON.stringify(raw.hash)}`);
  const bids = parseLevels(raw.bids ?? [], 'bid');
  if (!bids.ok) return bids;
  const asks = parseLevels(raw.asks ?? [], 'ask');
  if (!asks.ok) return asks;
  const timestampMs = parseTimestampMs(raw.timestamp) ?? nowMs;
  return ok({
    event_id: `${ids.value.assetId}:${hash}`,
    source,
    market_id: ids.value.marketId,
    asset_id: ids.value.assetId,
    hash,
    timestamp_ms: timestampMs,
    bids: bids.value,
    asks: asks.value,
    best_bid: bids.value[0]?.price ?? null,
    best_ask: asks.value[0]?.price ?? null,
    tick_size: parseOptionalNumber(raw.tick_size),
    min_order_size: parseOptionalNumber(raw.min_order_size),
    last_trade_price: parseOptionalNumber(raw.last_trade_price),
    origin,
    ingested_at_ms: nowMs,
  });
}

/** The midpoint a book implies (what `/midpoint` answers), as a tick; null for a one-sided book. */
export function midpointTick(book: BookSnapshot): PriceTick | null {
  if (book.best_bid === null || book.best_ask === null) return null;
  const mid = Math.round(((book.best_bid + book.best_ask) / 2) * 1e6) / 1e6;
  return {
    event_id: `${book.asset_id}:mid:${book.timestamp_ms}:${hashParts([mid])}`,
    source: book.source,
    market_id: book.market_id,
    asset_id: book.asset_id,
    kind: 'midpoint',
    price: mid,
    best_bid: book.best_bid,
    best_ask: book.best_ask,
    side: null,
    size: null,
    timestamp_ms: book.timestamp_ms,
    origin: book.origin === 'clob-rest' ? 'clob-rest' : 'clob-ws',
    ingested_at_ms: book.ingested_at_ms,
  };
}

/** REST `/last-trade-price` ({price, side}); upstream gives no time, so the observation time is used. */
export function normalizeRestLastTradePrice(
  raw: unknown,
  ids: { marketId: string; assetId: string },
  source: Source,
  nowMs: number,
): Parsed<PriceTick> {
  if (!isObject(raw)) return fail('last-trade-price is not an object');
  const p = price(raw.price, 'price');
  if (!p.ok) return p;
  const side = typeof raw.side === 'string' && raw.side !== '' ? raw.side.toUpperCase() : null;
  return ok({
    event_id: `${ids.assetId}:ltp:${hashParts([p.value, side, Math.floor(nowMs / 1000)])}`,
    source,
    market_id: ids.marketId,
    asset_id: ids.assetId,
    kind: 'last_trade',
    price: p.value,
    best_bid: null,
    best_ask: null,
    side,
    size: null,
    timestamp_ms: nowMs,
    origin: 'clob-rest',
    ingested_at_ms: nowMs,
  });
}

/** `/prices-history` -> one tick per point ({t: unix seconds, p: number}); id = token + t, so backfills overlap harmlessly. */
export function normalizePricesHistory(
  raw: unknown,
  ids: { marketId: string; assetId: string },
  source: Source,
  nowMs: number,
): Parsed<{ ticks: PriceTick[]; rejected: Array<{ raw: unknown; reason: string }> }> {
  if (!isObject(raw) || !Array.isArray(raw.history)) return fail('prices-history has no history array');
  const ticks: PriceTick[] = [];
  const rejected: Array<{ raw: unknown; reason: string }> = [];
  for (const point of raw.history) {
    const t = isObject(point) ? parseTimestampMs(point.t) : null;
    const p = isObject(point) ? price(point.p, 'p') : fail<number>('point is not an object');
    if (t === null || !p.ok) {
      rejected.push({
        raw: point,
        reason: t === null ? `t unparseable: ${JSON.stringify(isObject(point) ? point.t : point)}` : (p as { reason: string }).reason,
      });
      continue;
    }
    ticks.push({
      event_id: `${ids.assetId}:hist:${t}`,
      source,
      market_id: ids.marketId,
      asset_id: ids.assetId,
      kind: 'history',
      price: p.value,
      best_bid: null,
      best_ask: null,
      side: null,
      size: null,
      timestamp_ms: t,
      origin: 'prices-history',
      ingested_at_ms: nowMs,
    });
  }
  return ok({ ticks, rejected });
}

/** CLOB `/markets/{condition_id}`: tokens with outcome, price and winner; a winner means resolved. */
export interface ClobMarketInfo {
  marketId: string;
  tokens: Array<{ tokenId: string; outcome: string; price: number | null; winner: boolean }>;
  closed: boolean;
  acceptingOrders: boolean;
  negRisk: boolean;
  tickSize: number | null;
  resolution: MarketResolved | null;
}

export function normalizeClobMarket(raw: unknown, source: Source, nowMs: number): Parsed<ClobMarketInfo> {
  if (!isObject(raw)) return fail('clob market is not an object');
  const marketId = typeof raw.condition_id === 'string' ? raw.condition_id.toLowerCase() : '';
  if (!CONDITION_ID.test(marketId)) return fail(`condition_id missing or malformed: ${JSON.stringify(raw.condition_id)}`);
  if (!Array.isArray(raw.tokens)) return fail('tokens is not an array');
  const tokens: ClobMarketInfo['tokens'] = [];
  for (const token of raw.tokens) {
    if (!isObject(token)) return fail('token is not an object');
    const tokenId = String(token.token_id ?? '');
    // Old markets that never had an order book list tokens with token_id "" (seen in /markets pages).
    if (tokenId !== '' && !TOKEN_ID.test(tokenId)) return fail(`token_id malformed: ${JSON.stringify(token.token_id)}`);
    tokens.push({ tokenId, outcome: String(token.outcome ?? ''), price: parseOptionalNumber(token.price), winner: token.winner === true });
  }
  const winners = tokens.filter((t) => t.winner);
  const winnerIndex = winners.length === 1 ? tokens.indexOf(winners[0]!) : -1;
  const resolution: MarketResolved | null =
    winnerIndex < 0
      ? null
      : {
          event_id: resolutionEventId(marketId),
          source,
          market_id: marketId,
          gamma_id: '',
          slug: String(raw.market_slug ?? ''),
          title: String(raw.question ?? ''),
          outcomes: tokens.map((t) => t.outcome),
          outcome_token_ids: tokens.map((t) => t.tokenId),
          winning_outcome: tokens[winnerIndex]!.outcome,
          winning_outcome_index: winnerIndex,
          winning_asset_id: tokens[winnerIndex]!.tokenId,
          payouts: tokens.map((t) => (t.winner ? 1 : 0)),
          resolved_at_ms: null,
          origin: 'clob-rest',
          ingested_at_ms: nowMs,
        };
  return ok({
    marketId,
    tokens,
    closed: raw.closed === true,
    acceptingOrders: raw.accepting_orders === true,
    negRisk: raw.neg_risk === true,
    tickSize: parseOptionalNumber(raw.minimum_tick_size),
    resolution,
  });
}

/** One normalized market-channel message. */
export type WsMarketMessage =
  | { type: 'book'; book: BookSnapshot }
  | { type: 'price_change'; marketId: string; deltas: BookDelta[] }
  | { type: 'last_trade_price'; tick: PriceTick }
  | { type: 'best_bid_ask'; tick: PriceTick }
  | { type: 'tick_size_change'; marketId: string; assetId: string; oldTickSize: number | null; newTickSize: number }
  | { type: 'new_market'; marketId: string; gammaId: string; slug: string; question: string; assetIds: string[]; outcomes: string[] }
  | { type: 'market_resolved'; resolution: MarketResolved }
  | { type: 'ignored'; reason: string };

/** Frames may be one object or an array of objects: always a list. */
export function wsFrameMessages(frame: unknown): unknown[] {
  return Array.isArray(frame) ? frame : [frame];
}

export function normalizeWsMarketMessage(raw: unknown, source: Source, nowMs: number): Parsed<WsMarketMessage> {
  if (!isObject(raw)) return fail('websocket message is not an object');
  const eventType = raw.event_type;
  switch (eventType) {
    case 'book': {
      const book = normalizeBook(raw, source, nowMs, 'clob-ws');
      return book.ok ? ok({ type: 'book', book: book.value }) : book;
    }
    case 'price_change':
      return priceChange(raw, source, nowMs);
    case 'last_trade_price': {
      const ids = marketAndAsset(raw);
      if (!ids.ok) return ids;
      const p = price(raw.price, 'price');
      if (!p.ok) return p;
      const timestampMs = parseTimestampMs(raw.timestamp);
      if (timestampMs === null) return fail(`timestamp unparseable: ${JSON.stringify(raw.timestamp)}`);
      const size = parseOptionalNumber(raw.size);
      const side = typeof raw.side === 'string' && raw.side !== '' ? raw.side.toUpperCase() : null;
      return ok({
        type: 'last_trade_price',
        tick: {
          event_id: `${ids.value.assetId}:ltp:${timestampMs}:${hashParts([p.value, side, size])}`,
          source,
          market_id: ids.value.marketId,
          asset_id: ids.value.assetId,
          kind: 'last_trade',
          price: p.value,
          best_bid: null,
          best_ask: null,
          side,
          size,
          timestamp_ms: timestampMs,
          origin: 'clob-ws',
          ingested_at_ms: nowMs,
        },
      });
    }
    case 'best_bid_ask': {
      const ids = marketAndAsset(raw);
      if (!ids.ok) return ids;
      const bid = parseOptionalNumber(raw.best_bid);
      const ask = parseOptionalNumber(raw.best_ask);
      if (bid === null && ask === null) return fail('best_bid_ask carries neither best_bid nor best_ask');
      const timestampMs = parseTimestampMs(raw.timestamp);
      if (timestampMs === null) return fail(`timestamp unparseable: ${JSON.stringify(raw.timestamp)}`);
      const mid = bid !== null && ask !== null ? Math.round(((bid + ask) / 2) * 1e6) / 1e6 : (bid ?? ask)!;
      return ok({
        type: 'best_bid_ask',
        tick: {
          event_id: `${ids.value.assetId}:bba:${timestampMs}:${hashParts([bid, ask])}`,
          source,
          market_id: ids.value.marketId,
          asset_id: ids.value.assetId,
          kind: 'best_bid_ask',
          price: mid,
          best_bid: bid,
          best_ask: ask,
          side: null,
          size: null,
          timestamp_ms: timestampMs,
          origin: 'clob-ws',
          ingested_at_ms: nowMs,
        },
      });
    }
    case 'tick_size_change': {
      const ids = marketAndAsset(raw);
      if (!ids.ok) return ids;
      const newTickSize = parseOptionalNumber(raw.new_tick_size);
      if (newTickSize === null || newTickSize <= 0) return fail(`new_tick_size malformed: ${JSON.stringify(raw.new_tick_size)}`);
      return ok({
        type: 'tick_size_change',
        marketId: ids.value.marketId,
        assetId: ids.value.assetId,
        oldTickSize: parseOptionalNumber(raw.old_tick_size),
        newTickSize,
      });
    }
    case 'new_market': {
      const marketId = typeof raw.market === 'string' ? raw.market.toLowerCase() : '';
      if (!CONDITION_ID.test(marketId)) return fail(`market malformed: ${JSON.stringify(raw.market)}`);
      const assetIds = parseTokenIds(raw.assets_ids ?? raw.clob_token_ids, 'assets_ids');
      if (!assetIds.ok) return assetIds;
      const outcomes = raw.outcomes === undefined ? ok<string[]>([]) : parseStringArray(raw.outcomes, 'outcomes');
      if (!outcomes.ok) return outcomes;
      return ok({
        type: 'new_market',
        marketId,
        gammaId: String(raw.id ?? ''),
        slug: String(raw.slug ?? ''),
        question: String(raw.question ?? ''),
        assetIds: assetIds.value,
        outcomes: outcomes.value,
      });
    }
    case 'market_resolved': {
      const marketId = typeof raw.market === 'string' ? raw.market.toLowerCase() : '';
      if (!CONDITION_ID.test(marketId)) return fail(`market malformed: ${JSON.stringify(raw.market)}`);
      const assetIds = parseTokenIds(raw.assets_ids ?? [], 'assets_ids');
      if (!assetIds.ok) return assetIds;
      const winning = parseTokenId(raw.winning_asset_id, 'winning_asset_id');
      if (!winning.ok) return winning;
      const winningAsset = winning.value;
      const index = assetIds.value.indexOf(winningAsset);
      return ok({
        type: 'market_resolved',
        resolution: {
          event_id: resolutionEventId(marketId),
          source,
          market_id: marketId,
          gamma_id: String(raw.id ?? ''),
          slug: '',
          title: '',
          outcomes: [],
          outcome_token_ids: assetIds.value,
          winning_outcome: typeof raw.winning_outcome === 'string' ? raw.winning_outcome : null,
          winning_outcome_index: index,
          winning_asset_id: winningAsset,
          payouts: assetIds.value.map((id) => (id === winningAsset ? 1 : 0)),
          resolved_at_ms: parseTimestampMs(raw.timestamp),
          origin: 'clob-ws',
          ingested_at_ms: nowMs,
        },
      });
    }
    default:
      return fail(`unknown market-channel event_type: ${JSON.stringify(eventType)}`);
  }
}

function priceChange(raw: Json, source: Source, nowMs: number): Parsed<WsMarketMessage> {
  const marketId = typeof raw.market === 'string' ? raw.market.toLowerCase() : '';
  if (!CONDITION_ID.test(marketId)) return fail(`market malformed: ${JSON.stringify(raw.market)}`);
  const timestampMs = parseTimestampMs(raw.timestamp);
  if (timestampMs === null) return fail(`timestamp unparseable: ${JSON.stringify(raw.timestamp)}`);
  // 2024 flat form: one change at the top level.
  const changes = Array.isArray(raw.price_changes) ? raw.price_changes : [raw];
  const deltas: BookDelta[] = [];
  for (const [position, change] of changes.entries()) {
    if (!isObject(change)) return fail('price change is not an object');
    const asset = parseTokenId(change.asset_id, 'asset_id');
    if (!asset.ok) return asset;
    const assetId = asset.value;
    const p = price(change.price, 'price');
    if (!p.ok) return p;
    const size = parseOptionalNumber(change.size);
    if (size === null || size < 0) return fail(`size malformed: ${JSON.stringify(change.size)}`);
    const side = change.side === 'BUY' ? 'bid' : change.side === 'SELL' ? 'ask' : null;
    if (!side) return fail(`side is not BUY or SELL: ${JSON.stringify(change.side)}`);
    const hash = typeof change.hash === 'string' ? change.hash.toLowerCase() : '';
    deltas.push({
      event_id: `${assetId}:${timestampMs}:${hash || position}:${hashParts([side, p.value, size])}`,
      source,
      market_id: marketId,
      asset_id: assetId,
      side,
      price: p.value,
      size,
      hash,
      best_bid: parseOptionalNumber(change.best_bid),
      best_ask: parseOptionalNumber(change.best_ask),
      timestamp_ms: timestampMs,
      ingested_at_ms: nowMs,
    });
  }
  return ok({ type: 'price_change', marketId, deltas });
}
