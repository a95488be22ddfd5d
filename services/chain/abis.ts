/**
 * Event ABIs of Polymarket's settlement contracts on Polygon, as declared in their Solidity sources
 * (docs/CHAIN.md names each repository and file). Several contracts reuse an event name with a
 * different signature (two OrderFilled, two PositionSplit, two PayoutRedemption), so logs are decoded
 * with the ABI of the contract that emitted them, never by name alone.
 */
import { type AbiEvent, getAbiItem, parseAbi, toEventSelector } from 'viem';

/** CTF Exchange v1 and NegRisk CTF Exchange v1 (Polymarket/ctf-exchange src/exchange/interfaces). Asset id 0 = collateral. */
export const exchangeV1Abi = parseAbi([
  'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint256 makerAssetId, uint256 takerAssetId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee)',
  'event OrdersMatched(bytes32 indexed takerOrderHash, address indexed takerOrderMaker, uint256 makerAssetId, uint256 takerAssetId, uint256 makerAmountFilled, uint256 takerAmountFilled)',
]);

/** CTF Exchange v2 and NegRisk CTF Exchange v2 (ctf-exchange-v2 ITrading.sol). `side` is the enum Side: 0 = BUY, 1 = SELL. */
export const exchangeV2Abi = parseAbi([
  'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee, bytes32 builder, bytes32 metadata)',
  'event OrdersMatched(bytes32 indexed takerOrderHash, address indexed takerOrderMaker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled)',
]);

/** Gnosis ConditionalTokens (gnosis/conditional-tokens-contracts ConditionalTokens.sol, IERC1155.sol). */
export const conditionalTokensAbi = parseAbi([
  'event ConditionResolution(bytes32 indexed conditionId, address indexed oracle, bytes32 indexed questionId, uint256 outcomeSlotCount, uint256[] payoutNumerators)',
  'event PositionSplit(address indexed stakeholder, address collateralToken, bytes32 indexed parentCollectionId, bytes32 indexed conditionId, uint256[] partition, uint256 amount)',
  'event PositionsMerge(address indexed stakeholder, address collateralToken, bytes32 indexed parentCollectionId, bytes32 indexed conditionId, uint256[] partition, uint256 amount)',
  'event PayoutRedemption(address indexed redeemer, address indexed collateralToken, bytes32 indexed parentCollectionId, bytes32 conditionId, uint256[] indexSets, uint256 payout)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
]);

/**
 * NegRiskAdapter (Polymarket/neg-risk-ctf-adapter src/NegRiskAdapter.sol). Redemption amounts are [YES, NO].
 * MarketPrepared and QuestionPrepared tell, from the chain, how many questions a neg-risk market has at
 * any point and its fee, which price a conversion (services/chain/neg-risk-book.ts).
 */
export const negRiskAdapterAbi = parseAbi([
  'event MarketPrepared(bytes32 indexed marketId, address indexed oracle, uint256 feeBips, bytes data)',
  'event QuestionPrepared(bytes32 indexed marketId, bytes32 indexed questionId, uint256 index, bytes data)',
  'event PositionSplit(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount)',
  'event PositionsMerge(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount)',
  'event PositionsConverted(address indexed stakeholder, bytes32 indexed marketId, uint256 indexed indexSet, uint256 amount)',
  'event PayoutRedemption(address indexed redeemer, bytes32 indexed conditionId, uint256[] amounts, uint256 payout)',
]);

/**
 * The legacy AMM: Gnosis FixedProductMarketMaker (gnosis/conditional-tokens-market-makers
 * contracts/FixedProductMarketMaker.sol), one contract per early Polymarket market (Gamma's
 * `marketMakerAddress`); Polymarket's PnL subgraph reads these four (pnl-subgraph/subgraph.template.yaml).
 */
export const fpmmAbi = parseAbi([
  'event FPMMFundingAdded(address indexed funder, uint256[] amountsAdded, uint256 sharesMinted)',
  'event FPMMFundingRemoved(address indexed funder, uint256[] amountsRemoved, uint256 collateralRemovedFromFeePool, uint256 sharesBurnt)',
  'event FPMMBuy(address indexed buyer, uint256 investmentAmount, uint256 feeAmount, uint256 indexed outcomeIndex, uint256 outcomeTokensBought)',
  'event FPMMSell(address indexed seller, uint256 returnAmount, uint256 feeAmount, uint256 indexed outcomeIndex, uint256 outcomeTokensSold)',
]);

const selector = (abi: readonly AbiEvent[], name: string) => toEventSelector(getAbiItem({ abi, name }) as AbiEvent);

/** topic0 of every event read; the values are checked against docs/CHAIN.md (and the shared chain notes) by a unit test. */
export const TOPIC0 = {
  v1OrderFilled: selector(exchangeV1Abi, 'OrderFilled'),
  v1OrdersMatched: selector(exchangeV1Abi, 'OrdersMatched'),
  v2OrderFilled: selector(exchangeV2Abi, 'OrderFilled'),
  v2OrdersMatched: selector(exchangeV2Abi, 'OrdersMatched'),
  ctfConditionResolution: selector(conditionalTokensAbi, 'ConditionResolution'),
  ctfPositionSplit: selector(conditionalTokensAbi, 'PositionSplit'),
  ctfPositionsMerge: selector(conditionalTokensAbi, 'PositionsMerge'),
  ctfPayoutRedemption: selector(conditionalTokensAbi, 'PayoutRedemption'),
  ctfTransferSingle: selector(conditionalTokensAbi, 'TransferSingle'),
  ctfTransferBatch: selector(conditionalTokensAbi, 'TransferBatch'),
  negRiskPositionSplit: selector(negRiskAdapterAbi, 'PositionSplit'),
  negRiskPositionsMerge: selector(negRiskAdapterAbi, 'PositionsMerge'),
  negRiskPositionsConverted: selector(negRiskAdapterAbi, 'PositionsConverted'),
  negRiskPayoutRedemption: selector(negRiskAdapterAbi, 'PayoutRedemption'),
  negRiskMarketPrepared: selector(negRiskAdapterAbi, 'MarketPrepared'),
  negRiskQuestionPrepared: selector(negRiskAdapterAbi, 'QuestionPrepared'),
  fpmmBuy: selector(fpmmAbi, 'FPMMBuy'),
  fpmmSell: selector(fpmmAbi, 'FPMMSell'),
  fpmmFundingAdded: selector(fpmmAbi, 'FPMMFundingAdded'),
  fpmmFundingRemoved: selector(fpmmAbi, 'FPMMFundingRemoved'),
} as const;

/**
 * The topic0 filter of eth_getLogs per contract kind. The CTF's ERC-1155 transfers are asked for apart
 * (`TRANSFER_TOPICS`): they can be left out (CHAIN_READ_TRANSFERS), and then only adapter actions'
 * receipts are read for them.
 */
export const TRANSFER_TOPICS = [TOPIC0.ctfTransferSingle, TOPIC0.ctfTransferBatch] as const;

export const LOG_TOPICS = {
  exchangeV1: [TOPIC0.v1OrderFilled, TOPIC0.v1OrdersMatched],
  exchangeV2: [TOPIC0.v2OrderFilled, TOPIC0.v2OrdersMatched],
  conditionalTokens: [TOPIC0.ctfConditionResolution, TOPIC0.ctfPositionSplit, TOPIC0.ctfPositionsMerge, TOPIC0.ctfPayoutRedemption],
  negRiskAdapter: [
    TOPIC0.negRiskPositionSplit,
    TOPIC0.negRiskPositionsMerge,
    TOPIC0.negRiskPositionsConverted,
    TOPIC0.negRiskPayoutRedemption,
    TOPIC0.negRiskMarketPrepared,
    TOPIC0.negRiskQuestionPrepared,
  ],
  fpmm: [TOPIC0.fpmmBuy, TOPIC0.fpmmSell, TOPIC0.fpmmFundingAdded, TOPIC0.fpmmFundingRemoved],
} as const;
