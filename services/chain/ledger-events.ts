/**
 * Settlement records -> the events published on the log: ChainLedgerEvent (keyed by ledger group) for
 * position changes and ChainConditionResolved (keyed by condition) for resolutions. A record whose
 * token or condition the catalog does not know yet comes back as `unknown` and waits; it is never
 * dropped.
 */
import type { ChainConditionResolved, ChainLedgerEvent, Source } from '../events/types.js';
import { partitionForKey } from '../eventlog/partitioner.js';
import { type CatalogMarket, type ChainCatalog, ledgerGroupOf } from './catalog.js';
import type { LogPosition, SettlementRecord } from './settlement-records.js';

export interface EventContext {
  chainId: number;
  source: Source;
  nowMs: number;
  /** The NegRiskAdapter: it is the oracle of every neg-risk condition. */
  negRiskAdapter: string;
}

export type LedgerOutcome =
  | { status: 'ready'; event: ChainLedgerEvent }
  | { status: 'unknown'; tokenId?: string; conditionId?: string }
  | { status: 'rejected'; reason: string };

export const chainEventId = (chainId: number, at: Pick<LogPosition, 'txHash' | 'logIndex'>) => `${chainId}:${at.txHash}:${at.logIndex}`;

/** A record's event id: the log's, and for a token of a TransferBatch its place in the batch too. */
const recordEventId = (chainId: number, record: SettlementRecord) =>
  record.kind === 'transfer' && record.transfer.part !== null
    ? `${chainEventId(chainId, record.at)}:${record.transfer.part}`
    : chainEventId(chainId, record.at);

/** A price in 0..1 from exact amounts, rounded to 6 decimals as the Data API path rounds. */
export function priceOf(usdcMicro: string, sharesMicro: string): number {
  const shares = BigInt(sharesMicro);
  if (shares === 0n) return 0;
  // Integer division at 1e-9 then one rounding to 1e-6: exact for every price a 6-decimal amount can give.
  const nano = (BigInt(usdcMicro) * 1_000_000_000n) / shares;
  return Math.round(Number(nano) / 1000) / 1e6;
}

function base(record: SettlementRecord, context: EventContext, market: CatalogMarket | null, group: string) {
  const { at } = record;
  return {
    event_id: recordEventId(context.chainId, record),
    source: context.source,
    chain_id: context.chainId,
    block_number: at.blockNumber,
    block_hash: at.blockHash,
    block_time_ms: at.blockTimeMs,
    tx_hash: at.txHash,
    log_index: at.logIndex,
    contract: at.contract,
    ledger_group: group,
    market_id: market?.marketId ?? '',
    market_title: market?.title ?? '',
    neg_risk: market?.negRisk ?? true,
    fill: null,
    position_change: null,
    conversion: null,
    transfer: null,
    ingested_at_ms: context.nowMs,
  };
}

export function toLedgerEvent(
  record: Exclude<SettlementRecord, { kind: 'resolution' }>,
  catalog: ChainCatalog,
  context: EventContext,
): LedgerOutcome {
  switch (record.kind) {
    case 'fill': {
      const { fill } = record;
      const token = catalog.token(fill.tokenId);
      if (!token) return { status: 'unknown', tokenId: fill.tokenId };
      const { market, outcomeIndex } = token;
      const price = priceOf(fill.usdcMicro, fill.sharesMicro);
      if (price > 1) return { status: 'rejected', reason: `fill price above 1: ${fill.usdcMicro} / ${fill.sharesMicro}` };
      return {
        status: 'ready',
        event: {
          ...base(record, context, market, ledgerGroupOf(market)),
          kind: 'fill',
          wallet: fill.maker,
          via: '',
          fill: {
            role: record.role,
            side: fill.side,
            asset_id: fill.tokenId,
            outcome: market.outcomes[outcomeIndex] ?? '',
            outcome_index: outcomeIndex,
            shares_micro: fill.sharesMicro,
            usdc_micro: fill.usdcMicro,
            fee_micro: fill.feeMicro,
            fee_asset: fill.feeAsset,
            price,
            yes_price: outcomeIndex === market.yesIndex ? price : Math.round((1 - price) * 1e6) / 1e6,
            exchange_version: fill.version,
            order_hash: fill.orderHash,
            counterparty: fill.taker,
          },
        },
      };
    }
    case 'split':
    case 'merge':
    case 'redemption': {
      const { change } = record;
      const market = catalog.condition(change.conditionId);
      if (!market) return { status: 'unknown', conditionId: change.conditionId };
      const amount = change.type === 'redemption' ? change.payoutMicro : change.amountMicro;
      return {
        status: 'ready',
        event: {
          ...base(record, context, market, ledgerGroupOf(market)),
          kind: record.kind,
          wallet: record.wallet,
          via: record.via,
          position_change: {
            amount_micro: amount,
            index_sets: change.type === 'redemption' ? change.indexSets : change.partition,
            redeemed_micro: change.type === 'redemption' ? change.redeemedMicro : [],
            outcome_token_ids: [...market.tokenIds],
            collateral_token: change.collateralToken,
          },
        },
      };
    }
    case 'transfer': {
      const { transfer } = record;
      // Keyed by the token's ledger group, so the sender's and the receiver's changes of it are on one
      // partition, in chain order with the fills of both.
      const token = catalog.token(transfer.tokenId);
      if (!token) return { status: 'unknown', tokenId: transfer.tokenId };
      const { market, outcomeIndex } = token;
      return {
        status: 'ready',
        event: {
          ...base(record, context, market, ledgerGroupOf(market)),
          kind: 'transfer',
          wallet: transfer.from,
          via: '',
          transfer: {
            from: transfer.from,
            to: transfer.to,
            asset_id: transfer.tokenId,
            outcome: market.outcomes[outcomeIndex] ?? '',
            outcome_index: outcomeIndex,
            shares_micro: transfer.sharesMicro,
          },
        },
      };
    }
    case 'conversion': {
      const { conversion } = record;
      // The neg-risk market id is the ledger group itself: no catalog needed, so conversions never wait.
      return {
        status: 'ready',
        event: {
          ...base(record, context, null, conversion.negRiskMarketId),
          kind: 'conversion',
          wallet: record.wallet,
          via: record.via,
          conversion: {
            neg_risk_market_id: conversion.negRiskMarketId,
            index_set: conversion.indexSet,
            amount_micro: conversion.amountMicro,
          },
        },
      };
    }
  }
}

/** ConditionResolution -> its event: payouts as fractions of the numerators' sum, the winner when one outcome takes all. */
export function toResolutionEvent(
  record: Extract<SettlementRecord, { kind: 'resolution' }>,
  context: EventContext,
): ChainConditionResolved {
  const { at, resolution } = record;
  const numerators = resolution.payoutNumerators.map(BigInt);
  const total = numerators.reduce((sum, n) => sum + n, 0n);
  const payouts = numerators.map((n) => (total === 0n ? 0 : Number((n * 1_000_000n) / total) / 1e6));
  const winners = numerators.flatMap((n, i) => (total > 0n && n === total ? [i] : []));
  const negRisk = resolution.oracle === context.negRiskAdapter;
  return {
    event_id: chainEventId(context.chainId, at),
    source: context.source,
    chain_id: context.chainId,
    block_number: at.blockNumber,
    block_hash: at.blockHash,
    block_time_ms: at.blockTimeMs,
    tx_hash: at.txHash,
    log_index: at.logIndex,
    market_id: resolution.conditionId,
    question_id: resolution.questionId,
    oracle: resolution.oracle,
    // NegRiskIdLib: a question id is its market id plus the question's index in the low byte.
    neg_risk_market_id: negRisk ? `0x${(BigInt(resolution.questionId) & ~0xffn).toString(16).padStart(64, '0')}` : null,
    outcome_slot_count: resolution.outcomeSlotCount,
    payout_numerators: resolution.payoutNumerators,
    payouts,
    winning_outcome_index: winners.length === 1 ? (winners[0] as number) : -1,
    retracted: false,
    ingested_at_ms: context.nowMs,
  };
}

/** The void marker of one ledger group's events in an orphaned block. */
export function blockRetraction(
  block: { number: number; hash: string; timeMs: number },
  group: string,
  context: EventContext,
): ChainLedgerEvent {
  return {
    event_id: `${context.chainId}:${block.hash}:${group}:retracted`,
    source: context.source,
    kind: 'block_retracted',
    chain_id: context.chainId,
    block_number: block.number,
    block_hash: block.hash,
    block_time_ms: block.timeMs,
    tx_hash: '',
    log_index: -1,
    contract: '',
    ledger_group: group,
    market_id: '',
    market_title: '',
    neg_risk: false,
    wallet: '',
    via: '',
    fill: null,
    position_change: null,
    conversion: null,
    transfer: null,
    ingested_at_ms: context.nowMs,
  };
}

/** One key per partition of a topic with `partitions` partitions (found once by trying `watermark-<n>`). */
export function watermarkKeys(partitions: number): string[] {
  const keys: Array<string | undefined> = new Array(partitions);
  let found = 0;
  for (let n = 0; found < partitions; n++) {
    const key = `watermark-${n}`;
    const partition = partitionForKey(key, partitions);
    if (keys[partition] === undefined) {
      keys[partition] = key;
      found++;
    }
  }
  return keys as string[];
}

/**
 * "Everything up to this block is published", once per partition of the ledger topic: it follows the
 * range's events on each partition, so once a consumer has it from every partition, it has every
 * event up to that block (the read side's coverage; services/read-models/chain-ledger/queries.ts).
 */
export function watermarks(
  block: { number: number; hash: string; timeMs: number },
  keys: readonly string[],
  context: EventContext,
): ChainLedgerEvent[] {
  return keys.map((key) => ({
    ...blockRetraction(block, key, context),
    event_id: `${context.chainId}:watermark:${key}:${block.number}`,
    kind: 'watermark',
  }));
}
