/**
 * Neg-risk conversions from the adapter's logs to the ledger (R3/R5): the chain source's gate holds a
 * conversion until the chain has prepared its market's questions (MarketPrepared, QuestionPrepared) as
 * of the conversion and the catalog names their tokens; the ledger prices it from the event alone.
 * Every figure is computed by hand in the comments (USDC). The markets table knows only some questions
 * on purpose: the ledger must not count k or the YES legs from it.
 */
import { type AbiEvent, encodeAbiParameters, encodeEventTopics, getAbiItem, type Hex } from 'viem';
import { negRiskAdapterAbi } from '../../chain/abis.js';
import { ChainCatalog } from '../../chain/catalog.js';
import { ContractBook } from '../../chain/contract-book.js';
import { NegRiskBook, negRiskConditionId, negRiskQuestionId } from '../../chain/neg-risk-book.js';
import { SettlementGate } from '../../chain/settlement-gate.js';
import { interpretLogs } from '../../chain/settlement-records.js';
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
const T = Date.UTC(2026, 3, 3, 12);
const W = (c: string) => `0x${c.repeat(40)}`;
const usdc = (micro: string | bigint) => Number(micro) / 1e6;

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
/** The adapter's log of `eventName`, in a block of its own unless `block` is given. */
function adapterLog(eventName: string, args: Record<string, unknown>, block = ++blockNumber): ChainLog {
  const event = getAbiItem({ abi: negRiskAdapterAbi, name: eventName as never }) as AbiEvent;
  const indexed = Object.fromEntries(event.inputs.filter((i) => i.indexed).map((i) => [i.name, args[i.name as string]]));
  const data = event.inputs.filter((i) => !i.indexed);
  blockTimes.set(block, T + (block - 60_000_000) * 1_000);
  return {
    address: ADAPTER.toLowerCase(),
    topics: (encodeEventTopics({ abi: [event], eventName, args: indexed } as never) as Hex[]).map((t) => t.toLowerCase()),
    data: encodeAbiParameters(
      data,
      data.map((i) => args[i.name as string]),
    ).toLowerCase(),
    blockNumber: BigInt(block),
    blockHash: `0x${block.toString(16).padStart(64, 'b')}`,
    transactionHash: `0x${(logIndex + 1).toString(16).padStart(64, 'c')}`,
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

function newGate(catalog: ChainCatalog) {
  return new SettlementGate(catalog, new NegRiskBook(ADAPTER));
}
const admit = (gate: SettlementGate, logs: ChainLog[]) => gate.admit(interpretLogs(logs, blockTimes, book).records, context);

async function figures(wallet: string) {
  const rows = await h.rows<{ asset_id: string; qty: string; realized: string; cash: string; fees: string }>(
    `SELECT asset_id, toString(sum(qty_delta * sign)) AS qty, toString(sum(realized * sign)) AS realized, toString(sum(cash * sign)) AS cash,
            toString(sum(toInt64(fee_micro) * sign)) AS fees
       FROM position_ledger WHERE wallet = {wallet:String} GROUP BY asset_id ORDER BY asset_id`,
    { wallet },
  );
  const byToken = Object.fromEntries(
    rows.map((r) => [
      r.asset_id,
      // realized + cost basis = net cash of the tracked shares, so the basis is realized - cash.
      { qty: usdc(r.qty), realized: usdc(r.realized), cost: usdc(BigInt(r.realized) - BigInt(r.cash)), fees: usdc(r.fees) },
    ]),
  );
  return { byToken, realized: usdc(rows.reduce((sum, r) => sum + BigInt(r.realized), 0n)) };
}

const PARTIAL = marketId(1);
const LATE = marketId(2);
const SMALL = marketId(3);
const FEE = marketId(4);

beforeAll(async () => {
  h = await projectionHarness('conversions');
  // Gamma lists questions 0 and 2 of PARTIAL only; the others are not in the markets table at all.
  await h.given({ markets: [catalogEntry(PARTIAL, 0), catalogEntry(PARTIAL, 2)] });
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
  expect(gate.waitingConversions()).toEqual({ count: 1, oldestBlockTimeMs: blockTimes.get(blockNumber) });
  expect(gate.unknownIds().conditions.sort()).toEqual([questionCondition(PARTIAL, 1), questionCondition(PARTIAL, 3)].sort());

  catalog.add([catalogEntry(PARTIAL, 1), catalogEntry(PARTIAL, 3)]);
  const released = admit(gate, []).ledger;
  expect(released.map((e) => [e.kind, e.conversion?.question_count])).toEqual([['conversion', 4]]);
  expect(gate.waitingConversions()).toEqual({ count: 0, oldestBlockTimeMs: null });
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

test('a conversion read before its market was prepared waits; a question prepared after it is not part of it', async () => {
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
  expect(gate.waitingConversions().count).toBe(2);
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
