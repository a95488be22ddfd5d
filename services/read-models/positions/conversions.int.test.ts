/**
 * Neg-risk conversions from the adapter's logs to the ledger (R3/R5): the chain source's gate holds a
 * conversion until its market's questions as of the conversion are known (the chain's MarketPrepared
 * and QuestionPrepared, or for a market prepared before the source's first block, the conversion's own
 * transaction: the adapter's CTF splits of the questions it gives YES of) and the catalog names their
 * tokens; the ledger prices it from the event alone. Nothing waits past the hold limit: then the
 * catalog's questions of the market price it, or it is dead-lettered, and its wallet's later records go on.
 * Every figure is computed by hand in the comments (USDC). The markets table knows only some questions
 * on purpose: the ledger must not count k or the YES legs from it.
 */
import { ledgerFigures } from '../../../test/support/ledger-builders.js';
import { type Abi, type AbiEvent, encodeAbiParameters, encodeEventTopics, getAbiItem, type Hex, zeroHash } from 'viem';
import { conditionalTokensAbi, negRiskAdapterAbi } from '../../chain/abis.js';
import { ChainCatalog } from '../../chain/catalog.js';
import { ContractBook } from '../../chain/contract-book.js';
import { NegRiskBook, negRiskConditionId, negRiskQuestionId } from '../../chain/neg-risk-book.js';
import { SettlementGate } from '../../chain/settlement-gate.js';
import { interpretLogs, walletsOf } from '../../chain/settlement-records.js';
import { loadConfig } from '../../config.js';
import type { ChainLedgerEvent, MarketUpserted } from '../../events/types.generated.js';
import type { ChainLog } from '../../ports/chain-reader.js';
import { marketUpserted, outcomeFill, outcomeToken } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { fromChain, type LedgerEvent } from './ledger-events.js';
import { PositionLedger } from './ledger.js';

const C = loadConfig({}).chain.contracts;
const ADAPTER = C.negRiskAdapter.address;
const book = new ContractBook(C);
const context = { chainId: 137, source: 'polymarket' as const, nowMs: 0, negRiskAdapter: ADAPTER };
/** CHAIN_HOLD_MAX_MS of these tests. */
const HOLD_MAX_MS = 60_000;
const T = Date.UTC(2026, 3, 3, 12);
const W = (c: string) => `0x${c.repeat(40)}`;

/** A neg-risk market of the adapter (zero low byte) and the condition of its question i, as the adapter derives it. */
const marketId = (n: number) => `0x${n.toString(16).padStart(62, '0')}00`;
const questionCondition = (market: string, index: number) => negRiskConditionId(ADAPTER, negRiskQuestionId(market, index));
const catalogEntry = (market: string, index: number): MarketUpserted => {
  const id = questionCondition(market, index);
  return marketUpserted({
    event_id: `${id}:1`,
    market_id: id,
    outcome_token_ids: [outcomeToken(id, 0), outcomeToken(id, 1)],
    neg_risk: true,
    neg_risk_market_id: market,
    question_id: negRiskQuestionId(market, index),
  });
};
const YES = (market: string, i: number) => outcomeToken(questionCondition(market, i), 0);
const NO = (market: string, i: number) => outcomeToken(questionCondition(market, i), 1);

let blockNumber = 60_000_000;
let logIndex = 0;
const blockTimes = new Map<number, number>();
/** The adapter's log of `eventName`, in a block and transaction of its own unless `block` and `tx` are given. */
function adapterLog(eventName: string, args: Record<string, unknown>, block = ++blockNumber, tx?: string): ChainLog {
  return contractLog(ADAPTER, negRiskAdapterAbi, eventName, args, block, tx);
}
function contractLog(address: string, abi: Abi, eventName: string, args: Record<string, unknown>, block: number, tx?: string): ChainLog {
  const event = getAbiItem({ abi, name: eventName as never }) as AbiEvent;
  const indexed = Object.fromEntries(event.inputs.filter((i) => i.indexed).map((i) => [i.name, args[i.name as string]]));
  const data = event.inputs.filter((i) => !i.indexed);
  blockTimes.set(block, T + (block - 60_000_000) * 1_000);
  return {
    address: address.toLowerCase(),
    topics: (encodeEventTopics({ abi: [event], eventName, args: indexed } as never) as Hex[]).map((t) => t.toLowerCase()),
    data: encodeAbiParameters(
      data,
      data.map((i) => args[i.name as string]),
    ).toLowerCase(),
    blockNumber: BigInt(block),
    blockHash: `0x${block.toString(16).padStart(64, 'b')}`,
    transactionHash: tx ?? `0x${(logIndex + 1).toString(16).padStart(64, 'c')}`,
    logIndex: logIndex++,
    removed: false,
  };
}
const prepareMarket = (market: string, feeBips = 0n) =>
  adapterLog('MarketPrepared', { marketId: market, oracle: W('0'), feeBips, data: '0x' });
const prepareQuestion = (market: string, index: number) =>
  adapterLog('QuestionPrepared', { marketId: market, questionId: negRiskQuestionId(market, index), index: BigInt(index), data: '0x' });
const convert = (wallet: string, market: string, indexSet: bigint, shares: number) =>
  adapterLog('PositionsConverted', { stakeholder: wallet, marketId: market, indexSet, amount: BigInt(shares * 1e6) });

/**
 * A conversion as NegRiskAdapter.convertPositions logs it: in one transaction, the adapter's CTF split
 * of each question it gives YES of (`splits`: those questions, each of `splitShares`), then
 * PositionsConverted.
 */
function convertWithSplits(wallet: string, market: string, indexSet: bigint, shares: number, splits: number[], splitShares = shares) {
  const block = ++blockNumber;
  const hash = `0x${block.toString(16).padStart(64, 'd')}`;
  return [
    ...splits.map((i) =>
      contractLog(
        C.conditionalTokens.address,
        conditionalTokensAbi,
        'PositionSplit',
        {
          stakeholder: ADAPTER,
          collateralToken: C.wrappedCollateral,
          parentCollectionId: zeroHash,
          conditionId: questionCondition(market, i),
          partition: [1n, 2n],
          amount: BigInt(splitShares * 1e6),
        },
        block,
        hash,
      ),
    ),
    adapterLog('PositionsConverted', { stakeholder: wallet, marketId: market, indexSet, amount: BigInt(shares * 1e6) }, block, hash),
  ];
}

let tx = 50_000;
/** A fill of the wallet's NO of question i, as the ledger receives it. */
function buyNo(wallet: string, market: string, index: number, shares: number, price: number): ChainLedgerEvent {
  tx += 1;
  const block = ++blockNumber;
  const fill = outcomeFill({
    tx,
    block,
    at: T + (block - 60_000_000) * 1_000,
    wallet,
    market: questionCondition(market, index),
    index: 1,
    side: 'buy',
    shares,
    price,
  });
  return { ...fill, ledger_group: market, neg_risk: true };
}

let h: ProjectionHarness;
let ledger: PositionLedger;
const apply = (events: ChainLedgerEvent[]) => ledger.apply(events.map(fromChain) as LedgerEvent[]);

function newGate(catalog: ChainCatalog, held: SettlementGate['pending'] = []) {
  return new SettlementGate(catalog, new NegRiskBook(ADAPTER), HOLD_MAX_MS, held);
}
const admit = (gate: SettlementGate, logs: ChainLog[], nowMs = 0) =>
  gate.admit(interpretLogs(logs, blockTimes, book).records, { ...context, nowMs });

const figures = (wallet: string) => ledgerFigures(h.store, wallet);

const PARTIAL = marketId(1);
const LATE = marketId(2);
const SMALL = marketId(3);
const FEE = marketId(4);
const OLD = marketId(5);
const UNFIT = marketId(6);
const STUCK = marketId(7);
const NOWHERE = marketId(8);
const REPRICED = marketId(9);

beforeAll(async () => {
  h = await projectionHarness('conversions');
  // Gamma lists questions 0 and 2 of PARTIAL only; the others are not in the markets table at all.
  await h.given({ markets: [catalogEntry(PARTIAL, 0), catalogEntry(PARTIAL, 2), catalogEntry(REPRICED, 0), catalogEntry(REPRICED, 2)] });
  ledger = new PositionLedger(h.store);
}, 120_000);
afterAll(() => h.close());

test('R3/R5: the catalog knows 2 of 4 questions: the conversion waits, then is applied with k from its index set and YES of the chain questions', async () => {
  const wallet = W('a');
  const catalog = new ChainCatalog();
  catalog.add([catalogEntry(PARTIAL, 0), catalogEntry(PARTIAL, 2)]);
  const gate = newGate(catalog);
  // 100 NO of questions 0 and 1 for 30 each (cost 60).
  await apply([buyNo(wallet, PARTIAL, 0, 100, 0.3), buyNo(wallet, PARTIAL, 1, 100, 0.3)]);
  const prepared = [prepareMarket(PARTIAL), ...[0, 1, 2, 3].map((i) => prepareQuestion(PARTIAL, i))];
  const first = admit(gate, [...prepared, convert(wallet, PARTIAL, 0b0011n, 100)]);
  // Questions 1 and 3 have no tokens in the catalog yet: nothing goes out, and the lookup is told which.
  expect(first.ledger).toEqual([]);
  expect(gate.waitingConversions()).toEqual({ count: 1, oldestBlockTimeMs: blockTimes.get(blockNumber), unfit: 0 });
  expect(gate.unknownIds().conditions.sort()).toEqual([questionCondition(PARTIAL, 1), questionCondition(PARTIAL, 3)].sort());

  catalog.add([catalogEntry(PARTIAL, 1), catalogEntry(PARTIAL, 3)]);
  const released = admit(gate, []).ledger;
  expect(released.map((e) => [e.kind, e.conversion?.question_count])).toEqual([['conversion', 4]]);
  expect(gate.waitingConversions()).toEqual({ count: 0, oldestBlockTimeMs: null, unfit: 0 });
  await apply(released);
  // k = 2: (2 - 1) x 100 = 100 collateral for NO that cost 60: 40 realized; 100 YES of questions 2
  // and 3 at max(60 - 100, 0) = 0. The markets table still lists 2 and 0 only: it plays no part.
  const f = await figures(wallet);
  expect(f.realized).toBe(40);
  expect(f.byToken[NO(PARTIAL, 0)]).toMatchObject({ qty: 0, cost: 0 });
  expect(f.byToken[NO(PARTIAL, 1)]).toMatchObject({ qty: 0, cost: 0 });
  expect(f.byToken[YES(PARTIAL, 2)]).toMatchObject({ qty: 100, cost: 0 });
  expect(f.byToken[YES(PARTIAL, 3)]).toMatchObject({ qty: 100, cost: 0 });
  // Redelivered (a restart before the consumer's commit): applied once.
  await apply(released);
  expect(await figures(wallet)).toEqual(f);
});

test('a conversion read before its market was prepared, its transaction showing no splits, waits; a question prepared after it is not part of it', async () => {
  const wallet = W('b');
  const catalog = new ChainCatalog();
  catalog.add([0, 1, 2, 3].map((i) => catalogEntry(LATE, i)));
  const gate = newGate(catalog);
  // The preparations are older than the conversions but reach the gate after them (a backfill's range).
  const market = prepareMarket(LATE);
  const questions = [0, 1, 2].map((i) => prepareQuestion(LATE, i));
  const noBuy = buyNo(wallet, LATE, 0, 50, 0.4);
  const conversion = convert(wallet, LATE, 0b001n, 50);
  const second = convert(wallet, LATE, 0b010n, 10);
  const afterIt = prepareQuestion(LATE, 3);
  expect(admit(gate, [conversion, second]).ledger).toEqual([]);
  // Without the adapter's splits, neither transaction fits a market of 2 or more questions.
  expect(gate.waitingConversions()).toMatchObject({ count: 2, unfit: 2 });
  const released = admit(gate, [market, ...questions, afterIt]).ledger;
  // Both go out in chain order; each has the 3 questions prepared before it, not question 3.
  expect(released.map((e) => [e.conversion?.index_set, e.conversion?.question_count])).toEqual([
    ['1', 3],
    ['2', 3],
  ]);
  await apply([noBuy, released[0]!]);
  // k = 1: no collateral; the NO cost 20 goes to 50 YES of questions 1 and 2, 10 each; none of question 3.
  const f = await figures(wallet);
  expect(f.realized).toBe(0);
  expect(f.byToken[NO(LATE, 0)]).toMatchObject({ qty: 0, cost: 0 });
  expect(f.byToken[YES(LATE, 1)]).toMatchObject({ qty: 50, cost: 10 });
  expect(f.byToken[YES(LATE, 2)]).toMatchObject({ qty: 50, cost: 10 });
  expect(f.byToken[YES(LATE, 3)]).toBeUndefined();
});

test('k = 4 of 4: (k - 1) x amount collateral and no YES legs', async () => {
  const wallet = W('c');
  const catalog = new ChainCatalog();
  catalog.add([0, 1, 2, 3].map((i) => catalogEntry(SMALL, i)));
  const gate = newGate(catalog);
  await apply([0, 1, 2, 3].map((i) => buyNo(wallet, SMALL, i, 100, 0.7)));
  const released = admit(gate, [
    prepareMarket(SMALL),
    ...[0, 1, 2, 3].map((i) => prepareQuestion(SMALL, i)),
    convert(wallet, SMALL, 0b1111n, 100),
  ]).ledger;
  await apply(released);
  // NO cost 4 x 70 = 280; 3 x 100 = 300 paid: 20 realized, nothing held.
  const f = await figures(wallet);
  expect(f.realized).toBe(20);
  expect(Object.values(f.byToken).map((t) => t.qty)).toEqual([0, 0, 0, 0]);
});

test('the market fee: amount x feeBips / 10,000 of each YES leg and of each collateral unit stays with the adapter', async () => {
  const wallet = W('d');
  const catalog = new ChainCatalog();
  catalog.add([0, 1, 2].map((i) => catalogEntry(FEE, i)));
  const gate = newGate(catalog);
  await apply([buyNo(wallet, FEE, 0, 100, 0.8), buyNo(wallet, FEE, 1, 100, 0.8)]);
  const released = admit(gate, [
    prepareMarket(FEE, 100n),
    ...[0, 1, 2].map((i) => prepareQuestion(FEE, i)),
    convert(wallet, FEE, 0b011n, 100),
  ]).ledger;
  expect(released[0]?.conversion?.fee_bips).toBe(100);
  await apply(released);
  // 1 % of 100 = 1: 99 collateral (k - 1 = 1) and 99 YES of question 2. NO cost 160, less 99 = 61 for
  // the YES; nothing realized; the collateral fee of 1 is reported on the first NO leg.
  const f = await figures(wallet);
  expect(f.realized).toBe(0);
  expect(f.byToken[NO(FEE, 0)]).toMatchObject({ qty: 0, cost: 0, fees: 1 });
  expect(f.byToken[YES(FEE, 2)]).toMatchObject({ qty: 99, cost: 61 });
});

test('a market prepared before the source read the chain: the conversion is priced from its own transaction (k, count, YES legs, collateral)', async () => {
  const wallet = W('e');
  const catalog = new ChainCatalog();
  // Gamma lists 6 questions; the market had 5 when converted (question 5 came later).
  catalog.add([0, 1, 2, 3, 4, 5].map((i) => catalogEntry(OLD, i)));
  const gate = newGate(catalog);
  await apply([0, 2, 4].map((i) => buyNo(wallet, OLD, i, 100, 0.8)));
  // NO of questions 0, 2, 4 (k = 3); the adapter split questions 1 and 3: 3 + 2 = 5 questions.
  const logs = convertWithSplits(wallet, OLD, 0b10101n, 100, [1, 3]);
  const released = admit(gate, logs).ledger;
  expect(released.map((e) => e.conversion && [e.conversion.question_count, e.conversion.questions_from, e.conversion.fee_from])).toEqual([
    [5, 'transaction', 'assumed'],
  ]);
  expect(released[0]?.conversion?.questions.map((q) => q.market_id)).toEqual([0, 1, 2, 3, 4].map((i) => questionCondition(OLD, i)));
  expect(gate.counts).toMatchObject({ conversionsFromTransaction: 1, conversionFeesAssumed: 1 });
  expect(gate.pending).toEqual([]);
  await apply(released);
  // NO cost 3 x 80 = 240; (k - 1) x 100 = 200 collateral; the rest, 40, is the cost of 100 YES of
  // questions 1 and 3 (20 each); nothing realized; no YES of question 5.
  const f = await figures(wallet);
  expect(f.realized).toBe(0);
  for (const i of [0, 2, 4]) expect(f.byToken[NO(OLD, i)]).toMatchObject({ qty: 0, cost: 0 });
  expect(f.byToken[YES(OLD, 1)]).toMatchObject({ qty: 100, cost: 20 });
  expect(f.byToken[YES(OLD, 3)]).toMatchObject({ qty: 100, cost: 20 });
  expect(f.byToken[YES(OLD, 5)]).toBeUndefined();
  // Read again (a restart before the checkpoint) and redelivered: the same event, applied once.
  expect(admit(newGate(catalog), logs).ledger).toEqual(released);
  await apply(released);
  expect(await figures(wallet)).toEqual(f);
});

test("splits that do not fit the index set keep a conversion waiting (counted), with its wallet's later records, until the chain tells", async () => {
  const wallet = W('f');
  const catalog = new ChainCatalog();
  catalog.add([0, 1, 2].map((i) => catalogEntry(UNFIT, i)));
  catalog.add([0, 1, 2, 3, 4].map((i) => catalogEntry(OLD, i)));
  const gate = newGate(catalog);
  const preparations = [prepareMarket(UNFIT), ...[0, 1, 2].map((i) => prepareQuestion(UNFIT, i))];
  // NO of question 0, but the transaction shows a split of question 2 where question 1 must come first.
  const unfit = convertWithSplits(wallet, UNFIT, 0b001n, 50, [2]);
  // Of another amount than converted: not the conversion's split either.
  const otherAmount = convertWithSplits(W('9'), UNFIT, 0b001n, 50, [1, 2], 49);
  const later = convertWithSplits(wallet, OLD, 0b00001n, 10, [1, 2, 3, 4]);
  expect(admit(gate, [...unfit, ...otherAmount, ...later]).ledger).toEqual([]);
  expect(gate.waitingConversions()).toMatchObject({ count: 3, unfit: 2 });
  expect(gate.counts.conversionsFromTransaction).toBe(0);
  // The market's preparations (read late, before the conversions on the chain) price both; the later
  // record of the wallet follows in chain order.
  const released = admit(gate, preparations).ledger;
  expect(released.map((e) => [e.wallet, e.ledger_group, e.conversion?.question_count, e.conversion?.questions_from])).toEqual([
    [wallet, UNFIT, 3, 'chain'],
    [W('9'), UNFIT, 3, 'chain'],
    [wallet, OLD, 5, 'transaction'],
  ]);
  expect(gate.waitingConversions()).toEqual({ count: 0, oldestBlockTimeMs: null, unfit: 0 });
});

test("the hold limit: a stuck conversion goes out with the catalog's questions or is dead-lettered, and its wallet's later records flow", async () => {
  const priced = W('1');
  const unpriced = W('2');
  const catalog = new ChainCatalog();
  catalog.add([0, 1, 2].map((i) => catalogEntry(STUCK, i)));
  catalog.add([0, 1, 2, 3, 4].map((i) => catalogEntry(OLD, i)));
  let gate = newGate(catalog);
  const t0 = T;
  // The NO it converts, bought before the conversion (its blocks come first).
  const bought = [buyNo(priced, STUCK, 0, 10, 0.5), buyNo(priced, STUCK, 1, 10, 0.5)];
  const logs = [
    // Neither the chain (no preparations read, splits that do not fit) nor anything else tells these.
    ...convertWithSplits(priced, STUCK, 0b011n, 10, [2], 9),
    ...convertWithSplits(unpriced, NOWHERE, 0b011n, 10, [2], 9),
    ...convertWithSplits(priced, OLD, 0b00010n, 10, [0, 2, 3, 4]),
    ...convertWithSplits(unpriced, OLD, 0b00100n, 10, [0, 1, 3, 4]),
  ];
  expect(admit(gate, logs, t0).ledger).toEqual([]);
  expect(gate.holdLimitReached(t0 + HOLD_MAX_MS - 1)).toBe(false);
  // A restart: the held records keep when they were first held.
  gate = newGate(catalog, JSON.parse(JSON.stringify(gate.pending)));
  expect(admit(gate, [], t0 + HOLD_MAX_MS - 1).ledger).toEqual([]);
  expect(gate.holdLimitReached(t0 + HOLD_MAX_MS)).toBe(true);
  const released = admit(gate, [], t0 + HOLD_MAX_MS);
  expect(released.ledger.map((e) => [e.wallet, e.ledger_group, e.conversion?.question_count, e.conversion?.questions_from])).toEqual([
    [priced, STUCK, 3, 'catalog'],
    [priced, OLD, 5, 'transaction'],
    [unpriced, OLD, 5, 'transaction'],
  ]);
  expect(released.rejected.map((r) => [walletsOf(r.record)[0], r.reason])).toEqual([
    [
      unpriced,
      expect.stringMatching(/^conversion held 60 s \(limit 60 s\): neither the chain .* nor the catalog tell market 0x0+800's questions$/),
    ],
  ]);
  expect(gate.counts).toMatchObject({ releasedAtHoldLimit: 1, deadLetteredAtHoldLimit: 1 });
  expect(gate.pending).toEqual([]);
  // The released one is priced as the catalog's 3 questions: k = 2, 10 collateral, 10 YES of question 2.
  await apply([...bought, released.ledger[0]!]);
  const f = await figures(priced);
  expect(f.byToken[YES(STUCK, 2)]).toMatchObject({ qty: 10, cost: 0 });
  expect(f.realized).toBe(0);
});

test('a rewind that re-prices a conversion rebuilds it from its own rows: the markets table, listing 2 of its 4 questions, gives neither k nor the YES legs', async () => {
  const wallet = W('7');
  const catalog = new ChainCatalog();
  catalog.add([0, 1, 2, 3].map((i) => catalogEntry(REPRICED, i)));
  const gate = newGate(catalog);
  const first = buyNo(wallet, REPRICED, 0, 100, 0.3);
  // Older than the conversion but applied after it (a backfill's range): 100 more NO of question 0 at 0.6.
  const late = buyNo(wallet, REPRICED, 0, 100, 0.6);
  const released = admit(gate, [
    prepareMarket(REPRICED),
    ...[0, 1, 2, 3].map((i) => prepareQuestion(REPRICED, i)),
    convert(wallet, REPRICED, 0b0001n, 100),
  ]).ledger;
  await apply([first, ...released]);
  // k = 1: the NO cost 30 becomes the cost of 100 YES of questions 1, 2 and 3: 10 each.
  const before = await figures(wallet);
  for (const i of [1, 2, 3]) expect(before.byToken[YES(REPRICED, i)]).toMatchObject({ qty: 100, cost: 10 });
  await apply([late]);
  // 200 NO for 90 before the conversion: the 100 converted cost 45, 15 for each YES; the 100 left keep 45.
  // Rebuilt from the markets table, the conversion had 1 YES leg (question 2) at 45 and left the others at 10.
  const f = await figures(wallet);
  expect(f.byToken[NO(REPRICED, 0)]).toMatchObject({ qty: 100, cost: 45 });
  for (const i of [1, 2, 3]) expect(f.byToken[YES(REPRICED, i)]).toMatchObject({ qty: 100, cost: 15 });
  expect(f.realized).toBe(0);
  // Applied again (a redelivery): nothing changes.
  await apply([late, ...released]);
  expect(await figures(wallet)).toEqual(f);
});
