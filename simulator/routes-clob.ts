/**
 * CLOB public REST: /book, POST /books, /midpoint, /last-trade-price, /prices-history.
 * Prices are strings here (unlike Gamma and the Data API); book timestamps are ms-epoch strings;
 * /prices-history points are {t: unix seconds, p: number}. A token without a live book answers 404
 * with upstream's message.
 */

import { Router } from 'express';
import type { OrderBooks } from './books.js';
import { decimalString, roundTo } from './formats.js';
import { HttpError, enumParam, intParam, optionalIntParam, stringParam, type Query } from './http-params.js';
import { PRICE_STEP_MS } from './price-paths.js';
import type { SimulatorState, TokenRef } from './state.js';
import type { SimMarket } from './world-types.js';

const NO_ORDERBOOK = 'No orderbook exists for the requested token id';
const MAX_BATCH = 500;
const INTERVAL_SECONDS: Record<string, number | null> = {
  max: null,
  all: null,
  '1m': 30 * 86_400,
  '1w': 7 * 86_400,
  '1d': 86_400,
  '6h': 6 * 3_600,
  '1h': 3_600,
};

export function clobRouter(state: SimulatorState, books: OrderBooks): Router {
  const router = Router();

  const requireToken = (query: Query): { tokenId: string; ref: TokenRef } => {
    const tokenId = stringParam(query, 'token_id');
    if (!tokenId) throw new HttpError(400, 'token_id is required');
    const ref = state.tokenById.get(tokenId);
    if (!ref) throw new HttpError(404, NO_ORDERBOOK);
    return { tokenId, ref };
  };

  router.get('/book', (req, res) => {
    const { tokenId } = requireToken(req.query as Query);
    const book = books.bookForToken(tokenId);
    if (!book) throw new HttpError(404, NO_ORDERBOOK);
    res.json(book);
  });

  router.post('/books', (req, res) => {
    const body: unknown = req.body;
    if (!Array.isArray(body) || body.length > MAX_BATCH)
      throw new HttpError(400, `body must be an array of up to ${MAX_BATCH} {"token_id": "..."}`);
    const tokenIds = body.map((entry: unknown) => {
      const tokenId = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>).token_id : undefined;
      if (typeof tokenId !== 'string' || tokenId === '') throw new HttpError(400, 'every entry needs a token_id string');
      return tokenId;
    });
    // Tokens without a book are left out of the batch answer.
    res.json(tokenIds.map((tokenId) => books.bookForToken(tokenId)).filter((book) => book !== null));
  });

  router.get('/midpoint', (req, res) => {
    const { ref } = requireToken(req.query as Query);
    if (!state.isAcceptingOrders(ref.marketIndex)) throw new HttpError(404, NO_ORDERBOOK);
    const market = state.world.markets[ref.marketIndex] as SimMarket;
    const decimals = market.tickSize === 0.01 ? 3 : 4;
    res.json({ mid: decimalString(state.outcomePrice(ref.marketIndex, ref.outcomeIndex), decimals) });
  });

  router.get('/last-trade-price', (req, res) => {
    const { ref } = requireToken(req.query as Query);
    const last = state.lastTrade(ref.marketIndex);
    if (!last) {
      res.json({ price: '0.5', side: '' });
      return;
    }
    // A fill on the other outcome is the mirror trade on this one: BUY NO at p is SELL YES at 1 - p.
    const sameToken = last.outcomeIndex === ref.outcomeIndex;
    const price = sameToken ? last.price : 1 - last.price;
    const side = sameToken ? last.side : last.side === 'BUY' ? 'SELL' : 'BUY';
    res.json({ price: decimalString(price, 4), side });
  });

  router.get('/prices-history', (req, res) => {
    const query = req.query as Query;
    const tokenId = stringParam(query, 'market');
    if (!tokenId) throw new HttpError(400, 'market (token id) is required');
    const ref = state.tokenById.get(tokenId);
    if (!ref) throw new HttpError(404, NO_ORDERBOOK);
    const interval = enumParam(query, 'interval', Object.keys(INTERVAL_SECONDS));
    const fidelityMinutes = intParam(query, 'fidelity', { defaultValue: 1, min: 1, max: 525_600, aboveMax: 'clamp' });
    const nowSeconds = Math.floor(state.nowMs() / 1000);
    const endTs = optionalIntParam(query, 'endTs') ?? nowSeconds;
    const window = interval ? INTERVAL_SECONDS[interval] : null;
    const startTs = optionalIntParam(query, 'startTs') ?? (window ? endTs - window : 0);
    if (startTs > endTs) throw new HttpError(400, 'startTs must not be after endTs');
    res.json({ history: historyPoints(state, ref, startTs, endTs, fidelityMinutes) });
  });

  return router;
}

/** Samples of the token's mid from the price path, every `fidelity` minutes, up to its close. */
function historyPoints(
  state: SimulatorState,
  ref: TokenRef,
  startTs: number,
  endTs: number,
  fidelityMinutes: number,
): { t: number; p: number }[] {
  const market = state.world.markets[ref.marketIndex] as SimMarket;
  if (market.placeholder) return [];
  const status = state.status[ref.marketIndex];
  const listedMs = Math.max(state.world.originMs, market.acceptingOrdersFromMs);
  const lastMs = Math.min(endTs * 1000, state.nowMs());
  const closedAtMs = status?.closedAtMs ?? Infinity;
  const strideMs = fidelityMinutes * PRICE_STEP_MS;
  const firstStepMs = state.world.originMs + Math.ceil((Math.max(startTs * 1000, listedMs) - state.world.originMs) / strideMs) * strideMs;
  const points: { t: number; p: number }[] = [];
  for (let ms = firstStepMs; ms <= lastMs && ms < closedAtMs; ms += strideMs) {
    const quote = state.paths.quoteAt(market, ms);
    const yesMid = (quote.bidTicks + quote.askTicks) / (2 * quote.ticksPerUnit);
    points.push({ t: Math.floor(ms / 1000), p: roundTo(ref.outcomeIndex === 0 ? yesMid : 1 - yesMid, 4) });
  }
  // A resolved market's history ends on its payout.
  if (status?.resolved && status.closedAtMs !== null && status.closedAtMs >= startTs * 1000 && status.closedAtMs <= endTs * 1000) {
    points.push({ t: Math.floor(status.closedAtMs / 1000), p: market.voided ? 0.5 : market.winningOutcome === ref.outcomeIndex ? 1 : 0 });
  }
  return points;
}
