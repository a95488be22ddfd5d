/**
 * One journal entry -> the logs its transaction emits on Polygon, ABI-encoded with viem from the same
 * event signatures the contracts publish, so the service decodes simulated logs exactly as real ones.
 *
 * - A taker fill is a COMPLEMENTARY match: the resting order's OrderFilled (its owner on the opposite
 *   side), the taker order's OrderFilled (counterparty = the exchange), then OrdersMatched. Without a
 *   market maker it is the operator filling the order directly (v1 fillOrder: no OrdersMatched).
 * - Before the v2 switch: CTF Exchange v1 (NegRisk v1 for neg-risk markets), a taker fee in what the
 *   taker receives (fill-amounts.ts; a match also emits the exchange's FeeCharged to the operator),
 *   splits, merges and redemptions straight on the CTF (through the NegRiskAdapter for neg-risk markets).
 * - After it: CTF Exchange v2, a taker fee of 0.02 x shares x p x (1 - p) in collateral, and splits,
 *   merges and redemptions through the collateral adapters, which name themselves in the CTF events
 *   while the ERC-1155 TransferBatch names the user.
 * - A wallet-to-wallet transfer: the CTF's TransferSingle (one token) or TransferBatch, operator = sender.
 * - A trade on a market with a legacy AMM (`ammMarkets`): FixedProductMarketMaker.buy or sell, log for
 *   log (the pool's collateral transfers, its split or merge through the CTF, the tokens moved, then
 *   FPMMBuy or FPMMSell), the pool's fee in collateral (fill-amounts.ts).
 * Amounts are micro-units: a fill's are the Data API's numbers x 1e6 (fill-amounts.ts), a split's, merge's
 * and redemption's the ledger's exact balances.
 */
import {
  type Abi,
  type AbiEvent,
  encodeAbiParameters,
  encodeEventTopics,
  erc20Abi,
  getAbiItem,
  type Hex,
  keccak256,
  parseAbi,
  toHex,
  zeroHash,
} from 'viem';
import { conditionalTokensAbi, exchangeV1Abi, exchangeV2Abi, fpmmAbi, negRiskAdapterAbi } from '../services/chain/abis.js';
import { POLYGON_CONTRACTS } from '../services/chain/polygon-contracts.js';
import type { JournalEntry } from './chain-journal.js';
import { ammFillAmounts, type FillAmounts, fillAmounts, type Side } from './fill-amounts.js';
import type { SimTrade } from './trades.js';
import type { ActivityEntry, NegRiskConversion, ShareTransfer } from './ledger.js';
import type { NegRiskPlan } from './neg-risk.js';
import type { SimulatorState } from './state.js';
import type { SimMarket } from './world-types.js';

export interface SimLog {
  address: string;
  topics: string[];
  data: string;
}

export interface SimTransaction {
  hash: string;
  from: string;
  to: string;
  logs: SimLog[];
}

const lower = (address: string) => address.toLowerCase();
const C = {
  exchangeV1: lower(POLYGON_CONTRACTS.exchangeV1),
  negRiskExchangeV1: lower(POLYGON_CONTRACTS.negRiskExchangeV1),
  exchangeV2: lower(POLYGON_CONTRACTS.exchangeV2),
  negRiskExchangeV2: lower(POLYGON_CONTRACTS.negRiskExchangeV2),
  ctf: lower(POLYGON_CONTRACTS.conditionalTokens),
  negRiskAdapter: lower(POLYGON_CONTRACTS.negRiskAdapter),
  ctfCollateralAdapter: lower(POLYGON_CONTRACTS.collateralAdapters[0]),
  negRiskCollateralAdapter: lower(POLYGON_CONTRACTS.collateralAdapters[1]),
  usdcE: lower(POLYGON_CONTRACTS.usdcE),
  wcol: lower(POLYGON_CONTRACTS.negRiskWrappedCollateral),
};
/** The exchange operator (fills orders directly) and the UMA adapter resolving binary markets. */
const SIM_OPERATOR = '0x0000000000000000000000000000000000000a11';
const UMA_ORACLE = '0x157ce2d672854c848c9b79c49a8cc6cc89176a49';
/** NegRiskAdapter.NO_TOKEN_BURN_ADDRESS: address(bytes20(bytes32(keccak256("NO_TOKEN_BURN_ADDRESS")))). */
const NO_TOKEN_BURN_ADDRESS = `0x${keccak256(toHex('NO_TOKEN_BURN_ADDRESS')).slice(2, 42)}`;
/** The simulated adapter's fee vault (the adapter's constructor argument). */
const SIM_NEG_RISK_VAULT = '0x0000000000000000000000000000000000000fee';
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** CTF Exchange v1's fee event (ctf-exchange src/exchange/interfaces/IFees.sol); the service does not read it. */
const exchangeV1FeeAbi = parseAbi(['event FeeCharged(address indexed receiver, uint256 tokenId, uint256 amount)']);

const eventCache = new Map<string, AbiEvent>();
function encodeLog(address: string, abi: Abi, eventName: string, args: Record<string, unknown>): SimLog {
  const key = `${address}:${eventName}`;
  let event = eventCache.get(key);
  if (!event) {
    event = getAbiItem({ abi, name: eventName }) as AbiEvent;
    eventCache.set(key, event);
  }
  const indexed: Record<string, unknown> = {};
  const dataInputs = [];
  const dataValues = [];
  for (const input of event.inputs) {
    if (input.indexed) indexed[input.name as string] = args[input.name as string];
    else {
      dataInputs.push(input);
      dataValues.push(args[input.name as string]);
    }
  }
  const topics = encodeEventTopics({ abi: [event], eventName, args: indexed } as never) as Hex[];
  return { address, topics, data: encodeAbiParameters(dataInputs, dataValues) };
}

/** What a redemption burns per outcome (index 0, 1) and pays out, in micro-units: the ledger's exact balances. */
export function redemptionAmounts(activity: ActivityEntry, winningOutcome: 0 | 1): { burned: [bigint, bigint]; payout: bigint } {
  if (activity.voidedHeld) return { burned: [...activity.voidedHeld], payout: activity.usdc };
  const won = activity.shares;
  const lost = activity.losingShares ?? 0n;
  return { burned: winningOutcome === 0 ? [won, lost] : [lost, won], payout: activity.usdc };
}

const orderHash = (tx: string, role: string) => keccak256(toHex(`${tx}:${role}`));

export class SimTransactions {
  constructor(
    private readonly state: SimulatorState,
    /** Epoch ms from which the exchange is v2 (the v1 history before it). */
    private readonly v2FromMs: number,
  ) {}

  isV2(second: number): boolean {
    return second * 1000 >= this.v2FromMs;
  }

  /** What a trade moves on chain: the legacy AMM's amounts on a pool's market, else the exchange's of its time. */
  tradeAmounts(trade: { marketIndex: number; size: number; price: number; side: Side }, second: number): FillAmounts {
    return this.state.ammPool(trade.marketIndex) !== null ? ammFillAmounts(trade) : fillAmounts(trade, this.isV2(second));
  }

  /** A deterministic transaction hash for resolutions (the tape's trades and ledger entries carry their own). */
  resolutionTxHash(marketIndex: number): string {
    return keccak256(toHex(`resolution:${this.state.seed}:${marketIndex}`));
  }

  txHashOf(entry: JournalEntry): string {
    if (entry.kind === 'trade') return entry.trade.transactionHash;
    if (entry.kind === 'activity') return entry.activity.transactionHash;
    if (entry.kind === 'transfer') return entry.transfer.transactionHash;
    if (entry.kind === 'conversion') return entry.conversion.transactionHash;
    if (entry.kind === 'neg-risk-prepare')
      return keccak256(toHex(`neg-risk-prepare:${this.state.seed}:${entry.plan.eventIndex}:${entry.questions.join(',')}`));
    return this.resolutionTxHash(entry.marketIndex);
  }

  transaction(entry: JournalEntry): SimTransaction {
    const hash = this.txHashOf(entry);
    switch (entry.kind) {
      case 'trade':
        return this.tradeTransaction(entry.trade, hash, entry.second);
      case 'activity':
        return this.activityTransaction(entry.activity, hash, entry.second);
      case 'transfer':
        return this.transferTransaction(entry.transfer, hash);
      case 'resolution':
        return this.resolutionTransaction(entry.marketIndex, hash);
      case 'neg-risk-prepare':
        return this.prepareTransaction(entry.plan, entry.market, entry.questions, hash);
      case 'conversion':
        return this.conversionTransaction(entry.conversion, hash);
    }
  }

  /** The operator's prepareMarket (MarketPrepared) and prepareQuestion calls (QuestionPrepared), as one transaction. */
  private prepareTransaction(plan: NegRiskPlan, market: boolean, questions: number[], hash: string): SimTransaction {
    const logs: SimLog[] = [];
    if (market)
      logs.push(
        encodeLog(C.negRiskAdapter, negRiskAdapterAbi, 'MarketPrepared', {
          marketId: plan.marketId,
          oracle: SIM_OPERATOR,
          feeBips: BigInt(plan.feeBips),
          data: '0x',
        }),
      );
    for (const index of questions) {
      const questionId = this.market(plan.marketIndexes[index] as number).questionId;
      logs.push(
        encodeLog(C.negRiskAdapter, negRiskAdapterAbi, 'QuestionPrepared', {
          marketId: plan.marketId,
          questionId,
          index: BigInt(index),
          data: '0x',
        }),
      );
    }
    return { hash, from: SIM_OPERATOR, to: C.negRiskAdapter, logs };
  }

  /**
   * NegRiskAdapter.convertPositions, log for log: the wrapped collateral minted for the other questions,
   * their splits on the CTF (the adapter the stakeholder), the caller's NO and the split NO sent to the
   * burn address, the collateral released (fee to the vault first), the YES shares sent (fee to the
   * vault first), then PositionsConverted.
   */
  private conversionTransaction(conversion: NegRiskConversion, hash: string): SimTransaction {
    const user = this.wallet(conversion.walletIndex);
    const adapter = C.negRiskAdapter;
    const token = (market: number, outcome: 0 | 1) => BigInt(this.market(market).tokenIds[outcome] as string);
    const { amount, fee, yesOut, collateralOut, yesMarkets, noMarkets } = conversion;
    const k = BigInt(noMarkets.length);
    const erc20 = (address: string, from: string, to: string, value: bigint) =>
      encodeLog(address, erc20Abi as Abi, 'Transfer', { from, to, value });
    const batch = (from: string, to: string, ids: bigint[], value: bigint) =>
      encodeLog(C.ctf, conditionalTokensAbi, 'TransferBatch', { operator: adapter, from, to, ids, values: ids.map(() => value) });
    const yesIds = yesMarkets.map((m) => token(m, 0));
    const logs: SimLog[] = [erc20(C.wcol, ZERO_ADDRESS, adapter, BigInt(yesMarkets.length) * amount)];
    for (const m of yesMarkets) {
      logs.push(erc20(C.wcol, adapter, C.ctf, amount));
      logs.push(
        encodeLog(C.ctf, conditionalTokensAbi, 'TransferBatch', {
          operator: adapter,
          from: ZERO_ADDRESS,
          to: adapter,
          ids: [token(m, 0), token(m, 1)],
          values: [amount, amount],
        }),
      );
      logs.push(
        encodeLog(C.ctf, conditionalTokensAbi, 'PositionSplit', {
          stakeholder: adapter,
          collateralToken: C.wcol,
          parentCollectionId: zeroHash,
          conditionId: this.market(m).conditionId,
          partition: [1n, 2n],
          amount,
        }),
      );
    }
    logs.push(
      batch(
        user,
        NO_TOKEN_BURN_ADDRESS,
        noMarkets.map((m) => token(m, 1)),
        amount,
      ),
    );
    logs.push(
      batch(
        adapter,
        NO_TOKEN_BURN_ADDRESS,
        yesMarkets.map((m) => token(m, 1)),
        amount,
      ),
    );
    if (k > 1n) {
      if (fee > 0n) logs.push(erc20(C.usdcE, C.wcol, SIM_NEG_RISK_VAULT, (k - 1n) * fee));
      logs.push(erc20(C.usdcE, C.wcol, user, collateralOut));
    }
    if (yesIds.length > 0) {
      if (fee > 0n) logs.push(batch(adapter, SIM_NEG_RISK_VAULT, yesIds, fee));
      logs.push(batch(adapter, user, yesIds, yesOut));
    }
    logs.push(
      encodeLog(adapter, negRiskAdapterAbi, 'PositionsConverted', {
        stakeholder: user,
        marketId: conversion.negRiskMarketId,
        indexSet: conversion.indexSet,
        amount,
      }),
    );
    return { hash, from: user, to: adapter, logs };
  }

  /** A wallet's own safeTransferFrom / safeBatchTransferFrom on the CTF: it is its own operator. */
  private transferTransaction(transfer: ShareTransfer, hash: string): SimTransaction {
    const from = this.wallet(transfer.fromWalletIndex);
    const to = this.wallet(transfer.toWalletIndex);
    const ids = transfer.legs.map((leg) => BigInt(this.market(leg.marketIndex).tokenIds[leg.outcomeIndex] as string));
    const values = transfer.legs.map((leg) => leg.shares);
    const log = transfer.batch
      ? encodeLog(C.ctf, conditionalTokensAbi, 'TransferBatch', { operator: from, from, to, ids, values })
      : encodeLog(C.ctf, conditionalTokensAbi, 'TransferSingle', { operator: from, from, to, id: ids[0], value: values[0] });
    return { hash, from, to: C.ctf, logs: [log] };
  }

  /**
   * FixedProductMarketMaker.buy: the investment to the pool, its split of the investment less the fee
   * through the CTF, the tokens to the buyer, FPMMBuy. sell: the tokens to the pool, its merge of the
   * return plus the fee, the return to the seller, FPMMSell. The pool is the CTF's operator throughout.
   */
  private ammTransaction(trade: SimTrade, market: SimMarket, pool: string, hash: string, second: number): SimTransaction {
    const user = this.wallet(trade.walletIndex);
    const token = BigInt(market.tokenIds[trade.outcomeIndex] as string);
    const ids = market.tokenIds.map(BigInt);
    const { shares, usdc, takerFee: fee } = this.tradeAmounts(trade, second);
    const erc20 = (from: string, to: string, value: bigint) => encodeLog(C.usdcE, erc20Abi as Abi, 'Transfer', { from, to, value });
    const setLegs = (from: string, to: string, amount: bigint) =>
      encodeLog(C.ctf, conditionalTokensAbi, 'TransferBatch', { operator: pool, from, to, ids, values: [amount, amount] });
    const position = (eventName: 'PositionSplit' | 'PositionsMerge', amount: bigint) =>
      encodeLog(C.ctf, conditionalTokensAbi, eventName, {
        stakeholder: pool,
        collateralToken: C.usdcE,
        parentCollectionId: zeroHash,
        conditionId: market.conditionId,
        partition: [1n, 2n],
        amount,
      });
    const single = (from: string, to: string) =>
      encodeLog(C.ctf, conditionalTokensAbi, 'TransferSingle', { operator: pool, from, to, id: token, value: shares });
    const outcomeIndex = BigInt(trade.outcomeIndex);
    if (trade.side === 'BUY') {
      return {
        hash,
        from: user,
        to: pool,
        logs: [
          erc20(user, pool, usdc + fee),
          erc20(pool, C.ctf, usdc),
          setLegs(ZERO_ADDRESS, pool, usdc),
          position('PositionSplit', usdc),
          single(pool, user),
          encodeLog(pool, fpmmAbi, 'FPMMBuy', {
            buyer: user,
            investmentAmount: usdc + fee,
            feeAmount: fee,
            outcomeIndex,
            outcomeTokensBought: shares,
          }),
        ],
      };
    }
    return {
      hash,
      from: user,
      to: pool,
      logs: [
        single(user, pool),
        setLegs(pool, ZERO_ADDRESS, usdc),
        position('PositionsMerge', usdc),
        erc20(C.ctf, pool, usdc),
        erc20(pool, user, usdc - fee),
        encodeLog(pool, fpmmAbi, 'FPMMSell', {
          seller: user,
          returnAmount: usdc - fee,
          feeAmount: fee,
          outcomeIndex,
          outcomeTokensSold: shares,
        }),
      ],
    };
  }

  private market(index: number): SimMarket {
    return this.state.world.markets[index] as SimMarket;
  }

  private negRisk(market: SimMarket): boolean {
    return this.state.world.events[market.eventIndex]?.negRisk ?? false;
  }

  private wallet(index: number): string {
    return this.state.world.wallets[index]?.address as string;
  }

  private tradeTransaction(trade: Extract<JournalEntry, { kind: 'trade' }>['trade'], hash: string, second: number): SimTransaction {
    const market = this.market(trade.marketIndex);
    const pool = this.state.ammPool(trade.marketIndex);
    if (pool !== null) return this.ammTransaction(trade, market, pool, hash, second);
    const negRisk = this.negRisk(market);
    const v2 = this.isV2(second);
    const exchange = v2 ? (negRisk ? C.negRiskExchangeV2 : C.exchangeV2) : negRisk ? C.negRiskExchangeV1 : C.exchangeV1;
    const token = BigInt(market.tokenIds[trade.outcomeIndex] as string);
    const { shares, usdc, takerFee, takerFeeAsset } = this.tradeAmounts(trade, second);
    const taker = this.wallet(trade.walletIndex);
    const takerBuys = trade.side === 'BUY';
    const fill = (owner: string, counterparty: string, buy: boolean, fee: bigint, role: string): SimLog =>
      v2
        ? encodeLog(exchange, exchangeV2Abi, 'OrderFilled', {
            orderHash: orderHash(hash, role),
            maker: owner,
            taker: counterparty,
            side: buy ? 0 : 1,
            tokenId: token,
            makerAmountFilled: buy ? usdc : shares,
            takerAmountFilled: buy ? shares : usdc,
            fee,
            builder: zeroHash,
            metadata: zeroHash,
          })
        : encodeLog(exchange, exchangeV1Abi, 'OrderFilled', {
            orderHash: orderHash(hash, role),
            maker: owner,
            taker: counterparty,
            makerAssetId: buy ? 0n : token,
            takerAssetId: buy ? token : 0n,
            makerAmountFilled: buy ? usdc : shares,
            takerAmountFilled: buy ? shares : usdc,
            fee,
          });
    // The operator filling the order directly (fillOrder) keeps the fee implicitly: no FeeCharged.
    if (trade.makerWalletIndex < 0) {
      return { hash, from: SIM_OPERATOR, to: exchange, logs: [fill(taker, SIM_OPERATOR, takerBuys, takerFee, 'taker')] };
    }
    const matched = v2
      ? encodeLog(exchange, exchangeV2Abi, 'OrdersMatched', {
          takerOrderHash: orderHash(hash, 'taker'),
          takerOrderMaker: taker,
          side: takerBuys ? 0 : 1,
          tokenId: token,
          makerAmountFilled: takerBuys ? usdc : shares,
          takerAmountFilled: takerBuys ? shares : usdc,
        })
      : encodeLog(exchange, exchangeV1Abi, 'OrdersMatched', {
          takerOrderHash: orderHash(hash, 'taker'),
          takerOrderMaker: taker,
          makerAssetId: takerBuys ? 0n : token,
          takerAssetId: takerBuys ? token : 0n,
          makerAmountFilled: takerBuys ? usdc : shares,
          takerAmountFilled: takerBuys ? shares : usdc,
        });
    return {
      hash,
      from: SIM_OPERATOR,
      to: exchange,
      logs: [
        fill(this.wallet(trade.makerWalletIndex), taker, !takerBuys, 0n, 'maker'),
        // _matchOrders charges the taker order's fee (in the asset it receives) before its OrderFilled.
        ...(!v2 && takerFee > 0n
          ? [
              encodeLog(exchange, exchangeV1FeeAbi, 'FeeCharged', {
                receiver: SIM_OPERATOR,
                tokenId: takerFeeAsset === 'shares' ? token : 0n,
                amount: takerFee,
              }),
            ]
          : []),
        fill(taker, exchange, takerBuys, takerFee, 'taker'),
        matched,
      ],
    };
  }

  private activityTransaction(
    activity: Extract<JournalEntry, { kind: 'activity' }>['activity'],
    hash: string,
    second: number,
  ): SimTransaction {
    const market = this.market(activity.marketIndex);
    const negRisk = this.negRisk(market);
    const user = this.wallet(activity.walletIndex);
    const adapter = this.isV2(second) ? (negRisk ? C.negRiskCollateralAdapter : C.ctfCollateralAdapter) : null;
    const actor = adapter ?? user;
    const condition = market.conditionId;
    const tokens = market.tokenIds.map((t) => BigInt(t));
    const logs: SimLog[] = [];
    const ctfLeg = (eventName: 'PositionSplit' | 'PositionsMerge', stakeholder: string, collateralToken: string, amount: bigint) =>
      encodeLog(C.ctf, conditionalTokensAbi, eventName, {
        stakeholder,
        collateralToken,
        parentCollectionId: zeroHash,
        conditionId: condition,
        partition: [1n, 2n],
        amount,
      });
    const transfer = (from: string, to: string, values: bigint[]) =>
      encodeLog(C.ctf, conditionalTokensAbi, 'TransferBatch', { operator: adapter, from, to, ids: tokens, values });
    switch (activity.type) {
      case 'SPLIT':
      case 'MERGE': {
        const amount = activity.shares;
        const eventName = activity.type === 'SPLIT' ? 'PositionSplit' : 'PositionsMerge';
        if (adapter && activity.type === 'MERGE') logs.push(transfer(user, adapter, [amount, amount]));
        if (negRisk) {
          logs.push(ctfLeg(eventName, C.negRiskAdapter, C.wcol, amount));
          logs.push(encodeLog(C.negRiskAdapter, negRiskAdapterAbi, eventName, { stakeholder: actor, conditionId: condition, amount }));
        } else {
          logs.push(ctfLeg(eventName, actor, C.usdcE, amount));
        }
        if (adapter && activity.type === 'SPLIT') logs.push(transfer(adapter, user, [amount, amount]));
        return { hash, from: user, to: adapter ?? (negRisk ? C.negRiskAdapter : C.ctf), logs };
      }
      case 'REDEEM': {
        const { burned, payout: won } = redemptionAmounts(activity, this.market(activity.marketIndex).winningOutcome);
        const held = [...burned];
        if (adapter) logs.push(transfer(user, adapter, held));
        const ctfRedemption = (redeemer: string, collateralToken: string) =>
          encodeLog(C.ctf, conditionalTokensAbi, 'PayoutRedemption', {
            redeemer,
            collateralToken,
            parentCollectionId: zeroHash,
            conditionId: condition,
            indexSets: [1n, 2n],
            payout: won,
          });
        if (negRisk) {
          logs.push(ctfRedemption(C.negRiskAdapter, C.wcol));
          logs.push(
            encodeLog(C.negRiskAdapter, negRiskAdapterAbi, 'PayoutRedemption', {
              redeemer: actor,
              conditionId: condition,
              amounts: held,
              payout: won,
            }),
          );
        } else {
          logs.push(ctfRedemption(actor, C.usdcE));
        }
        return { hash, from: user, to: adapter ?? (negRisk ? C.negRiskAdapter : C.ctf), logs };
      }
    }
  }

  private resolutionTransaction(marketIndex: number, hash: string): SimTransaction {
    const market = this.market(marketIndex);
    const negRisk = this.negRisk(market);
    const oracle = negRisk ? C.negRiskAdapter : UMA_ORACLE;
    return {
      hash,
      from: SIM_OPERATOR,
      to: C.ctf,
      logs: [
        encodeLog(C.ctf, conditionalTokensAbi, 'ConditionResolution', {
          conditionId: market.conditionId,
          oracle,
          questionId: market.questionId,
          outcomeSlotCount: 2n,
          payoutNumerators: market.voided ? [1n, 1n] : market.winningOutcome === 0 ? [1n, 0n] : [0n, 1n],
        }),
      ],
    };
  }
}
