/**
 * Decoding conformance: logs encoded from the published event signatures (declared here again, apart
 * from services/chain/abis.ts, so a typo there cannot hide) through the chain source's decoder, record
 * interpretation and catalog resolution, against hand-computed expected events. Markets are real ones
 * from the recorded Gamma samples (token ids as Polymarket publishes them).
 */
import fs from 'node:fs';
import {
  type Abi,
  type AbiEvent,
  encodeAbiParameters,
  encodeEventTopics,
  getAbiItem,
  type Hex,
  parseAbi,
  toEventSelector,
  zeroHash,
} from 'viem';
import { TOPIC0 } from '../../services/chain/abis.js';
import { SettlementGate } from '../../services/chain/settlement-gate.js';
import { ChainCatalog } from '../../services/chain/catalog.js';
import { ContractBook } from '../../services/chain/contract-book.js';
import { NegRiskBook, negRiskConditionId, negRiskQuestionId } from '../../services/chain/neg-risk-book.js';
import { priceOf, toLedgerEvent, toResolutionEvent } from '../../services/chain/ledger-events.js';
import { attributeAdapterActions, interpretLogs, type SettlementRecord } from '../../services/chain/settlement-records.js';
import { loadConfig } from '../../services/config.js';
import type { ChainLedgerEvent } from '../../services/events/types.js';
import { normalizeGammaMarket } from '../../services/ingest/normalize-market.js';
import type { ChainLog } from '../../services/ports/chain-reader.js';
import { readSample, readSharedNote } from '../support/shared-samples.js';

const PUBLISHED = {
  v1: parseAbi([
    'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint256 makerAssetId, uint256 takerAssetId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee)',
    'event OrdersMatched(bytes32 indexed takerOrderHash, address indexed takerOrderMaker, uint256 makerAssetId, uint256 takerAssetId, uint256 makerAmountFilled, uint256 takerAmountFilled)',
  ]),
  v2: parseAbi([
    'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee, bytes32 builder, bytes32 metadata)',
    'event OrdersMatched(bytes32 indexed takerOrderHash, address indexed takerOrderMaker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled)',
  ]),
  ctf: parseAbi([
    'event ConditionResolution(bytes32 indexed conditionId, address indexed oracle, bytes32 indexed questionId, uint256 outcomeSlotCount, uint256[] payoutNumerators)',
    'event PositionSplit(address indexed stakeholder, address collateralToken, bytes32 indexed parentCollectionId, bytes32 indexed conditionId, uint256[] partition, uint256 amount)',
    'event PositionsMerge(address indexed stakeholder, address collateralToken, bytes32 indexed parentCollectionId, bytes32 indexed conditionId, uint256[] partition, uint256 amount)',
    'event PayoutRedemption(address indexed redeemer, address indexed collateralToken, bytes32 indexed parentCollectionId, bytes32 conditionId, uint256[] indexSets, uint256 payout)',
    'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
    'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
  ]),
  negRisk: parseAbi([
    'event MarketPrepared(bytes32 indexed marketId, address indexed oracle, uint256 feeBips, bytes data)',
    'event QuestionPrepared(bytes32 indexed marketId, bytes32 indexed questionId, uint256 index, bytes data)',
    'event PositionSplit(address indexed stakeholder, bytes32 indexed conditionId, uint256 amount)',
    'event PositionsConverted(address indexed stakeholder, bytes32 indexed marketId, uint256 indexed indexSet, uint256 amount)',
    'event PayoutRedemption(address indexed redeemer, bytes32 indexed conditionId, uint256[] amounts, uint256 payout)',
  ]),
};

const config = loadConfig({});
const C = config.chain.contracts;
const book = new ContractBook(C);
const T = '0x1111111111111111111111111111111111111111';
const M = '0x2222222222222222222222222222222222222222';
const BLOCK = 80_000_000;
const BLOCK_HASH = `0x${'b'.repeat(64)}`;
const TIME_MS = Date.UTC(2026, 4, 1, 12, 0, 0);
const tx = (n: number) => `0x${n.toString(16).padStart(64, 'a')}`;
const hash = (label: string) => `0x${Buffer.from(label).toString('hex').padEnd(64, '0')}` as Hex;

let logIndex = 0;
function log(address: string, abi: Abi, eventName: string, args: Record<string, unknown>, txHash = tx(1)): ChainLog {
  const event = getAbiItem({ abi, name: eventName }) as AbiEvent;
  const indexed = Object.fromEntries(event.inputs.filter((i) => i.indexed).map((i) => [i.name, args[i.name as string]]));
  const topics = encodeEventTopics({ abi: [event], eventName, args: indexed } as never) as Hex[];
  const dataInputs = event.inputs.filter((i) => !i.indexed);
  return {
    address,
    topics: topics.map((t) => t.toLowerCase()),
    data: encodeAbiParameters(
      dataInputs,
      dataInputs.map((i) => args[i.name as string]),
    ).toLowerCase(),
    blockNumber: BigInt(BLOCK),
    blockHash: BLOCK_HASH,
    transactionHash: txHash,
    logIndex: logIndex++,
    removed: false,
  };
}

const gamma = (file: string) => {
  const result = normalizeGammaMarket(readSample(`gamma/${file}`), 'polymarket', TIME_MS);
  if (!result.ok) throw new Error(result.reason);
  return result.value;
};
const ceasefire = gamma('market_open_ceasefire_before_gta6.json');
const newsom = gamma('market_open_negrisk_member_newsom_2028.json');
const tennis = gamma('market_by_id_resolved_tennis_recorded_cassette.json');
const [YES, NO] = ceasefire.outcome_token_ids.map(BigInt) as [bigint, bigint];
const KESSLER = BigInt(tennis.outcome_token_ids[1]!);
const NEWSOM_YES = BigInt(newsom.outcome_token_ids[0]!);
// The recorded 39-question neg-risk event: its first four questions.
const fedChair = (readSample('gamma/events_by_slug_negrisk_fed_chair_39_markets.json') as Array<{ markets: unknown[] }>)[0]!.markets
  .map((m) => {
    const result = normalizeGammaMarket(m, 'polymarket', TIME_MS);
    if (!result.ok) throw new Error(result.reason);
    return result.value;
  })
  .sort((a, b) => (a.question_id ?? '').localeCompare(b.question_id ?? ''));
const FED = fedChair[0]!.neg_risk_market_id as Hex;
const catalog = new ChainCatalog();
catalog.add([ceasefire, newsom, tennis, ...fedChair.slice(0, 4)]);
const context = { chainId: 137, source: 'polymarket' as const, nowMs: TIME_MS, negRiskAdapter: C.negRiskAdapter.address };
const negRisk = new NegRiskBook(C.negRiskAdapter.address);

function events(logs: ChainLog[], receipts = new Map<string, ChainLog[]>()): ChainLedgerEvent[] {
  const interpreted = interpretLogs(logs, new Map([[BLOCK, TIME_MS]]), book);
  expect(interpreted.rejected).toEqual([]);
  const { records, rejected } = attributeAdapterActions(interpreted.records, receipts, book);
  expect(rejected).toEqual([]);
  return records
    .filter((r): r is Exclude<SettlementRecord, { kind: 'resolution' | 'prepared' }> => r.kind !== 'resolution' && r.kind !== 'prepared')
    .map((record) => {
      const outcome = toLedgerEvent(record, catalog, context, negRisk);
      if (outcome.status !== 'ready') throw new Error(JSON.stringify(outcome));
      return outcome.event;
    });
}

const fillOf = (e: ChainLedgerEvent) => ({ wallet: e.wallet, ...e.fill, group: e.ledger_group, market: e.market_id, neg_risk: e.neg_risk });

test('topic0 of every event equals the value in the shared chain notes and the keccak of the published signature', () => {
  const notes = readSharedNote('chain.md');
  const noted = (signature: string) => {
    const line = notes.split('\n').findIndex((l) => l.includes(signature));
    const match = notes
      .split('\n')
      .slice(line, line + 3)
      .join(' ')
      .match(/0x[0-9a-f]{64}/);
    return match?.[0];
  };
  const selector = (abi: Abi, name: string) => toEventSelector(getAbiItem({ abi, name }) as AbiEvent);
  const cases: Array<[string, string, string]> = [
    ['v1 `OrderFilled(', TOPIC0.v1OrderFilled, selector(PUBLISHED.v1, 'OrderFilled')],
    ['v1 `OrdersMatched(', TOPIC0.v1OrdersMatched, selector(PUBLISHED.v1, 'OrdersMatched')],
    ['v2 `OrderFilled(', TOPIC0.v2OrderFilled, selector(PUBLISHED.v2, 'OrderFilled')],
    ['`v2 OrdersMatched(', TOPIC0.v2OrdersMatched, selector(PUBLISHED.v2, 'OrdersMatched')],
    ['CTF `PositionSplit(', TOPIC0.ctfPositionSplit, selector(PUBLISHED.ctf, 'PositionSplit')],
    ['`PositionsMerge(...same...)`', TOPIC0.ctfPositionsMerge, selector(PUBLISHED.ctf, 'PositionsMerge')],
    ['`PayoutRedemption(address indexed redeemer, address', TOPIC0.ctfPayoutRedemption, selector(PUBLISHED.ctf, 'PayoutRedemption')],
    ['`ConditionResolution(', TOPIC0.ctfConditionResolution, selector(PUBLISHED.ctf, 'ConditionResolution')],
    ['NegRiskAdapter `PositionsConverted(', TOPIC0.negRiskPositionsConverted, selector(PUBLISHED.negRisk, 'PositionsConverted')],
  ];
  for (const [signature, ours, published] of cases) {
    expect([signature, ours]).toEqual([signature, published]);
    expect([signature, noted(signature)]).toEqual([signature, ours]);
  }
});

test('topic0 of MarketPrepared and QuestionPrepared: the keccak of the adapter source signatures, as docs/CHAIN.md lists them', () => {
  const doc = fs.readFileSync(new URL('../../docs/CHAIN.md', import.meta.url), 'utf8');
  const selector = (name: 'MarketPrepared' | 'QuestionPrepared') =>
    toEventSelector(getAbiItem({ abi: PUBLISHED.negRisk, name }) as AbiEvent);
  for (const [name, ours] of [
    ['MarketPrepared', TOPIC0.negRiskMarketPrepared],
    ['QuestionPrepared', TOPIC0.negRiskQuestionPrepared],
  ] as const) {
    expect([name, ours]).toEqual([name, selector(name)]);
    expect([name, doc.includes(`\`${name}\` \`${ours.slice(0, 10)}…${ours.slice(-6)}\``)]).toEqual([name, true]);
  }
  expect(TOPIC0.negRiskMarketPrepared).toBe('0xf059ab16d1ca60e123eab60e3c02b68faf060347c701a5d14885a8e1def7b3a8');
  expect(TOPIC0.negRiskQuestionPrepared).toBe('0xaac410f87d423a922a7b226ac68f0c2eaf5bf6d15e644ac0758c7f96e2c253f7');
});

test('a neg-risk question condition derives from the adapter and the question id: all 39 of a recorded event', () => {
  expect(fedChair).toHaveLength(39);
  fedChair.forEach((m, i) => {
    const questionId = negRiskQuestionId(FED, i);
    expect([i, questionId]).toEqual([i, m.question_id]);
    expect([i, negRiskConditionId(C.negRiskAdapter.address, questionId)]).toEqual([i, m.market_id]);
  });
});

test('MarketPrepared and QuestionPrepared decode to preparations; a question id that is not market id + index is refused', () => {
  const prepared = (feeBips: bigint, index: bigint, questionId: Hex) => [
    log(C.negRiskAdapter.address, PUBLISHED.negRisk, 'MarketPrepared', { marketId: FED, oracle: M, feeBips, data: '0x1234' }),
    log(C.negRiskAdapter.address, PUBLISHED.negRisk, 'QuestionPrepared', { marketId: FED, questionId, index, data: '0x' }),
  ];
  const good = interpretLogs(prepared(150n, 3n, negRiskQuestionId(FED, 3) as Hex), new Map([[BLOCK, TIME_MS]]), book);
  expect(good.rejected).toEqual([]);
  expect(good.records.map((r) => (r.kind === 'prepared' ? r.prepared : r.kind))).toEqual([
    { type: 'market_prepared', negRiskMarketId: FED, oracle: M, feeBips: 150 },
    { type: 'question_prepared', negRiskMarketId: FED, questionId: negRiskQuestionId(FED, 3), index: 3 },
  ]);
  const bad = interpretLogs(prepared(10_001n, 2n, negRiskQuestionId(FED, 3) as Hex), new Map([[BLOCK, TIME_MS]]), book);
  expect(bad.records).toEqual([]);
  expect(bad.rejected.map((r) => r.reason)).toEqual([
    expect.stringContaining('feeBips above 10000'),
    expect.stringContaining(`is not question 2 of market ${FED}`),
  ]);
  // A market id with a non-zero low byte is no market of the adapter's.
  const odd = `0x${'1'.repeat(64)}` as Hex;
  const conversion = log(C.negRiskAdapter.address, PUBLISHED.negRisk, 'PositionsConverted', {
    stakeholder: T,
    marketId: odd,
    indexSet: 1n,
    amount: 1n,
  });
  expect(interpretLogs([conversion], new Map([[BLOCK, TIME_MS]]), book).rejected[0]?.reason).toContain('non-zero low byte');
});

test('v1 maker buy: 100 YES at 0.40 bought by a resting order, and the taker selling into it', () => {
  const [maker, taker] = events([
    log(C.exchangeV1.address, PUBLISHED.v1, 'OrderFilled', {
      orderHash: hash('m'),
      maker: M,
      taker: T,
      makerAssetId: 0n,
      takerAssetId: YES,
      makerAmountFilled: 40_000_000n,
      takerAmountFilled: 100_000_000n,
      fee: 0n,
    }),
    log(C.exchangeV1.address, PUBLISHED.v1, 'OrderFilled', {
      orderHash: hash('t'),
      maker: T,
      taker: C.exchangeV1.address,
      makerAssetId: YES,
      takerAssetId: 0n,
      makerAmountFilled: 100_000_000n,
      takerAmountFilled: 40_000_000n,
      fee: 0n,
    }),
    log(C.exchangeV1.address, PUBLISHED.v1, 'OrdersMatched', {
      takerOrderHash: hash('t'),
      takerOrderMaker: T,
      makerAssetId: YES,
      takerAssetId: 0n,
      makerAmountFilled: 100_000_000n,
      takerAmountFilled: 40_000_000n,
    }),
  ]);
  expect(fillOf(maker!)).toEqual({
    wallet: M,
    role: 'maker',
    side: 'buy',
    asset_id: YES.toString(),
    outcome: 'Yes',
    outcome_index: 0,
    shares_micro: '100000000',
    usdc_micro: '40000000',
    fee_micro: '0',
    fee_asset: 'shares',
    price: 0.4,
    yes_price: 0.4,
    exchange_version: 1,
    order_hash: hash('m'),
    counterparty: T,
    group: ceasefire.market_id,
    market: ceasefire.market_id,
    neg_risk: false,
  });
  expect(fillOf(taker!)).toMatchObject({
    wallet: T,
    role: 'taker',
    side: 'sell',
    shares_micro: '100000000',
    usdc_micro: '40000000',
    fee_asset: 'usdc',
  });
  expect(maker!.event_id).toBe(`137:${tx(1)}:${maker!.log_index}`);
  expect([maker!.block_number, maker!.block_time_ms, maker!.tx_hash]).toEqual([BLOCK, TIME_MS, tx(1)]);
});

test('v1 maker sell: 60 NO at 0.58 with a fee in collateral; the YES price is the complement', () => {
  const [maker] = events([
    log(C.exchangeV1.address, PUBLISHED.v1, 'OrderFilled', {
      orderHash: hash('m1'),
      maker: M,
      taker: T,
      makerAssetId: NO,
      takerAssetId: 0n,
      makerAmountFilled: 60_000_000n,
      takerAmountFilled: 34_800_000n,
      fee: 120_000n,
    }),
    log(C.exchangeV1.address, PUBLISHED.v1, 'OrdersMatched', {
      takerOrderHash: hash('t'),
      takerOrderMaker: T,
      makerAssetId: 0n,
      takerAssetId: NO,
      makerAmountFilled: 34_800_000n,
      takerAmountFilled: 60_000_000n,
    }),
  ]);
  expect(fillOf(maker!)).toMatchObject({
    role: 'maker',
    side: 'sell',
    asset_id: NO.toString(),
    outcome: 'No',
    outcome_index: 1,
    shares_micro: '60000000',
    usdc_micro: '34800000',
    fee_micro: '120000',
    fee_asset: 'usdc',
    price: 0.58,
    yes_price: 0.42,
  });
});

test('v2 fill: the taker sells 50 Kessler into a resting buy at 0.32, paying 0.3264 pUSD (50 x 0.03 x 0.32 x 0.68)', () => {
  const [maker, taker] = events([
    log(C.exchangeV2.address, PUBLISHED.v2, 'OrderFilled', {
      orderHash: hash('m'),
      maker: M,
      taker: T,
      side: 0,
      tokenId: KESSLER,
      makerAmountFilled: 16_000_000n,
      takerAmountFilled: 50_000_000n,
      fee: 0n,
      builder: zeroHash,
      metadata: zeroHash,
    }),
    log(C.exchangeV2.address, PUBLISHED.v2, 'OrderFilled', {
      orderHash: hash('t'),
      maker: T,
      taker: C.exchangeV2.address,
      side: 1,
      tokenId: KESSLER,
      makerAmountFilled: 50_000_000n,
      takerAmountFilled: 16_000_000n,
      fee: 326_400n,
      builder: hash('builder'),
      metadata: zeroHash,
    }),
    log(C.exchangeV2.address, PUBLISHED.v2, 'OrdersMatched', {
      takerOrderHash: hash('t'),
      takerOrderMaker: T,
      side: 1,
      tokenId: KESSLER,
      makerAmountFilled: 50_000_000n,
      takerAmountFilled: 16_000_000n,
    }),
  ]);
  expect(fillOf(maker!)).toMatchObject({
    wallet: M,
    role: 'maker',
    side: 'buy',
    shares_micro: '50000000',
    usdc_micro: '16000000',
    price: 0.32,
  });
  expect(fillOf(taker!)).toMatchObject({
    wallet: T,
    role: 'taker',
    side: 'sell',
    outcome: 'McCartney Kessler',
    outcome_index: 1,
    shares_micro: '50000000',
    usdc_micro: '16000000',
    fee_micro: '326400',
    fee_asset: 'usdc',
    price: 0.32,
    // Neither outcome is named Yes: the first (Hanyu Guo) is the YES side.
    yes_price: 0.68,
    exchange_version: 2,
    counterparty: C.exchangeV2.address,
  });
});

test('neg-risk fill: keyed by the neg-risk market id, so conversions and fills of one event share a partition', () => {
  const [fill] = events([
    log(C.negRiskExchangeV2.address, PUBLISHED.v2, 'OrderFilled', {
      orderHash: hash('n'),
      maker: M,
      taker: C.negRiskExchangeV2.address,
      side: 0,
      tokenId: NEWSOM_YES,
      makerAmountFilled: 2_500_000n,
      takerAmountFilled: 10_000_000n,
      fee: 0n,
      builder: zeroHash,
      metadata: zeroHash,
    }),
  ]);
  expect(fillOf(fill!)).toMatchObject({
    wallet: M,
    role: 'taker',
    side: 'buy',
    price: 0.25,
    market: newsom.market_id,
    group: '0x2c3d7e0eee6f058be3006baabf0d54a07da254ba47fe6e3e095e7990c7814700',
    neg_risk: true,
  });
});

test('split and merge by the user directly; internal legs of the exchange and the adapter are not user actions', () => {
  const condition = ceasefire.market_id as Hex;
  const result = events([
    log(C.conditionalTokens.address, PUBLISHED.ctf, 'PositionSplit', {
      stakeholder: T,
      collateralToken: C.usdcE,
      parentCollectionId: zeroHash,
      conditionId: condition,
      partition: [1n, 2n],
      amount: 25_000_000n,
    }),
    log(C.conditionalTokens.address, PUBLISHED.ctf, 'PositionSplit', {
      stakeholder: C.exchangeV1.address,
      collateralToken: C.usdcE,
      parentCollectionId: zeroHash,
      conditionId: condition,
      partition: [1n, 2n],
      amount: 7_000_000n,
    }),
    log(C.conditionalTokens.address, PUBLISHED.ctf, 'PositionsMerge', {
      stakeholder: T,
      collateralToken: C.usdcE,
      parentCollectionId: zeroHash,
      conditionId: condition,
      partition: [1n, 2n],
      amount: 5_000_000n,
    }),
  ]);
  expect(result.map((e) => [e.kind, e.wallet, e.position_change])).toEqual([
    [
      'split',
      T,
      {
        amount_micro: '25000000',
        index_sets: ['1', '2'],
        redeemed_micro: [],
        outcome_token_ids: ceasefire.outcome_token_ids,
        collateral_token: C.usdcE,
      },
    ],
    [
      'merge',
      T,
      {
        amount_micro: '5000000',
        index_sets: ['1', '2'],
        redeemed_micro: [],
        outcome_token_ids: ceasefire.outcome_token_ids,
        collateral_token: C.usdcE,
      },
    ],
  ]);
});

test('a split through a v2 collateral adapter is the user whose ERC-1155 transfer it carries', () => {
  const adapter = C.collateralAdapters[0]!;
  const split = log(
    C.conditionalTokens.address,
    PUBLISHED.ctf,
    'PositionSplit',
    {
      stakeholder: adapter,
      collateralToken: C.usdcE,
      parentCollectionId: zeroHash,
      conditionId: ceasefire.market_id,
      partition: [1n, 2n],
      amount: 3_000_000n,
    },
    tx(7),
  );
  const transfer = log(
    C.conditionalTokens.address,
    PUBLISHED.ctf,
    'TransferBatch',
    { operator: adapter, from: adapter, to: T, ids: [YES, NO], values: [3_000_000n, 3_000_000n] },
    tx(7),
  );
  const [event] = events([split], new Map([[tx(7), [split, transfer]]]));
  expect([event!.kind, event!.wallet, event!.via, event!.position_change?.amount_micro]).toEqual(['split', T, adapter, '3000000']);
});

test('redemptions: a winner is paid its shares, a loser is paid 0; the neg-risk adapter reports both amounts', () => {
  const condition = ceasefire.market_id;
  const result = events([
    log(C.conditionalTokens.address, PUBLISHED.ctf, 'PayoutRedemption', {
      redeemer: T,
      collateralToken: C.usdcE,
      parentCollectionId: zeroHash,
      conditionId: condition,
      indexSets: [1n, 2n],
      payout: 100_000_000n,
    }),
    log(C.conditionalTokens.address, PUBLISHED.ctf, 'PayoutRedemption', {
      redeemer: M,
      collateralToken: C.usdcE,
      parentCollectionId: zeroHash,
      conditionId: condition,
      indexSets: [1n, 2n],
      payout: 0n,
    }),
    log(C.negRiskAdapter.address, PUBLISHED.negRisk, 'PayoutRedemption', {
      redeemer: T,
      conditionId: newsom.market_id,
      amounts: [0n, 3_000_000n],
      payout: 3_000_000n,
    }),
  ]);
  expect(result.map((e) => [e.wallet, e.ledger_group, e.position_change?.amount_micro, e.position_change?.redeemed_micro])).toEqual([
    [T, condition, '100000000', []],
    [M, condition, '0', []],
    [T, newsom.neg_risk_market_id, '3000000', ['0', '3000000']],
  ]);
});

test('conversion: NO of questions 0 and 2 of a neg-risk event into YES of the others, keyed by the event, with its questions', () => {
  const gate = new SettlementGate(catalog, new NegRiskBook(C.negRiskAdapter.address), config.chain.holdMaxMs);
  const logs = [
    log(C.negRiskAdapter.address, PUBLISHED.negRisk, 'MarketPrepared', { marketId: FED, oracle: M, feeBips: 0n, data: '0x' }),
    ...[0, 1, 2, 3].map((index) =>
      log(C.negRiskAdapter.address, PUBLISHED.negRisk, 'QuestionPrepared', {
        marketId: FED,
        questionId: negRiskQuestionId(FED, index),
        index: BigInt(index),
        data: '0x',
      }),
    ),
    log(C.negRiskAdapter.address, PUBLISHED.negRisk, 'PositionsConverted', {
      stakeholder: T,
      marketId: FED,
      indexSet: 0b0101n,
      amount: 10_000_000n,
    }),
  ];
  const released = gate.admit(interpretLogs(logs, new Map([[BLOCK, TIME_MS]]), book).records, context);
  expect(gate.pending).toEqual([]);
  const [event] = released.ledger;
  expect([event!.kind, event!.wallet, event!.ledger_group, event!.market_id, event!.neg_risk]).toEqual(['conversion', T, FED, '', true]);
  expect(event!.conversion).toEqual({
    neg_risk_market_id: FED,
    index_set: '5',
    amount_micro: '10000000',
    question_count: 4,
    fee_bips: 0,
    questions: fedChair.slice(0, 4).map((m, i) => ({
      question_index: i,
      market_id: m.market_id,
      outcomes: m.outcomes,
      outcome_token_ids: m.outcome_token_ids,
      yes_index: 0,
    })),
    questions_from: 'chain',
    fee_from: 'chain',
  });
});

test('a neg-risk split by the user through the adapter (its CTF leg is the adapter own)', () => {
  const result = events([
    log(C.conditionalTokens.address, PUBLISHED.ctf, 'PositionSplit', {
      stakeholder: C.negRiskAdapter.address,
      collateralToken: C.wrappedCollateral,
      parentCollectionId: zeroHash,
      conditionId: newsom.market_id,
      partition: [1n, 2n],
      amount: 7_000_000n,
    }),
    log(C.negRiskAdapter.address, PUBLISHED.negRisk, 'PositionSplit', {
      stakeholder: T,
      conditionId: newsom.market_id,
      amount: 7_000_000n,
    }),
  ]);
  expect(result.map((e) => [e.kind, e.contract, e.wallet, e.ledger_group])).toEqual([
    ['split', C.negRiskAdapter.address, T, newsom.neg_risk_market_id],
  ]);
});

test('resolution: payouts as fractions, the winner, and the neg-risk market id from the question id', () => {
  const resolution = log(C.conditionalTokens.address, PUBLISHED.ctf, 'ConditionResolution', {
    conditionId: newsom.market_id,
    oracle: C.negRiskAdapter.address,
    questionId: newsom.question_id,
    outcomeSlotCount: 2n,
    payoutNumerators: [0n, 1n],
  });
  const split = log(C.conditionalTokens.address, PUBLISHED.ctf, 'ConditionResolution', {
    conditionId: ceasefire.market_id,
    oracle: T,
    questionId: hash('q'),
    outcomeSlotCount: 2n,
    payoutNumerators: [1n, 1n],
  });
  const { records } = interpretLogs([resolution, split], new Map([[BLOCK, TIME_MS]]), book);
  const [won, halves] = records.map((r) => toResolutionEvent(r as Extract<SettlementRecord, { kind: 'resolution' }>, context));
  expect([won!.market_id, won!.payouts, won!.winning_outcome_index, won!.neg_risk_market_id, won!.payout_numerators]).toEqual([
    newsom.market_id,
    [0, 1],
    1,
    newsom.neg_risk_market_id,
    ['0', '1'],
  ]);
  expect([halves!.payouts, halves!.winning_outcome_index, halves!.neg_risk_market_id]).toEqual([[0.5, 0.5], -1, null]);
});

test('a v1 operator fill without OrdersMatched is its own match (taker); refused logs carry a reason', () => {
  const operator = log(C.exchangeV1.address, PUBLISHED.v1, 'OrderFilled', {
    orderHash: hash('o'),
    maker: M,
    taker: T,
    makerAssetId: 0n,
    takerAssetId: YES,
    makerAmountFilled: 1_000_000n,
    takerAmountFilled: 2_000_000n,
    fee: 0n,
  });
  expect(events([operator]).map((e) => [e.fill?.role, e.fill?.price])).toEqual([['taker', 0.5]]);
  const both = log(C.exchangeV1.address, PUBLISHED.v1, 'OrderFilled', {
    orderHash: hash('x'),
    maker: M,
    taker: T,
    makerAssetId: YES,
    takerAssetId: NO,
    makerAmountFilled: 1n,
    takerAmountFilled: 1n,
    fee: 0n,
  });
  const huge = log(C.exchangeV2.address, PUBLISHED.v2, 'OrderFilled', {
    orderHash: hash('h'),
    maker: M,
    taker: T,
    side: 0,
    tokenId: KESSLER,
    makerAmountFilled: 2n ** 70n,
    takerAmountFilled: 1n,
    fee: 0n,
    builder: zeroHash,
    metadata: zeroHash,
  });
  // Exchange v3 (Polymarket V2 protocol) emits the same topic0 for a different position contract: not ours.
  const v3 = { ...huge, address: '0xe3333700ca9d93003f00f0f71f8515005f6c00aa' };
  const truncated = { ...huge, data: huge.data.slice(0, 66) };
  const { rejected } = interpretLogs([both, huge, v3, truncated], new Map([[BLOCK, TIME_MS]]), book);
  expect(rejected.map((r) => r.reason.replace(/ .*? (does not decode|of an)/, ' $1'))).toEqual([
    expect.stringContaining('neither or both asset ids are collateral'),
    expect.stringContaining('collateral out of range'),
    expect.stringContaining('unconfigured contract 0xe3333700'),
    expect.stringContaining('does not decode'),
  ]);
});

test('prices from exact amounts: 6 decimals, half up', () => {
  expect(priceOf('58800000', '100000000')).toBe(0.588);
  expect(priceOf('1', '3')).toBe(0.333333);
  expect(priceOf('2', '3')).toBe(0.666667);
  expect(priceOf('0', '5')).toBe(0);
});

const single = (operator: string, from: string, to: string, id: bigint, value: bigint, txHash = tx(20)) =>
  log(C.conditionalTokens.address, PUBLISHED.ctf, 'TransferSingle', { operator, from, to, id, value }, txHash);
const R = '0x3333333333333333333333333333333333333333';

test('ERC-1155 transfers between wallets: a TransferSingle is one transfer of the sender, keyed by the token ledger group', () => {
  const logged = single(T, T, R, YES, 25_000_000n);
  const [event] = events([logged]);
  expect(event).toMatchObject({
    kind: 'transfer',
    event_id: `137:${tx(20)}:${logged.logIndex}`,
    wallet: T,
    ledger_group: ceasefire.market_id,
    market_id: ceasefire.market_id,
    fill: null,
    transfer: { from: T, to: R, asset_id: YES.toString(), outcome: 'Yes', outcome_index: 0, shares_micro: '25000000' },
  });
  // Transfer legs are the shares' topic0 in the CTF's eth_getLogs, unless turned off.
  expect(book.logQuery(BLOCK).topics).toEqual(expect.arrayContaining([TOPIC0.ctfTransferSingle, TOPIC0.ctfTransferBatch]));
  const off = new ContractBook(C, { readTransfers: false });
  expect(off.logQuery(BLOCK).topics).not.toContain(TOPIC0.ctfTransferSingle);
  expect(off.logQuery(BLOCK).topics).not.toContain(TOPIC0.ctfTransferBatch);
});

test('a TransferBatch is one transfer per token, each with its place in the batch in its event id and its own ledger group', () => {
  const logged = log(
    C.conditionalTokens.address,
    PUBLISHED.ctf,
    'TransferBatch',
    { operator: T, from: T, to: R, ids: [NO, NEWSOM_YES, YES], values: [1_000_000n, 2_000_000n, 0n] },
    tx(21),
  );
  const result = events([logged]);
  expect(
    result.map((e) => [e.event_id, e.ledger_group, e.transfer?.asset_id, e.transfer?.outcome_index, e.transfer?.shares_micro]),
  ).toEqual([
    [`137:${tx(21)}:${logged.logIndex}:0`, ceasefire.market_id, NO.toString(), 1, '1000000'],
    [`137:${tx(21)}:${logged.logIndex}:1`, newsom.neg_risk_market_id, NEWSOM_YES.toString(), 0, '2000000'],
  ]);
});

test('transfers from or to a system address, or made by one as operator, are legs of other events and not read as transfers', () => {
  const zero = '0x0000000000000000000000000000000000000000';
  const legs = [
    single(T, zero, R, YES, 1n), // mint (a split)
    single(T, T, zero, YES, 1n), // burn (a merge, a redemption)
    single(C.exchangeV2.address, T, C.exchangeV2.address, YES, 1n), // a fill's maker leg
    single(C.exchangeV1.address, C.exchangeV1.address, R, YES, 1n), // a fill's taker leg
    single(C.exchangeV1.address, T, R, YES, 1n), // v1 fillOrder: the operator's shares to the maker, the exchange as operator
    single(C.negRiskExchangeV2.address, T, R, NEWSOM_YES, 1n),
    single(C.negRiskAdapter.address, C.negRiskAdapter.address, R, NEWSOM_YES, 1n), // a neg-risk split or conversion
    single(T, T, C.negRiskAdapter.address, NEWSOM_YES, 1n),
    single(C.collateralAdapters[1]!, C.collateralAdapters[1]!, R, YES, 1n), // a split through a collateral adapter
    single(T, T, C.collateralAdapters[2]!, YES, 1n),
    single(T, C.conditionalTokens.address, R, YES, 1n),
    single(T, T, C.wrappedCollateral, YES, 1n),
    single(T, T, C.usdcE, YES, 1n),
    single(T, T, C.pusd, YES, 1n),
    single(T, T, T, YES, 1n), // to oneself
    single(T, T, R, YES, 0n), // nothing moved
  ];
  expect(events(legs)).toEqual([]);
  // The operator may be an approved third party: the shares still move between the two wallets.
  expect(events([single(M, T, R, YES, 5n)]).map((e) => [e.wallet, e.transfer?.to])).toEqual([[T, R]]);
});

test('a transfer of a token the catalog does not know waits, and holds both wallets later records behind it', () => {
  const unknown = 123_456_789n;
  const interpreted = interpretLogs(
    [
      single(T, T, R, unknown, 1_000_000n, tx(30)),
      log(
        C.exchangeV2.address,
        PUBLISHED.v2,
        'OrderFilled',
        {
          orderHash: hash('r'),
          maker: R,
          taker: C.exchangeV2.address,
          side: 1,
          tokenId: YES,
          makerAmountFilled: 1_000_000n,
          takerAmountFilled: 500_000n,
          fee: 0n,
          builder: zeroHash,
          metadata: zeroHash,
        },
        tx(31),
      ),
      single(M, M, M.replace('2', '4'), YES, 1_000_000n, tx(32)),
    ],
    new Map([[BLOCK, TIME_MS]]),
    book,
  );
  const gate = new SettlementGate(catalog, new NegRiskBook(C.negRiskAdapter.address), config.chain.holdMaxMs);
  const released = gate.admit(interpreted.records, context);
  // The receiver's later fill waits behind the held transfer; another wallet's transfer goes out.
  expect(released.ledger.map((e) => [e.kind, e.wallet])).toEqual([['transfer', M]]);
  expect(gate.pending.map((r) => r.kind)).toEqual(['transfer', 'fill']);
  expect(gate.unknownIds().tokens).toEqual([unknown.toString()]);
  const outcome = toLedgerEvent(
    interpreted.records[0] as Extract<SettlementRecord, { kind: 'transfer' }>,
    catalog,
    context,
    new NegRiskBook(C.negRiskAdapter.address),
  );
  expect(outcome).toEqual({ status: 'unknown', tokenId: unknown.toString() });
});

test('a TransferBatch whose ids and values differ in length is refused with a reason', () => {
  const bad = log(C.conditionalTokens.address, PUBLISHED.ctf, 'TransferBatch', { operator: T, from: T, to: R, ids: [YES], values: [1n] });
  const data = encodeAbiParameters([{ type: 'uint256[]' }, { type: 'uint256[]' }], [[YES, NO], [1n]]).toLowerCase();
  const interpreted = interpretLogs([{ ...bad, data }], new Map([[BLOCK, TIME_MS]]), book);
  expect(interpreted.records).toEqual([]);
  expect(interpreted.rejected[0]?.reason).toMatch(/TransferBatch has 2 ids and 1 values/);
});
