/**
 * A leader's fill, whichever source reported it first: the chain source (`chain.ledger.v1` fills of
 * both sides, seconds after settlement) or the Data API trade feed (`trade.executed`, taker fills,
 * covering what the chain has not published). The same match seen by both has the same transaction,
 * wallet, token, side and size in micro-units (the reconciliation in docs/CHAIN.md relies on it), so
 * that tuple is the fill's `key`: a follower is copied once per leader fill however many sources saw it.
 */
import type { ChainLedgerEvent, TradeExecuted } from '../events/types.js';

export interface LeaderFill {
  /** Cross-source identity: tx hash, wallet, token, side, shares in micro-units. */
  key: string;
  /** The reporting source's own id (chain: `<chain>:<tx>:<log index>`; Data API: the trade id). */
  tradeId: string;
  wallet: string;
  marketId: string;
  marketTitle: string;
  assetId: string;
  outcome: string;
  outcomeIndex: number;
  side: 'buy' | 'sell';
  /** USDC per share in micro-units. */
  priceMicros: bigint;
  sharesMicros: bigint;
  usdcMicros: bigint;
  timestampMs: number;
  origin: 'chain' | 'data_api';
  source: 'polymarket' | 'simulator';
}

export function fillKey(txHash: string, wallet: string, assetId: string, side: string, sharesMicros: bigint): string {
  return `${txHash.toLowerCase()}:${wallet.toLowerCase()}:${assetId}:${side}:${sharesMicros}`;
}

/** A chain fill event as a leader fill; null for every other kind (splits, merges, watermarks, ...). */
export function fromChainEvent(event: ChainLedgerEvent): LeaderFill | null {
  const fill = event.fill;
  if (event.kind !== 'fill' || fill === null || !event.market_id) return null;
  const sharesMicros = BigInt(fill.shares_micro);
  if (sharesMicros <= 0n) return null;
  return {
    key: fillKey(event.tx_hash, event.wallet, fill.asset_id, fill.side, sharesMicros),
    tradeId: event.event_id,
    wallet: event.wallet.toLowerCase(),
    marketId: event.market_id,
    marketTitle: event.market_title,
    assetId: fill.asset_id,
    outcome: fill.outcome,
    outcomeIndex: fill.outcome_index,
    side: fill.side,
    priceMicros: BigInt(Math.round(fill.price * 1e6)),
    sharesMicros,
    usdcMicros: BigInt(fill.usdc_micro),
    timestampMs: event.block_time_ms,
    origin: 'chain',
    source: event.source,
  };
}

/** A Data API trade (the taker's fill of one match) as a leader fill. */
export function fromTrade(trade: TradeExecuted): LeaderFill | null {
  const sharesMicros = BigInt(Math.round(trade.size * 1e6));
  if (sharesMicros <= 0n) return null;
  return {
    key: fillKey(trade.tx_hash, trade.wallet, trade.asset_id, trade.side, sharesMicros),
    tradeId: trade.event_id,
    wallet: trade.wallet.toLowerCase(),
    marketId: trade.market_id,
    marketTitle: trade.market_title,
    assetId: trade.asset_id,
    outcome: trade.outcome,
    outcomeIndex: trade.outcome_index,
    side: trade.side,
    priceMicros: BigInt(Math.round(trade.price * 1e6)),
    sharesMicros,
    usdcMicros: BigInt(Math.round(trade.size_usdc * 1e6)),
    timestampMs: trade.timestamp_ms,
    origin: 'data_api',
    source: trade.source,
  };
}
