/**
 * The numbers behind a Gamma market: volumes over rolling windows, liquidity on the book, open
 * interest, and the price fields (outcomePrices, bestBid/bestAsk, spread, last trade, changes),
 * including how they look once a market closed or resolved.
 */

import type { OrderBooks } from './books.js';
import { decimalString, roundTo } from './formats.js';
import type { SimulatorState } from './state.js';
import type { SimMarket } from './world-types.js';

const DAY_MS = 86_400_000;

/** Numbers an event aggregates from its markets. */
export interface MarketFigures {
  volumeNum: number;
  volume24hr: number;
  volume1wk: number;
  volume1mo: number;
  volume1yr: number;
  liquidityNum: number | null;
  openInterest: number;
  competitive: number;
  lastActivityMs: number;
}

export function marketFigures(state: SimulatorState, books: OrderBooks, market: SimMarket): MarketFigures {
  const now = state.nowMs();
  const status = state.status[market.index];
  const quote = state.quote(market.index);
  const spread = (quote.askTicks - quote.bidTicks) / quote.ticksPerUnit;
  return {
    volumeNum: roundTo(state.totalVolume(market.index), 6),
    volume24hr: state.volume24hr(market.index),
    volume1wk: state.volumeBetween(market.index, now - 7 * DAY_MS),
    volume1mo: state.volumeBetween(market.index, now - 30 * DAY_MS),
    volume1yr: state.volumeBetween(market.index, now - 365 * DAY_MS),
    liquidityNum: status?.resolved ? null : roundTo(books.liquidity(market), 4),
    openInterest: state.openInterest(market.index),
    competitive: status?.closed || market.placeholder ? 0 : 1 - spread * spread * 10,
    lastActivityMs: lastActivityMs(state, market),
  };
}

/** Creation, the last fill or the close, whichever is latest (never after now): what moves Gamma's updatedAt. */
function lastActivityMs(state: SimulatorState, market: SimMarket): number {
  const last = state.lastTrade(market.index);
  const latest = Math.max(
    Math.floor(market.createdAtMicros / 1000),
    (last?.timestamp ?? 0) * 1000,
    state.status[market.index]?.closedAtMs ?? 0,
  );
  return Math.min(latest, state.nowMs());
}

/** Gamma's market updatedAt (micro-precision; the sub-millisecond digits vary per market). */
export function updatedAtMicros(state: SimulatorState, market: SimMarket): number {
  return lastActivityMs(state, market) * 1000 + ((market.index * 7919) % 1_000_000);
}

export interface PriceFields {
  outcomePrices: [string, string] | null;
  bestBid: number | null;
  bestAsk: number;
  spread: number;
  lastTradePrice: number;
  oneDayPriceChange: number;
  oneHourPriceChange: number;
}

export function priceFields(state: SimulatorState, market: SimMarket): PriceFields {
  const decimals = market.tickSize === 0.01 ? 2 : 3;
  const last = state.lastTrade(market.index);
  const lastTradePrice = last ? roundTo(last.outcomeIndex === 0 ? last.price : 1 - last.price, decimals) : 0;
  if (market.placeholder) {
    return { outcomePrices: null, bestBid: 0, bestAsk: 1, spread: 1, lastTradePrice: 0, oneDayPriceChange: 0, oneHourPriceChange: 0 };
  }
  const status = state.status[market.index];
  const now = state.nowMs();
  const yesMidAt = (ms: number) => {
    const quote = state.paths.quoteAt(market, ms);
    return (quote.bidTicks + quote.askTicks) / (2 * quote.ticksPerUnit);
  };
  const yesNow = state.outcomePrice(market.index, 0);
  const change = (ms: number) => roundTo(yesNow - yesMidAt(Math.max(state.world.originMs, ms)), 4);
  if (status?.resolved && market.voided) {
    // A 50-50 resolution: both outcomes pay 0.5; the book is gone.
    return {
      outcomePrices: ['0.5', '0.5'],
      bestBid: null,
      bestAsk: 1,
      spread: 1,
      lastTradePrice,
      oneDayPriceChange: change(now - DAY_MS),
      oneHourPriceChange: change(now - 3_600_000),
    };
  }
  if (status?.resolved) {
    const yesWon = market.winningOutcome === 0;
    return {
      outcomePrices: yesWon ? ['1', '0'] : ['0', '1'],
      // What a resolved book last showed: the winner pinned at the edge, the loser's bids gone.
      bestBid: yesWon ? roundTo(1 - market.tickSize, decimals) : null,
      bestAsk: yesWon ? 1 : market.tickSize,
      spread: market.tickSize,
      lastTradePrice,
      oneDayPriceChange: change(now - DAY_MS),
      oneHourPriceChange: change(now - 3_600_000),
    };
  }
  const quote = state.quote(market.index);
  const n = quote.ticksPerUnit;
  return {
    outcomePrices: [decimalString(yesNow, decimals + 1), decimalString(1 - yesNow, decimals + 1)],
    bestBid: quote.bidTicks / n,
    bestAsk: quote.askTicks / n,
    spread: roundTo((quote.askTicks - quote.bidTicks) / n, decimals),
    lastTradePrice,
    oneDayPriceChange: change(now - DAY_MS),
    oneHourPriceChange: change(now - 3_600_000),
  };
}
