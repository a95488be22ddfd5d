/**
 * Settlement records -> the events published on the log: ChainLedgerEvent (keyed by ledger group) for
 * position changes and ChainConditionResolved (keyed by condition) for resolutions. A record whose
 * token or condition the catalog does not know yet comes back as `unknown` and waits; it is never
 * dropped.
 */
import type { ChainConditionResolved, ChainCoverageStatement, ChainLedgerEvent, Source } from '../events/types.js';
import { partitionForKey } from '../eventlog/partitioner.js';
import { type CatalogMarket, type ChainCatalog, ledgerGroupOf } from './catalog.js';
import {
  acceptedIndexSet,
  catalogTokens,
  type EvidenceQuestion,
  feeBipsFor,
  questionsFromCatalog,
  questionsFromTransaction,
} from './conversion-evidence.js';
import type { NegRiskBook } from './neg-risk-book.js';
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
  /**
   * Waits: for the catalog to know a token or conditions, or (a conversion, `chain`) for the chain to tell
   * its market's questions; `unfit`: why its transaction's splits do not tell them.
   */
  | { status: 'unknown'; tokenId?: string; conditionId?: string; conditionIds?: string[]; chain?: true; unfit?: string }
  | { status: 'rejected'; reason: string };

const chainEventId = (chainId: number, at: Pick<LogPosition, 'txHash' | 'logIndex'>) => `${chainId}:${at.txHash}:${at.logIndex}`;

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
    coverage: null,
    ingested_at_ms: context.nowMs,
  };
}

export function toLedgerEvent(
  record: Exclude<SettlementRecord, { kind: 'resolution' | 'prepared' }>,
  catalog: ChainCatalog,
  context: EventContext,
  negRisk: NegRiskBook,
  /** The record was held past the limit: a conversion may take the catalog's questions (conversionQuestions). */
  lastResort = false,
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
      if (catalog.marketOfMaker(record.wallet)) return ammLegReason(record.wallet, record.at);
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
      for (const end of [transfer.from, transfer.to]) if (catalog.marketOfMaker(end)) return ammLegReason(end, record.at);
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
    case 'conversion':
      return conversionEvent(record, catalog, context, negRisk, lastResort);
  }
}

/**
 * A split, merge or ERC-1155 leg of a legacy AMM the catalog learnt after the record was read (the
 * source skips them when it knows the pool): it is part of an FPMM event, and that event was not read
 * with its range, because the pool was not known then.
 */
function ammLegReason(pool: string, at: LogPosition): LedgerOutcome {
  return {
    status: 'rejected',
    reason: `a leg of legacy AMM ${pool} in block ${at.blockNumber}, learnt after the block was read: its FPMM events are read by backfilling the block (npm run backfill -- --source chain)`,
  };
}

/** Where a conversion's questions and fee came from (the event's `questions_from`, `fee_from`). */
type QuestionsFrom = 'chain' | 'transaction' | 'catalog';
type FeeFrom = 'chain' | 'transaction' | 'assumed';

export type ConversionQuestions =
  | { ok: true; from: QuestionsFrom; questions: EvidenceQuestion[]; feeBips: number | null }
  /** `unfit`: the transaction's splits do not fit the index set (counted; the conversion waits). */
  | { ok: false; unfit?: string };

/**
 * A conversion's questions 0..n - 1 as of the conversion: the chain's MarketPrepared/QuestionPrepared
 * (neg-risk-book.ts) when the source read them, else the conversion's own transaction
 * (conversion-evidence.ts); with `lastResort` (held past the limit), else the catalog's.
 */
export function conversionQuestions(
  record: Extract<SettlementRecord, { kind: 'conversion' }>,
  negRisk: NegRiskBook,
  context: Pick<EventContext, 'negRiskAdapter'>,
  catalog: ChainCatalog,
  lastResort = false,
): ConversionQuestions {
  const { conversion } = record;
  const indexSet = BigInt(conversion.indexSet);
  const book = negRisk.at(conversion.negRiskMarketId, record.at);
  if (book && acceptedIndexSet(indexSet, book.questions.length))
    return { ok: true, from: 'chain', questions: book.questions, feeBips: book.feeBips };
  const feeBips = negRisk.feeBips(conversion.negRiskMarketId);
  const adapter = context.negRiskAdapter.toLowerCase();
  const tx = questionsFromTransaction(record, adapter);
  if (tx?.ok) return { ok: true, from: 'transaction', questions: tx.questions, feeBips };
  const fromCatalog = lastResort ? questionsFromCatalog(record, adapter, catalog) : null;
  if (fromCatalog) return { ok: true, from: 'catalog', questions: fromCatalog, feeBips };
  return tx && !tx.ok ? { ok: false, unfit: tx.reason } : { ok: false };
}

/**
 * A conversion goes out once its market's questions as of the conversion are known (their count:
 * conversionQuestions) and the catalog names every question's tokens; until then it waits like a fill
 * of an unknown token. Its event carries all of it, so the ledger prices it from the log alone. The
 * fee is the chain's (MarketPrepared), else what the caller received in the transaction, else 0
 * (`fee_from: assumed`).
 */
function conversionEvent(
  record: Extract<SettlementRecord, { kind: 'conversion' }>,
  catalog: ChainCatalog,
  context: EventContext,
  negRisk: NegRiskBook,
  lastResort: boolean,
): LedgerOutcome {
  const { conversion } = record;
  const market = conversionQuestions(record, negRisk, context, catalog, lastResort);
  if (!market.ok) return { status: 'unknown', chain: true, ...(market.unfit ? { unfit: market.unfit } : {}) };
  const named = market.questions.map((q) => catalog.condition(q.conditionId));
  const missing = market.questions.filter((_, i) => !catalogTokens(named[i])).map((q) => q.conditionId);
  if (missing.length > 0) return { status: 'unknown', conditionIds: missing };
  const out = record.evidence?.amountOutMicro;
  const derived = out === undefined ? null : feeBipsFor(conversion.amountMicro, out);
  const [feeBips, feeFrom]: [number, FeeFrom] =
    market.feeBips !== null ? [market.feeBips, 'chain'] : derived !== null ? [derived, 'transaction'] : [0, 'assumed'];
  return {
    status: 'ready',
    event: {
      // The neg-risk market id is the ledger group: a conversion travels with its questions' fills.
      ...base(record, context, null, conversion.negRiskMarketId),
      kind: 'conversion',
      wallet: record.wallet,
      via: record.via,
      conversion: {
        neg_risk_market_id: conversion.negRiskMarketId,
        index_set: conversion.indexSet,
        amount_micro: conversion.amountMicro,
        question_count: market.questions.length,
        fee_bips: feeBips,
        questions: market.questions.map((q, i) => {
          const m = named[i] as CatalogMarket;
          return {
            question_index: q.index,
            market_id: q.conditionId,
            outcomes: [...m.outcomes],
            outcome_token_ids: [...m.tokenIds],
            yes_index: m.yesIndex,
          };
        }),
        questions_from: market.from,
        fee_from: feeFrom,
      },
    },
  };
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
    coverage: null,
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
 * `coverage`, from the service's follower only, also says from which block it is so without a hole.
 */
export function watermarks(
  block: { number: number; hash: string; timeMs: number },
  keys: readonly string[],
  context: EventContext,
  coverage: ChainCoverageStatement | null = null,
): ChainLedgerEvent[] {
  return keys.map((key) => ({
    ...blockRetraction(block, key, context),
    event_id: `${context.chainId}:watermark:${key}:${block.number}`,
    kind: 'watermark',
    coverage,
  }));
}
