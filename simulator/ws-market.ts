/**
 * The CLOB market websocket (`/ws/market` on the simulator's listener), speaking the shapes of
 * upstream-samples/ws/: on subscribe a `book` per token (one array frame), then every push tick a
 * `price_change` frame per market whose books moved (both tokens in one frame, size "0" deletes a
 * level, each change carrying its token's hash and best bid/ask after the frame), `last_trade_price`
 * for new fills and `market_resolved` when a market resolves. Text "PING" is answered "PONG".
 *
 * Faults, for recovery tests: `wsDropFrameRate` silently drops price_change frames (a gap the client
 * must detect from best bid/ask and heal from REST), `wsDisconnectAfterFrames` closes each
 * connection after that many frames (the client must reconnect and resubscribe), and
 * `wsSilentConnections` accepts that many connections and then never says anything on them (no
 * book, no PONG): only a liveness timeout on the client gets it out.
 *
 * A 50-50 resolution sends no `market_resolved`: that message names one winning asset.
 */
import type { Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { BookLevel, OrderBooks, OrderBookSnapshot } from './books.js';
import { decimalString } from './formats.js';
import { createRng } from './prng.js';
import type { SimulatorState } from './state.js';
import type { SimMarket } from './world-types.js';

export interface WsFaultOptions {
  /** Fraction of price_change frames dropped without notice. */
  wsDropFrameRate?: number;
  /** Close each connection after this many frames (0 = never). */
  wsDisconnectAfterFrames?: number;
  /** The first N connections are accepted and then left silent (0 = none). */
  wsSilentConnections?: number;
}

interface Client {
  socket: WebSocket;
  /** Last book sent (or implied by sent deltas) per token. */
  books: Map<string, OrderBookSnapshot>;
  /** Per market: trades already announced, and whether the resolution was sent. */
  tradesSeen: Map<number, number>;
  resolvedSent: Set<number>;
  frames: number;
  /** Accepted, then never answered. */
  silent: boolean;
}

export interface MarketWebSocket {
  /** Computes and sends pending updates now (tests call this after advancing the clock). */
  push(): void;
  close(): Promise<void>;
}

export function attachMarketWebSocket(
  server: Server,
  state: SimulatorState,
  books: OrderBooks,
  faults: WsFaultOptions,
  pushIntervalMs = 250,
): MarketWebSocket {
  const wss = new WebSocketServer({ server, path: '/ws/market' });
  const clients = new Set<Client>();
  const dropRng = createRng(state.seed, 'ws-drop');
  let connections = 0;

  const send = (client: Client, payload: unknown) => {
    if (client.socket.readyState !== client.socket.OPEN) return;
    client.socket.send(JSON.stringify(payload));
    client.frames += 1;
    const limit = faults.wsDisconnectAfterFrames ?? 0;
    if (limit > 0 && client.frames >= limit) client.socket.terminate();
  };

  wss.on('connection', (socket) => {
    connections += 1;
    const silent = connections <= (faults.wsSilentConnections ?? 0);
    const client: Client = { socket, books: new Map(), tradesSeen: new Map(), resolvedSent: new Set(), frames: 0, silent };
    if (silent) return; // accepted, never answered: not even PONG
    clients.add(client);
    socket.on('close', () => clients.delete(client));
    socket.on('message', (data) => {
      const text = data.toString();
      if (text === 'PING') {
        socket.send('PONG');
        return;
      }
      let request: { assets_ids?: unknown };
      try {
        request = JSON.parse(text);
      } catch {
        socket.send(JSON.stringify({ error: 'invalid subscription message' }));
        return;
      }
      const tokens = Array.isArray(request.assets_ids) ? request.assets_ids.filter((t): t is string => typeof t === 'string') : [];
      state.sync();
      const snapshots: unknown[] = [];
      for (const token of tokens) {
        const book = books.bookForToken(token);
        const ref = state.tokenById.get(token);
        if (!ref) continue;
        client.tradesSeen.set(ref.marketIndex, state.tradesOfMarket(ref.marketIndex).length);
        if (state.status[ref.marketIndex]?.resolved) client.resolvedSent.add(ref.marketIndex);
        if (!book) continue;
        client.books.set(token, book);
        snapshots.push({ event_type: 'book', ...book });
      }
      if (snapshots.length > 0) send(client, snapshots);
    });
  });

  const push = () => {
    state.sync();
    for (const client of clients) pushTo(client);
  };

  const pushTo = (client: Client) => {
    const markets = new Set<number>();
    for (const token of client.books.keys()) markets.add(state.tokenById.get(token)!.marketIndex);
    for (const marketIndex of client.tradesSeen.keys()) markets.add(marketIndex);
    for (const marketIndex of markets) {
      const market = state.world.markets[marketIndex] as SimMarket;
      const changes: unknown[] = [];
      for (const token of market.tokenIds) {
        const before = client.books.get(token);
        if (!before) continue;
        const after = books.bookForToken(token);
        if (!after || after.hash === before.hash) continue;
        const bestBid = bestOf(after.bids, 'bid');
        const bestAsk = bestOf(after.asks, 'ask');
        for (const change of levelChanges(before, after)) {
          changes.push({ asset_id: token, ...change, hash: after.hash, best_bid: bestBid, best_ask: bestAsk });
        }
        client.books.set(token, after);
      }
      if (changes.length > 0 && !(dropRng.next() < (faults.wsDropFrameRate ?? 0))) {
        send(client, { market: market.conditionId, price_changes: changes, timestamp: String(state.nowMs()), event_type: 'price_change' });
      }
      const trades = state.tradesOfMarket(marketIndex);
      const seen = client.tradesSeen.get(marketIndex) ?? trades.length;
      // New fills of a market go out as one array frame (upstream frames may be arrays).
      const fills: unknown[] = [];
      for (const tradeIndex of trades.slice(seen)) {
        const trade = state.trades[tradeIndex]!;
        fills.push({
          asset_id: market.tokenIds[trade.outcomeIndex],
          event_type: 'last_trade_price',
          fee_rate_bps: '0',
          market: market.conditionId,
          price: decimalString(trade.price, 4),
          side: trade.side,
          size: decimalString(trade.size, 2),
          timestamp: String(trade.timestamp * 1000),
        });
      }
      if (fills.length > 0) send(client, fills);
      client.tradesSeen.set(marketIndex, trades.length);
      const status = state.status[marketIndex];
      if (status?.resolved && !market.voided && !client.resolvedSent.has(marketIndex)) {
        client.resolvedSent.add(marketIndex);
        const winner = market.winningOutcome;
        send(client, {
          event_type: 'market_resolved',
          id: market.id,
          market: market.conditionId,
          assets_ids: market.tokenIds,
          winning_asset_id: market.tokenIds[winner],
          winning_outcome: market.outcomes[winner],
          timestamp: String(status.closedAtMs ?? state.nowMs()),
          tags: [],
        });
      }
    }
  };

  const timer = setInterval(push, pushIntervalMs);
  timer.unref();

  return {
    push,
    close: async () => {
      clearInterval(timer);
      for (const socket of wss.clients) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

function bestOf(levels: BookLevel[], side: 'bid' | 'ask'): string {
  if (levels.length === 0) return side === 'bid' ? '0' : '1';
  const prices = levels.map((l) => Number(l.price));
  const best = side === 'bid' ? Math.max(...prices) : Math.min(...prices);
  return levels.find((l) => Number(l.price) === best)!.price;
}

/** Level-by-level differences: new or changed sizes, and "0" for levels that disappeared. */
function levelChanges(before: OrderBookSnapshot, after: OrderBookSnapshot): Array<{ price: string; size: string; side: 'BUY' | 'SELL' }> {
  const out: Array<{ price: string; size: string; side: 'BUY' | 'SELL' }> = [];
  const diff = (old: BookLevel[], now: BookLevel[], side: 'BUY' | 'SELL') => {
    const oldSizes = new Map(old.map((l) => [l.price, l.size]));
    const newSizes = new Map(now.map((l) => [l.price, l.size]));
    for (const [price] of oldSizes) if (!newSizes.has(price)) out.push({ price, size: '0', side });
    for (const [price, size] of newSizes) if (oldSizes.get(price) !== size) out.push({ price, size, side });
  };
  diff(before.bids, after.bids, 'BUY');
  diff(before.asks, after.asks, 'SELL');
  return out;
}
