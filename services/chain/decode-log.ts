/**
 * One raw log -> one typed settlement fact, decoded with the ABI of the contract that emitted it
 * (never by event name: v1 and v2 exchanges, the CTF and the NegRiskAdapter share names). Amounts stay
 * integers (micro-units: collateral and outcome shares both have 6 decimals) and travel as decimal
 * strings, since a uint256 does not fit a double. Logs that do not decode, or carry amounts no real
 * transfer could have (2^64 micro-units and up), are refused with a reason for the dead-letter topic.
 */
import { type Abi, type AbiEvent, decodeAbiParameters, type Hex, toEventSelector } from 'viem';
import { fail, ok, type Parsed } from '../ingest/parse.js';
import type { ChainLog } from '../ports/chain-reader.js';
import { conditionalTokensAbi, exchangeV1Abi, exchangeV2Abi, fpmmAbi, negRiskAdapterAbi } from './abis.js';
import type { ContractBook } from './contract-book.js';

/** The largest amount kept: ClickHouse stores micro-units as UInt64 (18.4 trillion units). */
const MAX_AMOUNT = 2n ** 64n - 1n;

type FillSide = 'buy' | 'sell';

export interface OrderFilledLog {
  type: 'order_filled';
  /** 0: a legacy AMM trade (FPMMBuy/FPMMSell) in the same shape (no order: `orderHash` empty, `taker` the pool). */
  version: 0 | 1 | 2;
  orderHash: string;
  /** The order's owner: every OrderFilled is one fill of this wallet's order. */
  maker: string;
  /** The counterparty: the taker order's owner for a resting order's fill, the exchange itself for the taker order's fill. */
  taker: string;
  side: FillSide;
  tokenId: string;
  sharesMicro: string;
  usdcMicro: string;
  feeMicro: string;
  /** v1 charges the fee in what the owner receives (shares on a buy); v2 always in collateral. */
  feeAsset: 'usdc' | 'shares';
}

interface OrdersMatchedLog {
  type: 'orders_matched';
  version: 1 | 2;
  takerOrderHash: string;
  takerOrderMaker: string;
}

export interface SplitMergeLog {
  type: 'split' | 'merge';
  stakeholder: string;
  conditionId: string;
  amountMicro: string;
  /** Index sets of the partition (CTF); the NegRiskAdapter always splits a binary condition into [1, 2]. */
  partition: string[];
  collateralToken: string;
}

export interface RedemptionLog {
  type: 'redemption';
  redeemer: string;
  conditionId: string;
  payoutMicro: string;
  indexSets: string[];
  /** NegRiskAdapter: shares redeemed per outcome [YES, NO]; CTF: empty (the redeemer's whole balance of the index sets). */
  redeemedMicro: string[];
  collateralToken: string;
}

export interface ConversionLog {
  type: 'conversion';
  stakeholder: string;
  negRiskMarketId: string;
  indexSet: string;
  amountMicro: string;
}

/** NegRiskAdapter.prepareMarket: the market exists from here on, with its fee (out of 10,000) on conversions. */
export interface MarketPreparedLog {
  type: 'market_prepared';
  negRiskMarketId: string;
  oracle: string;
  feeBips: number;
}

/** NegRiskAdapter.prepareQuestion: question `index` (the market's question count before it) exists from here on. */
export interface QuestionPreparedLog {
  type: 'question_prepared';
  negRiskMarketId: string;
  questionId: string;
  index: number;
}

export interface ResolutionLog {
  type: 'resolution';
  conditionId: string;
  oracle: string;
  questionId: string;
  outcomeSlotCount: number;
  payoutNumerators: string[];
}

export interface TransferLog {
  type: 'transfer';
  /** TransferBatch (its legs' event ids carry their place in it) or TransferSingle. */
  batch: boolean;
  operator: string;
  from: string;
  to: string;
  ids: string[];
  values: string[];
}

/**
 * FPMMBuy / FPMMSell of a legacy AMM (FixedProductMarketMaker.sol): the trader's trade against the pool.
 * A buy pays `collateralMicro` (investmentAmount, the fee included) for `sharesMicro`; a sell gives
 * `sharesMicro` and receives `collateralMicro` (returnAmount, the fee already taken out). `feeMicro` is
 * the pool's fee in collateral either way.
 */
export interface AmmTradeLog {
  type: 'amm_trade';
  trader: string;
  side: FillSide;
  outcomeIndex: number;
  collateralMicro: string;
  feeMicro: string;
  sharesMicro: string;
}

/**
 * FPMMFundingAdded / FPMMFundingRemoved: liquidity in or out. `amountsMicro` per outcome: added = what
 * went into the pool (the funder got `addedFunds - amountsAdded[i]` back), removed = what the funder got.
 */
export interface AmmFundingLog {
  type: 'amm_funding';
  added: boolean;
  funder: string;
  amountsMicro: string[];
  /** Pool shares minted or burnt. */
  poolSharesMicro: string;
  /** FPMMFundingRemoved: the funder's part of the fee pool, in collateral; 0 for an addition. */
  feesMicro: string;
}

export type DecodedLog =
  | AmmTradeLog
  | AmmFundingLog
  | OrderFilledLog
  | OrdersMatchedLog
  | SplitMergeLog
  | RedemptionLog
  | ConversionLog
  | MarketPreparedLog
  | QuestionPreparedLog
  | ResolutionLog
  | TransferLog;

type Args = Record<string, unknown>;

const lower = (value: unknown) => String(value).toLowerCase();

function amount(value: unknown, name: string): string {
  const n = value as bigint;
  if (typeof n !== 'bigint' || n < 0n || n > MAX_AMOUNT) throw new RangeError(`${name} out of range: ${String(value)}`);
  return n.toString();
}

/** NegRiskIdLib: a market id has a zero low byte; a question id is its market id plus the question's index there. */
const LOW_BYTE = 0xffn;
/** NegRiskAdapter.FEE_DENOMINATOR: fees are in basis points, at most all of it. */
const MAX_FEE_BIPS = 10_000n;

function negRiskMarketId(value: unknown): string {
  const id = lower(value);
  if ((BigInt(id) & LOW_BYTE) !== 0n) throw new RangeError(`neg-risk market id with a non-zero low byte: ${id}`);
  return id;
}

const list = (value: unknown) => (value as readonly bigint[]).map((v) => v.toString());

type Param = AbiEvent['inputs'][number] & { name: string };

interface EventLayout {
  name: string;
  indexed: Param[];
  data: Param[];
  /** Every data field is one 32-byte word: decoded by slicing, without the general ABI decoder. */
  staticData: boolean;
}

const STATIC_TYPES = /^(uint\d*|int\d*|bytes32|address|bool)$/;

/** Per ABI: topic0 -> the event's layout, computed once (decodeEventLog would hash every signature per log). */
function layouts(abi: Abi): Map<string, EventLayout> {
  const byTopic = new Map<string, EventLayout>();
  for (const item of abi) {
    if (item.type !== 'event') continue;
    const inputs = item.inputs as readonly Param[];
    const data = inputs.filter((i) => !i.indexed);
    byTopic.set(toEventSelector(item).toLowerCase(), {
      name: item.name,
      indexed: inputs.filter((i) => i.indexed),
      data,
      staticData: data.every((i) => STATIC_TYPES.test(i.type)),
    });
  }
  return byTopic;
}

const LAYOUTS = {
  exchangeV1: layouts(exchangeV1Abi),
  exchangeV2: layouts(exchangeV2Abi),
  conditionalTokens: layouts(conditionalTokensAbi),
  negRiskAdapter: layouts(negRiskAdapterAbi),
  fpmm: layouts(fpmmAbi),
};

const ZERO_PREFIX = '0'.repeat(24);

/** One 32-byte word (0x + 64 lower-case hex) of a static type, as viem would decode it (bigint, 0x-hex, boolean). */
function word(type: string, hex: string): unknown {
  if (hex.length !== 66) throw new RangeError(`not a 32-byte word: ${hex}`);
  if (type === 'address') {
    if (hex.slice(2, 26) !== ZERO_PREFIX) throw new RangeError(`not an address word: ${hex}`);
    return `0x${hex.slice(26)}`;
  }
  if (type === 'bytes32') return hex;
  const value = BigInt(hex);
  if (type === 'bool') {
    if (value > 1n) throw new RangeError(`not a bool word: ${hex}`);
    return value === 1n;
  }
  if (type === 'uint8' && value > 255n) throw new RangeError(`uint8 out of range: ${hex}`);
  return value;
}

function decodeWith(layoutsOf: Map<string, EventLayout>, log: ChainLog): { eventName: string; args: Args } {
  const layout = layoutsOf.get(log.topics[0] ?? '');
  if (!layout) throw new RangeError(`unknown event topic ${log.topics[0]}`);
  if (log.topics.length !== layout.indexed.length + 1)
    throw new RangeError(`${layout.name} has ${log.topics.length} topics, ${layout.indexed.length + 1} expected`);
  const args: Args = {};
  layout.indexed.forEach((input, i) => {
    args[input.name] = word(input.type, (log.topics[i + 1] as string).toLowerCase());
  });
  const data = log.data.toLowerCase();
  if (layout.staticData) {
    if (data.length !== 2 + 64 * layout.data.length)
      throw new RangeError(`${layout.name} data is ${(data.length - 2) / 2} bytes, ${32 * layout.data.length} expected`);
    layout.data.forEach((input, i) => {
      args[input.name] = word(input.type, `0x${data.slice(2 + 64 * i, 66 + 64 * i)}`);
    });
  } else {
    const values = decodeAbiParameters(layout.data, data as Hex);
    layout.data.forEach((input, i) => {
      args[input.name] = values[i];
    });
  }
  return { eventName: layout.name, args };
}

function exchangeV1(log: ChainLog): DecodedLog {
  const { eventName, args } = decodeWith(LAYOUTS.exchangeV1, log);
  if (eventName === 'OrdersMatched')
    return { type: 'orders_matched', version: 1, takerOrderHash: lower(args.takerOrderHash), takerOrderMaker: lower(args.takerOrderMaker) };
  const makerAsset = args.makerAssetId as bigint;
  const takerAsset = args.takerAssetId as bigint;
  // Asset id 0 is collateral: the owner pays collateral (a buy of takerAssetId) or receives it (a sell of makerAssetId).
  if ((makerAsset === 0n) === (takerAsset === 0n))
    throw new RangeError(`neither or both asset ids are collateral: ${makerAsset} / ${takerAsset}`);
  const buy = makerAsset === 0n;
  return {
    type: 'order_filled',
    version: 1,
    orderHash: lower(args.orderHash),
    maker: lower(args.maker),
    taker: lower(args.taker),
    side: buy ? 'buy' : 'sell',
    tokenId: (buy ? takerAsset : makerAsset).toString(),
    sharesMicro: amount(buy ? args.takerAmountFilled : args.makerAmountFilled, 'shares'),
    usdcMicro: amount(buy ? args.makerAmountFilled : args.takerAmountFilled, 'collateral'),
    feeMicro: amount(args.fee, 'fee'),
    feeAsset: buy ? 'shares' : 'usdc',
  };
}

function exchangeV2(log: ChainLog): DecodedLog {
  const { eventName, args } = decodeWith(LAYOUTS.exchangeV2, log);
  if (eventName === 'OrdersMatched')
    return { type: 'orders_matched', version: 2, takerOrderHash: lower(args.takerOrderHash), takerOrderMaker: lower(args.takerOrderMaker) };
  const side = Number(args.side);
  if (side !== 0 && side !== 1) throw new RangeError(`side is neither BUY (0) nor SELL (1): ${side}`);
  const buy = side === 0;
  return {
    type: 'order_filled',
    version: 2,
    orderHash: lower(args.orderHash),
    maker: lower(args.maker),
    taker: lower(args.taker),
    side: buy ? 'buy' : 'sell',
    tokenId: (args.tokenId as bigint).toString(),
    sharesMicro: amount(buy ? args.takerAmountFilled : args.makerAmountFilled, 'shares'),
    usdcMicro: amount(buy ? args.makerAmountFilled : args.takerAmountFilled, 'collateral'),
    feeMicro: amount(args.fee, 'fee'),
    feeAsset: 'usdc',
  };
}

function conditionalTokens(log: ChainLog): DecodedLog {
  const { eventName, args } = decodeWith(LAYOUTS.conditionalTokens, log);
  switch (eventName) {
    case 'ConditionResolution': {
      const slots = args.outcomeSlotCount as bigint;
      if (slots < 1n || slots > 256n) throw new RangeError(`outcomeSlotCount out of range: ${slots}`);
      return {
        type: 'resolution',
        conditionId: lower(args.conditionId),
        oracle: lower(args.oracle),
        questionId: lower(args.questionId),
        outcomeSlotCount: Number(slots),
        payoutNumerators: list(args.payoutNumerators),
      };
    }
    case 'PositionSplit':
    case 'PositionsMerge':
      return {
        type: eventName === 'PositionSplit' ? 'split' : 'merge',
        stakeholder: lower(args.stakeholder),
        conditionId: lower(args.conditionId),
        amountMicro: amount(args.amount, 'amount'),
        partition: list(args.partition),
        collateralToken: lower(args.collateralToken),
      };
    case 'PayoutRedemption':
      return {
        type: 'redemption',
        redeemer: lower(args.redeemer),
        conditionId: lower(args.conditionId),
        payoutMicro: amount(args.payout, 'payout'),
        indexSets: list(args.indexSets),
        redeemedMicro: [],
        collateralToken: lower(args.collateralToken),
      };
    default:
      if (eventName === 'TransferBatch' && (args.ids as unknown[]).length !== (args.values as unknown[]).length)
        throw new RangeError(`TransferBatch has ${(args.ids as unknown[]).length} ids and ${(args.values as unknown[]).length} values`);
      return {
        type: 'transfer',
        batch: eventName === 'TransferBatch',
        operator: lower(args.operator),
        from: lower(args.from),
        to: lower(args.to),
        ids: eventName === 'TransferSingle' ? [(args.id as bigint).toString()] : list(args.ids),
        values: eventName === 'TransferSingle' ? [amount(args.value, 'value')] : (args.values as bigint[]).map((v) => amount(v, 'value')),
      };
  }
}

function negRiskAdapter(log: ChainLog, book: ContractBook): DecodedLog {
  const { eventName, args } = decodeWith(LAYOUTS.negRiskAdapter, log);
  switch (eventName) {
    case 'PositionSplit':
    case 'PositionsMerge':
      return {
        type: eventName === 'PositionSplit' ? 'split' : 'merge',
        stakeholder: lower(args.stakeholder),
        conditionId: lower(args.conditionId),
        amountMicro: amount(args.amount, 'amount'),
        partition: ['1', '2'],
        collateralToken: book.wrappedCollateral,
      };
    case 'PositionsConverted':
      return {
        type: 'conversion',
        stakeholder: lower(args.stakeholder),
        negRiskMarketId: negRiskMarketId(args.marketId),
        indexSet: (args.indexSet as bigint).toString(),
        amountMicro: amount(args.amount, 'amount'),
      };
    case 'MarketPrepared': {
      const feeBips = args.feeBips as bigint;
      if (feeBips > MAX_FEE_BIPS) throw new RangeError(`feeBips above ${MAX_FEE_BIPS}: ${feeBips}`);
      return {
        type: 'market_prepared',
        negRiskMarketId: negRiskMarketId(args.marketId),
        oracle: lower(args.oracle),
        feeBips: Number(feeBips),
      };
    }
    case 'QuestionPrepared': {
      const marketId = negRiskMarketId(args.marketId);
      const questionId = lower(args.questionId);
      const index = args.index as bigint;
      // The adapter derives the question id from the market id and the index (NegRiskIdLib.getQuestionId).
      if (index > LOW_BYTE || BigInt(questionId) !== BigInt(marketId) + index)
        throw new RangeError(`question id ${questionId} is not question ${index} of market ${marketId}`);
      return { type: 'question_prepared', negRiskMarketId: marketId, questionId, index: Number(index) };
    }
    default: {
      const redeemed = (args.amounts as bigint[]).map((v, i) => amount(v, `amounts[${i}]`));
      return {
        type: 'redemption',
        redeemer: lower(args.redeemer),
        conditionId: lower(args.conditionId),
        payoutMicro: amount(args.payout, 'payout'),
        indexSets: ['1', '2'],
        redeemedMicro: redeemed,
        collateralToken: book.wrappedCollateral,
      };
    }
  }
}

/** The FPMM's outcome slots are the CTF's (at most 256); Polymarket's AMM markets have two. */
const MAX_OUTCOME_INDEX = 255n;

function fpmm(log: ChainLog): DecodedLog {
  const { eventName, args } = decodeWith(LAYOUTS.fpmm, log);
  if (eventName === 'FPMMBuy' || eventName === 'FPMMSell') {
    const buy = eventName === 'FPMMBuy';
    const outcomeIndex = args.outcomeIndex as bigint;
    if (outcomeIndex > MAX_OUTCOME_INDEX) throw new RangeError(`outcomeIndex out of range: ${outcomeIndex}`);
    return {
      type: 'amm_trade',
      trader: lower(buy ? args.buyer : args.seller),
      side: buy ? 'buy' : 'sell',
      outcomeIndex: Number(outcomeIndex),
      collateralMicro: amount(buy ? args.investmentAmount : args.returnAmount, buy ? 'investmentAmount' : 'returnAmount'),
      feeMicro: amount(args.feeAmount, 'feeAmount'),
      sharesMicro: amount(buy ? args.outcomeTokensBought : args.outcomeTokensSold, 'outcome tokens'),
    };
  }
  const added = eventName === 'FPMMFundingAdded';
  const amounts = (added ? args.amountsAdded : args.amountsRemoved) as bigint[];
  return {
    type: 'amm_funding',
    added,
    funder: lower(args.funder),
    amountsMicro: amounts.map((v, i) => amount(v, `amounts[${i}]`)),
    poolSharesMicro: amount(added ? args.sharesMinted : args.sharesBurnt, 'pool shares'),
    feesMicro: added ? '0' : amount(args.collateralRemovedFromFeePool, 'collateralRemovedFromFeePool'),
  };
}

/** Decodes a log of a configured contract; anything else (or anything malformed) is a reason to dead-letter. */
export function decodeLog(log: ChainLog, book: ContractBook): Parsed<DecodedLog> {
  const kind = book.kindOf(log.address);
  if (!kind) return fail(`log of an unconfigured contract ${log.address}`);
  try {
    switch (kind) {
      case 'exchangeV1':
        return ok(exchangeV1(log));
      case 'exchangeV2':
        return ok(exchangeV2(log));
      case 'conditionalTokens':
        return ok(conditionalTokens(log));
      case 'negRiskAdapter':
        return ok(negRiskAdapter(log, book));
      case 'fpmm':
        return ok(fpmm(log));
    }
  } catch (error) {
    return fail(`${kind} log ${log.transactionHash}:${log.logIndex} does not decode: ${(error as Error).message.split('\n')[0]}`);
  }
}
