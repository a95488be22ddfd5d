/**
 * Decides one taker fill: who trades, which market and outcome, which side, how much and at what
 * price. Behaviours shape the tape so wallet analytics have something to find:
 * - whales: few, very large fills on popular markets;
 * - scalpers: many small fills on a couple of markets, both sides;
 * - long-shot buyers: buy whichever outcome costs < 0.15;
 * - informed traders: buy the outcome that will win, shortly before markets end;
 * - noise traders: anything, anywhere.
 * Sells never exceed the wallet's holdings: a wallet that wants to sell what it does not hold either
 * splits USDC into both outcomes first (as Polymarket sellers do) or buys instead.
 */

import { pickCumulative, type Rng } from './prng.js';
import type { Side } from './fill-amounts.js';
import { tokenKey, type Ledger } from './ledger.js';
import type { PricePaths, Quote } from './price-paths.js';
import type { SimMarket, SimWallet } from './world-types.js';

// Math functions bound once: inside Jest's vm sandbox every global lookup (Math, Infinity) is slow.
const { ceil, floor, max, min, round } = Math;

/** A taker fill as stored; rendered into the Data API shape by render-data.ts. */
export interface SimTrade {
  sequence: number;
  walletIndex: number;
  /** The resting order's owner (a market maker), shown only when takerOnly=false; -1 if none. */
  makerWalletIndex: number;
  marketIndex: number;
  outcomeIndex: 0 | 1;
  side: Side;
  /** Shares. */
  size: number;
  /** USDC per share, 0..1. */
  price: number;
  /** Unix seconds. */
  timestamp: number;
  transactionHash: string;
}

export interface TradePlan {
  walletIndex: number;
  marketIndex: number;
  outcomeIndex: 0 | 1;
  side: Side;
  size: number;
  price: number;
  /** Shares to split from USDC right before a sell the wallet could not otherwise cover. */
  splitShares: number;
}

export interface TradeContext {
  markets: readonly SimMarket[];
  wallets: readonly SimWallet[];
  paths: PricePaths;
  ledger: Ledger;
  walletCumulative: readonly number[];
  marketCumulative: readonly number[];
  isTradable(marketIndex: number, ms: number): boolean;
}

const LONG_SHOT_PRICE = 0.15;
const INFORMED_HORIZON_MS = 36 * 3_600_000;

interface Intent {
  marketIndex: number;
  outcomeIndex: 0 | 1;
  side: Side;
  shares: number;
  /** Whether a sell without holdings may be covered by a split (else it turns into a buy). */
  maySplit: boolean;
}

export function planTrade(ctx: TradeContext, rng: Rng, ms: number): TradePlan | null {
  if (ctx.walletCumulative.length === 0 || ctx.markets.length === 0) return null;
  const wallet = ctx.wallets[pickCumulative(ctx.walletCumulative, rng)] as SimWallet;
  const intent = intentFor(ctx, rng, wallet, ms);
  if (!intent) return null;

  const market = ctx.markets[intent.marketIndex] as SimMarket;
  const token = tokenKey(market.index, intent.outcomeIndex);
  let { side, shares } = intent;
  let splitShares = 0;
  if (side === 'SELL') {
    // Exactly the chain's balance (a Data API number of at most 6 decimals), so selling all of it empties it.
    const held = ctx.ledger.held(wallet.index, token);
    if (held >= 1) {
      shares = shares >= held ? held : floor(shares * 100) / 100;
    } else if (intent.maySplit) {
      splitShares = ceil(shares);
      shares = splitShares;
    } else {
      side = 'BUY';
    }
  }
  const quote = ctx.paths.quoteAt(market, ms);
  return {
    walletIndex: wallet.index,
    marketIndex: market.index,
    outcomeIndex: intent.outcomeIndex,
    side,
    size: shares,
    price: fillPrice(rng, quote, intent.outcomeIndex, side, shares),
    splitShares,
  };
}

function intentFor(ctx: TradeContext, rng: Rng, wallet: SimWallet, ms: number): Intent | null {
  switch (wallet.behaviour) {
    case 'whale':
      return marketIntent(ctx, rng, wallet, ms, {
        sellChance: 0.3,
        medianShares: 6000,
        sigma: 0.8,
        min: 500,
        max: 250_000,
        maySplit: true,
        favourFavourite: true,
      });
    case 'scalper':
      return marketIntent(ctx, rng, wallet, ms, {
        sellChance: 0.5,
        medianShares: 25,
        sigma: 0.6,
        min: 1,
        max: 500,
        maySplit: rng.chance(0.3),
        favourFavourite: false,
      });
    case 'longshot':
      return longShotIntent(ctx, rng, ms) ?? noiseIntent(ctx, rng, wallet, ms);
    case 'informed':
      return informedIntent(ctx, rng, wallet, ms) ?? noiseIntent(ctx, rng, wallet, ms);
    default:
      return noiseIntent(ctx, rng, wallet, ms);
  }
}

function noiseIntent(ctx: TradeContext, rng: Rng, wallet: SimWallet, ms: number): Intent | null {
  return marketIntent(ctx, rng, wallet, ms, {
    sellChance: 0.35,
    medianShares: 40,
    sigma: 1,
    min: 1,
    max: 5000,
    maySplit: false,
    favourFavourite: false,
  });
}

interface SizeProfile {
  sellChance: number;
  medianShares: number;
  sigma: number;
  min: number;
  max: number;
  maySplit: boolean;
  /** Lean toward the outcome the market favours (whales ride favourites). */
  favourFavourite: boolean;
}

function marketIntent(ctx: TradeContext, rng: Rng, wallet: SimWallet, ms: number, profile: SizeProfile): Intent | null {
  const marketIndex = chooseMarket(ctx, rng, wallet, ms);
  if (marketIndex === null) return null;
  let outcomeIndex: 0 | 1 = rng.chance(0.5) ? 0 : 1;
  if (profile.favourFavourite && rng.chance(0.6)) {
    outcomeIndex = ctx.paths.yesPriceAt(marketIndex, ms) >= 0.5 ? 0 : 1;
  }
  return {
    marketIndex,
    outcomeIndex,
    side: rng.chance(profile.sellChance) ? 'SELL' : 'BUY',
    shares: roundShares(rng, clamp(rng.logNormal(profile.medianShares, profile.sigma), profile.min, profile.max)),
    maySplit: profile.maySplit,
  };
}

function longShotIntent(ctx: TradeContext, rng: Rng, ms: number): Intent | null {
  for (let tries = 0; tries < 12; tries++) {
    const marketIndex = pickCumulative(ctx.marketCumulative, rng);
    if (!ctx.isTradable(marketIndex, ms)) continue;
    const quote = ctx.paths.quoteAt(ctx.markets[marketIndex] as SimMarket, ms);
    const yesAsk = quote.askTicks / quote.ticksPerUnit;
    const noAsk = (quote.ticksPerUnit - quote.bidTicks) / quote.ticksPerUnit;
    // The buy price must stay under the threshold even after one tick of slippage.
    const slip = 1 / quote.ticksPerUnit;
    const outcomeIndex = yesAsk + slip < LONG_SHOT_PRICE ? 0 : noAsk + slip < LONG_SHOT_PRICE ? 1 : null;
    if (outcomeIndex === null) continue;
    const price = outcomeIndex === 0 ? yesAsk : noAsk;
    const usdc = clamp(rng.logNormal(25, 0.9), 1, 2000);
    return { marketIndex, outcomeIndex, side: 'BUY', shares: roundShares(rng, max(1, usdc / price)), maySplit: false };
  }
  return null;
}

function informedIntent(ctx: TradeContext, rng: Rng, wallet: SimWallet, ms: number): Intent | null {
  for (let tries = 0; tries < 12; tries++) {
    const marketIndex = pickCumulative(ctx.marketCumulative, rng);
    const market = ctx.markets[marketIndex] as SimMarket;
    if (!market.resolvesOnClose || market.voided || market.closesAtMs === null || market.closesAtMs - ms > INFORMED_HORIZON_MS) continue;
    if (!ctx.isTradable(marketIndex, ms)) continue;
    const loser: 0 | 1 = market.winningOutcome === 0 ? 1 : 0;
    const holdsLoser = ctx.ledger.held(wallet.index, tokenKey(marketIndex, loser)) >= 1;
    const shares = roundShares(rng, clamp(rng.logNormal(1200, 0.7), 20, 60_000));
    if (holdsLoser && rng.chance(0.5)) return { marketIndex, outcomeIndex: loser, side: 'SELL', shares, maySplit: false };
    return { marketIndex, outcomeIndex: market.winningOutcome, side: 'BUY', shares, maySplit: false };
  }
  return null;
}

function chooseMarket(ctx: TradeContext, rng: Rng, wallet: SimWallet, ms: number): number | null {
  if (wallet.favouriteMarkets.length > 0 && rng.chance(0.75)) {
    const favourite = rng.pick(wallet.favouriteMarkets);
    if (ctx.isTradable(favourite, ms)) return favourite;
  }
  for (let tries = 0; tries < 8; tries++) {
    const marketIndex = pickCumulative(ctx.marketCumulative, rng);
    if (ctx.isTradable(marketIndex, ms)) return marketIndex;
  }
  return null;
}

/**
 * Takers pay the touch: buy YES at the ask, sell YES at the bid; NO is the mirror (1 - YES). Some fills
 * sweep into the next level, giving volume-weighted prices with float noise like upstream's 0.56999982.
 */
function fillPrice(rng: Rng, quote: Quote, outcomeIndex: 0 | 1, side: Side, shares: number): number {
  const n = quote.ticksPerUnit;
  const touch =
    outcomeIndex === 0 ? (side === 'BUY' ? quote.askTicks : quote.bidTicks) : side === 'BUY' ? n - quote.bidTicks : n - quote.askTicks;
  const next = side === 'BUY' ? touch + 1 : touch - 1;
  if (next >= 1 && next <= n - 1 && shares >= 2 && rng.chance(0.15)) {
    const sweptShares = round(shares * rng.float(0.05, 0.6) * 100) / 100;
    return ((touch / n) * (shares - sweptShares) + (next / n) * sweptShares) / shares;
  }
  return touch / n;
}

/** Share sizes as upstream prints them: whole numbers, cents, or 6-decimal amounts from USDC orders. */
function roundShares(rng: Rng, raw: number): number {
  const roll = rng.next();
  if (roll < 0.25) return max(1, round(raw));
  if (roll < 0.85) return max(0.01, round(raw * 100) / 100);
  return max(0.000001, round(raw * 1e6) / 1e6);
}

function clamp(value: number, low: number, high: number): number {
  return min(high, max(low, value));
}
