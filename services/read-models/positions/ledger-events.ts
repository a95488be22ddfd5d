/**
 * What the position ledger applies, normalized from its three inputs: the chain ledger stream (every
 * fill of both sides, splits, merges, redemptions, neg-risk conversions, transfers between wallets,
 * reorg retractions) and, for
 * ranges the chain does not cover, the Data API's taker trades and tracked wallets' activity
 * (docs/POSITIONS.md "Sources"). Amounts are integer micro-units.
 */
import type { ChainLedgerEvent, TradeExecuted, WalletActivity } from '../../events/types.generated.js';
import { divRound } from './ledger-math.js';

/** Where a change sits in a (wallet, token)'s history: chain order; Data API records sort by time only. */
export interface LedgerPosition {
  timeMs: number;
  block: number;
  logIndex: number;
  eventId: string;
}

export interface EventMeta extends LedgerPosition {
  origin: 'chain' | 'data_api';
  source: string;
  wallet: string;
  marketId: string;
  txHash: string;
  blockHash: string;
  ledgerGroup: string;
}

export type LedgerEvent =
  | (EventMeta & {
      kind: 'fill';
      /** amm: a trade against a legacy FixedProductMarketMaker (docs/CHAIN.md "Legacy AMM"). */
      role: 'maker' | 'taker' | 'amm';
      side: 'buy' | 'sell';
      assetId: string;
      outcome: string;
      outcomeIndex: number;
      /** Shares the owner's position gained or gave up. */
      shares: bigint;
      /** Collateral of those shares at the fill price: the cost of a buy, the proceeds of a sell (fees apart). */
      usdc: bigint;
      /** Fee in USDC micro-units (one charged in shares converted at the fill price). */
      fee: bigint;
      /** Collateral of the whole fill, before fees. */
      volume: bigint;
      price: number;
    })
  | (EventMeta & { kind: 'split' | 'merge'; amount: bigint; tokenIds: string[] })
  | (EventMeta & { kind: 'redemption'; amount: bigint; indexSets: string[]; redeemed: bigint[]; tokenIds: string[] })
  | (EventMeta & {
      kind: 'conversion';
      negRiskMarketId: string;
      indexSet: bigint;
      amount: bigint;
      /** The adapter's fee on this market, out of 10,000 (0 on events published before the source read it). */
      feeBips: bigint;
      /** The market's questions as the chain had them when converted; empty on events published before the source read them. */
      questions: ConversionQuestion[];
    })
  /** ERC-1155 shares moved from `wallet` to `to` (docs/POSITIONS.md "Transfers"). */
  | (EventMeta & { kind: 'transfer'; to: string; assetId: string; outcome: string; outcomeIndex: number; shares: bigint })
  | (EventMeta & { kind: 'block_retracted' });

/** One question of a neg-risk market: its condition (`marketId`) and tokens. */
export interface ConversionQuestion {
  index: number;
  marketId: string;
  yesToken: string;
  noToken: string;
  outcomes: string[];
  yesIndex: number;
}

export function comparePositions(a: LedgerPosition, b: LedgerPosition): number {
  return (
    a.timeMs - b.timeMs || a.block - b.block || a.logIndex - b.logIndex || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0)
  );
}

const micro = (value: string) => BigInt(value === '' ? '0' : value);

export function fromChain(e: ChainLedgerEvent): LedgerEvent | null {
  const meta: EventMeta = {
    origin: 'chain',
    source: e.source,
    wallet: e.wallet,
    marketId: e.market_id,
    txHash: e.tx_hash,
    blockHash: e.block_hash,
    ledgerGroup: e.ledger_group,
    timeMs: e.block_time_ms,
    block: e.block_number,
    logIndex: e.log_index,
    eventId: e.event_id,
  };
  switch (e.kind) {
    case 'fill': {
      const f = e.fill;
      if (!f) return null;
      const shares = micro(f.shares_micro);
      const usdc = micro(f.usdc_micro);
      const fee = micro(f.fee_micro);
      const base = {
        ...meta,
        kind: 'fill' as const,
        role: f.role,
        side: f.side,
        assetId: f.asset_id,
        outcome: f.outcome,
        outcomeIndex: f.outcome_index,
        volume: usdc,
        price: f.price,
      };
      // v1 takes a buyer's fee out of the shares it receives: it holds shares - fee, bought at the
      // fill price; the fee is worth its shares at that price (cost basis excludes fees).
      if (f.fee_asset === 'shares' && fee > 0n) {
        const kept = fee < shares ? shares - fee : 0n;
        const feeUsdc = shares === 0n ? 0n : divRound(usdc * (shares - kept), shares);
        return { ...base, shares: kept, usdc: usdc - feeUsdc, fee: feeUsdc };
      }
      return { ...base, shares, usdc, fee };
    }
    case 'split':
    case 'merge': {
      const c = e.position_change;
      if (!c) return null;
      return { ...meta, kind: e.kind, amount: micro(c.amount_micro), tokenIds: c.outcome_token_ids };
    }
    case 'redemption': {
      const c = e.position_change;
      if (!c) return null;
      return {
        ...meta,
        kind: 'redemption',
        amount: micro(c.amount_micro),
        indexSets: c.index_sets,
        redeemed: c.redeemed_micro.map(micro),
        tokenIds: c.outcome_token_ids,
      };
    }
    case 'conversion': {
      const c = e.conversion;
      if (!c) return null;
      return {
        ...meta,
        kind: 'conversion',
        negRiskMarketId: c.neg_risk_market_id,
        indexSet: micro(c.index_set),
        amount: micro(c.amount_micro),
        feeBips: BigInt(c.fee_bips),
        questions: c.questions.map((q) => ({
          index: q.question_index,
          marketId: q.market_id,
          yesToken: q.outcome_token_ids[q.yes_index] ?? '',
          noToken: q.outcome_token_ids[1 - q.yes_index] ?? '',
          outcomes: q.outcomes,
          yesIndex: q.yes_index,
        })),
      };
    }
    case 'transfer': {
      const t = e.transfer;
      if (!t) return null;
      return {
        ...meta,
        kind: 'transfer',
        to: t.to,
        assetId: t.asset_id,
        outcome: t.outcome,
        outcomeIndex: t.outcome_index,
        shares: micro(t.shares_micro),
      };
    }
    case 'block_retracted':
      return { ...meta, kind: 'block_retracted' };
    default:
      return null;
  }
}

/** Data API numbers are decimals in shares and USDC; the ledger counts micro-units. */
const toMicro = (value: number) => BigInt(Math.round(value * 1e6));

export function fromDataApiTrade(t: TradeExecuted): LedgerEvent {
  return {
    origin: 'data_api',
    source: t.source,
    wallet: t.wallet.toLowerCase(),
    marketId: t.market_id,
    txHash: t.tx_hash,
    blockHash: '',
    ledgerGroup: '',
    timeMs: t.timestamp_ms,
    block: 0,
    logIndex: -1,
    eventId: t.event_id,
    kind: 'fill',
    role: 'taker',
    side: t.side,
    assetId: t.asset_id,
    outcome: t.outcome,
    outcomeIndex: t.outcome_index,
    shares: toMicro(t.size),
    usdc: toMicro(t.size_usdc),
    fee: 0n,
    volume: toMicro(t.size_usdc),
    price: t.price,
  };
}

/** Tracked wallets' SPLIT / MERGE / REDEEM; token ids come from the catalog (`tokensOf`). */
export function fromDataApiActivity(a: WalletActivity, tokensOf: (marketId: string) => string[] | undefined): LedgerEvent | null {
  const tokenIds = tokensOf(a.market_id);
  if (!tokenIds || tokenIds.length === 0) return null;
  const meta: EventMeta = {
    origin: 'data_api',
    source: a.source,
    wallet: a.wallet.toLowerCase(),
    marketId: a.market_id,
    txHash: a.tx_hash,
    blockHash: '',
    ledgerGroup: '',
    timeMs: a.timestamp_ms,
    block: 0,
    logIndex: -1,
    eventId: a.event_id,
  };
  // A split or merge of N USDC moves N complete sets.
  const amount = toMicro(a.usdc_size > 0 ? a.usdc_size : a.size);
  const type = a.type.toUpperCase();
  if (type === 'SPLIT' && amount > 0n) return { ...meta, kind: 'split', amount, tokenIds };
  if (type === 'MERGE' && amount > 0n) return { ...meta, kind: 'merge', amount, tokenIds };
  if (type === 'REDEEM')
    return { ...meta, kind: 'redemption', amount, indexSets: tokenIds.map((_, i) => String(1 << i)), redeemed: [], tokenIds };
  return null;
}
