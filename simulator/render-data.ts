/**
 * Data API shapes (data-api.polymarket.com): plain JSON numbers (size, price, usdcSize...), unix-second
 * integer timestamps, lowercase proxy wallets, and the profile fields every row repeats.
 * Non-trade activity rows use upstream's blanks: side "", asset "", outcome "", outcomeIndex 999, price 0.
 */

import { dateOnly, roundTo } from './formats.js';
import { fromMicro, type Side } from './fill-amounts.js';
import { tokenKey, type ActivityEntry, type Holding } from './ledger.js';
import type { SimulatorState } from './state.js';
import type { SimTrade } from './trades.js';
import type { SimEvent, SimMarket, SimWallet } from './world-types.js';

type Json = Record<string, unknown>;

function profile(wallet: SimWallet): Json {
  return { name: wallet.name, pseudonym: wallet.pseudonym, bio: '', profileImage: '', profileImageOptimized: '' };
}

function marketContext(state: SimulatorState, market: SimMarket): { market: SimMarket; event: SimEvent } {
  return { market, event: state.world.events[market.eventIndex] as SimEvent };
}

/**
 * One /trades row. A maker row (takerOnly=false) shows the resting side of the same match: same
 * asset, price, size and transaction, opposite side, the maker's wallet.
 */
export function renderTrade(state: SimulatorState, trade: SimTrade, role: 'taker' | 'maker'): Json {
  const { market, event } = marketContext(state, state.world.markets[trade.marketIndex] as SimMarket);
  const wallet = state.world.wallets[role === 'taker' ? trade.walletIndex : trade.makerWalletIndex] as SimWallet;
  const side: Side = role === 'taker' ? trade.side : trade.side === 'BUY' ? 'SELL' : 'BUY';
  return {
    proxyWallet: wallet.address,
    side,
    asset: market.tokenIds[trade.outcomeIndex],
    conditionId: market.conditionId,
    size: trade.size,
    price: trade.price,
    timestamp: trade.timestamp,
    title: market.question,
    slug: market.slug,
    icon: market.image,
    eventSlug: event.slug,
    outcome: market.outcomes[trade.outcomeIndex],
    outcomeIndex: trade.outcomeIndex,
    name: wallet.name,
    pseudonym: wallet.pseudonym,
    bio: '',
    profileImage: '',
    profileImageOptimized: '',
    transactionHash: trade.transactionHash,
  };
}

export function renderTradeActivity(state: SimulatorState, trade: SimTrade): Json {
  const { market, event } = marketContext(state, state.world.markets[trade.marketIndex] as SimMarket);
  const wallet = state.world.wallets[trade.walletIndex] as SimWallet;
  return {
    proxyWallet: wallet.address,
    timestamp: trade.timestamp,
    conditionId: market.conditionId,
    type: 'TRADE',
    size: trade.size,
    usdcSize: roundTo(trade.size * trade.price, 6),
    transactionHash: trade.transactionHash,
    price: trade.price,
    asset: market.tokenIds[trade.outcomeIndex],
    side: trade.side,
    outcomeIndex: trade.outcomeIndex,
    title: market.question,
    slug: market.slug,
    icon: market.image,
    eventSlug: event.slug,
    outcome: market.outcomes[trade.outcomeIndex],
    ...profile(wallet),
  };
}

export function renderLedgerActivity(state: SimulatorState, entry: ActivityEntry): Json {
  const { market, event } = marketContext(state, state.world.markets[entry.marketIndex] as SimMarket);
  const wallet = state.world.wallets[entry.walletIndex] as SimWallet;
  return {
    proxyWallet: wallet.address,
    timestamp: entry.timestamp,
    conditionId: market.conditionId,
    type: entry.type,
    size: fromMicro(entry.shares),
    usdcSize: fromMicro(entry.usdc),
    transactionHash: entry.transactionHash,
    price: 0,
    asset: '',
    side: '',
    outcomeIndex: 999,
    title: market.question,
    slug: market.slug,
    icon: market.image,
    eventSlug: event.slug,
    outcome: '',
    ...profile(wallet),
  };
}

export interface PositionRow {
  marketIndex: number;
  outcomeIndex: 0 | 1;
  holding: Holding;
  json: Json;
}

/** Open positions of a wallet, valued at the current mid (the payout once resolved). */
export function positionRows(state: SimulatorState, wallet: SimWallet): PositionRow[] {
  const rows: PositionRow[] = [];
  for (const [token, holding] of state.ledger.holdingsOf(wallet.index)) {
    if (holding.shares <= 0n) continue;
    const size = fromMicro(holding.shares);
    const totalBought = fromMicro(holding.totalBought);
    const marketIndex = Math.floor(token / 2);
    const outcomeIndex = (token % 2) as 0 | 1;
    const { market, event } = marketContext(state, state.world.markets[marketIndex] as SimMarket);
    const opposite = outcomeIndex === 0 ? 1 : 0;
    const status = state.status[marketIndex];
    const curPrice = state.outcomePrice(marketIndex, outcomeIndex);
    const initialValue = size * holding.avgPrice;
    const currentValue = size * curPrice;
    const boughtCost = totalBought * holding.avgPrice;
    rows.push({
      marketIndex,
      outcomeIndex,
      holding,
      json: {
        proxyWallet: wallet.address,
        asset: market.tokenIds[outcomeIndex],
        conditionId: market.conditionId,
        size: roundTo(size, 4),
        avgPrice: roundTo(holding.avgPrice, 4),
        initialValue: roundTo(initialValue, 4),
        currentValue: roundTo(currentValue, 4),
        cashPnl: roundTo(currentValue - initialValue, 4),
        percentPnl: initialValue > 0 ? roundTo(((currentValue - initialValue) / initialValue) * 100, 4) : 0,
        totalBought: roundTo(totalBought, 4),
        realizedPnl: roundTo(holding.realizedPnl, 4),
        percentRealizedPnl: boughtCost > 0 ? roundTo(((currentValue + holding.realizedPnl - boughtCost) / boughtCost) * 100, 4) : 0,
        curPrice: roundTo(curPrice, 4),
        redeemable: status?.resolved ?? false,
        mergeable: state.ledger.heldMicro(wallet.index, tokenKey(marketIndex, opposite)) > 0n,
        title: market.question,
        slug: market.slug,
        icon: market.image,
        eventId: event.id,
        eventSlug: event.slug,
        outcome: market.outcomes[outcomeIndex],
        outcomeIndex,
        oppositeOutcome: market.outcomes[opposite],
        oppositeAsset: market.tokenIds[opposite],
        endDate: dateOnly(market.endDateMs),
        negativeRisk: event.negRisk,
      },
    });
  }
  return rows;
}

/** One /holders group per token: the largest holders first. */
export function renderHolders(state: SimulatorState, market: SimMarket, limit: number, minBalance: number): Json[] {
  return market.tokenIds.map((token, outcomeIndex) => {
    const holders = state.world.wallets
      .map((wallet) => ({ wallet, amount: state.ledger.held(wallet.index, tokenKey(market.index, outcomeIndex)) }))
      .filter((entry) => entry.amount >= minBalance && entry.amount > 0)
      .sort((a, b) => b.amount - a.amount || a.wallet.index - b.wallet.index)
      .slice(0, limit)
      .map(({ wallet, amount }) => ({
        proxyWallet: wallet.address,
        bio: '',
        asset: token,
        pseudonym: wallet.pseudonym,
        amount,
        displayUsernamePublic: wallet.name !== '',
        outcomeIndex,
        name: wallet.name,
        profileImage: '',
        profileImageOptimized: '',
      }));
    return { token, holders };
  });
}
