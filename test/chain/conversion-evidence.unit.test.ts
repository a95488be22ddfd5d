/**
 * What a conversion's own transaction tells (conversion-evidence.ts), as NegRiskAdapter.convertPositions
 * logs it: the adapter's CTF splits before PositionsConverted name the questions it gives YES of (only
 * those since the adapter's previous log in the transaction), and the receipt's transfers to the caller
 * the fee, read by the range reader only for markets whose MarketPrepared the source has not read.
 * Also: a record of an unknown token held past the limit is dead-lettered and its wallet goes on.
 */
import { type Abi, type AbiEvent, encodeAbiParameters, encodeEventTopics, erc20Abi, getAbiItem, type Hex, zeroHash } from 'viem';
import { conditionalTokensAbi, negRiskAdapterAbi } from '../../services/chain/abis.js';
import { ChainCatalog } from '../../services/chain/catalog.js';
import { ContractBook } from '../../services/chain/contract-book.js';
import { amountOutFromReceipt, feeBipsFor, questionsFromTransaction } from '../../services/chain/conversion-evidence.js';
import { NegRiskBook, negRiskConditionId, negRiskQuestionId } from '../../services/chain/neg-risk-book.js';
import { readRange } from '../../services/chain/range-reader.js';
import { SettlementGate } from '../../services/chain/settlement-gate.js';
import { interpretLogs, type SettlementRecord } from '../../services/chain/settlement-records.js';
import { loadConfig } from '../../services/config.js';
import type { ChainBlock, ChainLog, ChainReader, ChainReceipt } from '../../services/ports/chain-reader.js';

const C = loadConfig({}).chain.contracts;
const ADAPTER = C.negRiskAdapter.address;
const CTF = C.conditionalTokens.address;
const book = new ContractBook(C);
const BLOCK = 70_000_000;
const BLOCK_HASH = `0x${'b'.repeat(64)}`;
const TIME_MS = Date.UTC(2026, 4, 1);
const TX = `0x${'c'.repeat(64)}`;
const USER = `0x${'a'.repeat(40)}`;
const VAULT = `0x${'f'.repeat(40)}`;
const BURN = `0x${'e'.repeat(40)}`;
const MARKET = `0x${'12'.repeat(31)}00`;
const condition = (i: number) => negRiskConditionId(ADAPTER, negRiskQuestionId(MARKET, i));
/** Token ids of question i (position ids need the CTF's curve arithmetic; any distinct ids serve here). */
const YES = (i: number) => 1_000n + 2n * BigInt(i);
const NO = (i: number) => 1_001n + 2n * BigInt(i);

let logIndex = 0;
function log(address: string, abi: Abi, eventName: string, args: Record<string, unknown>): ChainLog {
  const event = getAbiItem({ abi, name: eventName }) as AbiEvent;
  const indexed = Object.fromEntries(event.inputs.filter((i) => i.indexed).map((i) => [i.name, args[i.name as string]]));
  const data = event.inputs.filter((i) => !i.indexed);
  return {
    address: address.toLowerCase(),
    topics: (encodeEventTopics({ abi: [event], eventName, args: indexed } as never) as Hex[]).map((t) => t.toLowerCase()),
    data: encodeAbiParameters(
      data,
      data.map((i) => args[i.name as string]),
    ).toLowerCase(),
    blockNumber: BigInt(BLOCK),
    blockHash: BLOCK_HASH,
    transactionHash: TX,
    logIndex: logIndex++,
    removed: false,
  };
}
const split = (i: number, amount: bigint) =>
  log(CTF, conditionalTokensAbi, 'PositionSplit', {
    stakeholder: ADAPTER,
    collateralToken: C.wrappedCollateral,
    parentCollectionId: zeroHash,
    conditionId: condition(i),
    partition: [1n, 2n],
    amount,
  });
const batch = (from: string, to: string, ids: bigint[], value: bigint) =>
  log(CTF, conditionalTokensAbi, 'TransferBatch', { operator: ADAPTER, from, to, ids, values: ids.map(() => value) });
const released = (to: string, value: bigint) => log(C.usdcE, erc20Abi, 'Transfer', { from: C.wrappedCollateral, to, value });
const converted = (indexSet: bigint, amount: bigint) =>
  log(ADAPTER, negRiskAdapterAbi, 'PositionsConverted', { stakeholder: USER, marketId: MARKET, indexSet, amount });

/**
 * convertPositions' logs for NO of `no` into YES of `yes` (index order), amount A and fee f: the
 * splits, the NO burnt, the collateral (k - 1) x (A - f) to the caller (and (k - 1) x f to the vault),
 * the YES fee to the vault and A - f YES to the caller, then PositionsConverted.
 */
function convertPositions(no: number[], yes: number[], amount: bigint, fee: bigint): ChainLog[] {
  const k = BigInt(no.length);
  const indexSet = no.reduce((set, i) => set | (1n << BigInt(i)), 0n);
  return [
    ...yes.map((i) => split(i, amount)),
    batch(USER, BURN, no.map(NO), amount),
    batch(ADAPTER, BURN, yes.map(NO), amount),
    ...(k > 1n ? [...(fee > 0n ? [released(VAULT, (k - 1n) * fee)] : []), released(USER, (k - 1n) * (amount - fee))] : []),
    ...(yes.length > 0
      ? [...(fee > 0n ? [batch(ADAPTER, VAULT, yes.map(YES), fee)] : []), batch(ADAPTER, USER, yes.map(YES), amount - fee)]
      : []),
    converted(indexSet, amount),
  ];
}

const conversionOf = (logs: ChainLog[]) => {
  const record = interpretLogs(logs, new Map([[BLOCK, TIME_MS]]), book).records.find((r) => r.kind === 'conversion');
  if (record?.kind !== 'conversion') throw new Error('no conversion');
  return record;
};

beforeEach(() => {
  logIndex = 0;
});

test("the conversion's splits name its market's questions: count = k + splits, each checked against the question's condition", () => {
  const record = conversionOf(convertPositions([0, 2], [1, 3, 4], 5_000_000n, 0n));
  expect(record.evidence?.splits.map((s) => s.conditionId)).toEqual([1, 3, 4].map(condition));
  expect(questionsFromTransaction(record, ADAPTER)).toEqual({
    ok: true,
    questions: [0, 1, 2, 3, 4].map((i) => ({ index: i, conditionId: condition(i) })),
  });
  // Every question converted: no split, and the count is k (an index set of the low bits only).
  expect(questionsFromTransaction(conversionOf(convertPositions([0, 1, 2], [], 5_000_000n, 0n)), ADAPTER)).toMatchObject({
    ok: true,
    questions: [{ index: 0 }, { index: 1 }, { index: 2 }],
  });
  // A split of another question, or missing: does not fit.
  const unfit = (no: number[], splits: number[]) =>
    questionsFromTransaction(
      conversionOf([
        ...splits.map((i) => split(i, 1n)),
        converted(
          no.reduce((s, i) => s | (1n << BigInt(i)), 0n),
          1n,
        ),
      ]),
      ADAPTER,
    );
  expect(unfit([0], [2])).toEqual({ ok: false, reason: 'split 0 is not question 1 of the market for 1' });
  expect(unfit([0, 2], [])).toMatchObject({ ok: false, reason: expect.stringContaining('not a set the adapter accepts') });
  expect(unfit([0], [])).toMatchObject({ ok: false });
});

test("a user's split through the adapter earlier in the same transaction is not the conversion's", () => {
  const userSplit = [
    split(3, 7_000_000n),
    log(ADAPTER, negRiskAdapterAbi, 'PositionSplit', { stakeholder: USER, conditionId: condition(3), amount: 7_000_000n }),
  ];
  const record = conversionOf([...userSplit, ...convertPositions([0], [1, 2], 2_000_000n, 0n)]);
  expect(record.evidence?.splits.map((s) => s.conditionId)).toEqual([condition(1), condition(2)]);
  expect(questionsFromTransaction(record, ADAPTER)).toMatchObject({ ok: true, questions: [{ index: 0 }, { index: 1 }, { index: 2 }] });
});

test('the fee from the receipt: YES sent to the caller, or with no YES legs the collateral released to it', () => {
  // 1 % of 3: 30,000 of each YES and of each collateral unit to the vault.
  const withYes = convertPositions([0, 2], [1], 3_000_000n, 30_000n);
  expect(amountOutFromReceipt(conversionOf(withYes), withYes, book)).toBe('2970000');
  const allNo = convertPositions([0, 1, 2], [], 3_000_000n, 30_000n);
  expect(amountOutFromReceipt(conversionOf(allNo), allNo, book)).toBe('2970000');
  expect(feeBipsFor('3000000', '2970000')).toBe(100);
  // A small amount: the smallest fee taking exactly what was taken (here 1 micro-unit of 150).
  expect(feeBipsFor('150', '149')).toBe(67);
  expect(feeBipsFor('150', '151')).toBeNull();
  // A receipt without the transfer (not what the adapter logs): nothing derived.
  expect(
    amountOutFromReceipt(
      conversionOf(withYes),
      withYes.filter((l) => !l.topics[3]?.endsWith(USER.slice(2))),
      book,
    ),
  ).toBeNull();
});

/** A node serving one block of logs and its receipt, counting receipt reads. */
function node(logs: ChainLog[]): ChainReader & { receipts: string[] } {
  const header: ChainBlock = { number: BigInt(BLOCK), hash: BLOCK_HASH, parentHash: `0x${'a'.repeat(64)}`, timestamp: TIME_MS / 1000 };
  const receipts: string[] = [];
  const unused = () => {
    throw new Error('not used');
  };
  return {
    receipts,
    chainId: async () => 137,
    clientVersion: async () => 'test',
    blockNumber: async () => BigInt(BLOCK),
    block: async () => header,
    blocks: async () => new Map([[BigInt(BLOCK), header]]),
    // eth_getLogs: the configured contracts' topics only (no ERC-1155 or ERC-20 transfers).
    logs: async (filter) =>
      logs.filter((l) => filter.addresses.includes(l.address) && ((filter.topics?.[0] ?? []) as string[]).includes(l.topics[0]!)),
    receipt: async (hash): Promise<ChainReceipt> => {
      receipts.push(hash);
      return { transactionHash: hash, blockNumber: BigInt(BLOCK), blockHash: BLOCK_HASH, status: 'success', from: USER, to: ADAPTER, logs };
    },
    transaction: unused,
    balance: unused,
    erc20Balance: unused,
    close: async () => undefined,
  };
}

test("the range reader reads a conversion's receipt only when the market's fee is not known; the gate prices it from there", async () => {
  const logs = convertPositions([0, 2], [1], 3_000_000n, 30_000n);
  const unknownFee = node(logs);
  const read = await readRange(unknownFee, book, { from: BLOCK, to: BLOCK }, { source: 'polymarket', nowMs: 0 }, () => false);
  expect(unknownFee.receipts).toEqual([TX]);
  const record = read.records.find((r) => r.kind === 'conversion') as Extract<SettlementRecord, { kind: 'conversion' }>;
  expect(record.evidence?.amountOutMicro).toBe('2970000');
  const catalog = new ChainCatalog();
  catalog.add(
    [0, 1, 2].map((i) => ({
      market_id: condition(i),
      title: `q${i}`,
      outcomes: ['Yes', 'No'],
      outcome_token_ids: [YES(i).toString(), NO(i).toString()],
      yes_index: 0,
      neg_risk: true,
      neg_risk_market_id: MARKET,
    })),
  );
  const gate = new SettlementGate(catalog, new NegRiskBook(ADAPTER), 60_000);
  const [event] = gate.admit(read.records, { chainId: 137, source: 'polymarket', nowMs: 0, negRiskAdapter: ADAPTER }).ledger;
  expect(event?.conversion).toMatchObject({ question_count: 3, fee_bips: 100, questions_from: 'transaction', fee_from: 'transaction' });
  expect(gate.counts).toMatchObject({ conversionsFromTransaction: 1, conversionFeesAssumed: 0 });

  const knownFee = node(logs);
  await readRange(knownFee, book, { from: BLOCK, to: BLOCK }, { source: 'polymarket', nowMs: 0 }, () => true);
  expect(knownFee.receipts).toEqual([]);
});

test('a fill of a token the catalog never learns is dead-lettered at the hold limit; its wallet goes on', () => {
  const fill = (token: bigint, logIndex: number): SettlementRecord => ({
    kind: 'fill',
    at: { blockNumber: BLOCK, blockHash: BLOCK_HASH, blockTimeMs: TIME_MS, txHash: TX, logIndex, contract: C.exchangeV2.address },
    role: 'maker',
    fill: {
      type: 'order_filled',
      version: 2,
      orderHash: zeroHash,
      maker: USER,
      taker: ADAPTER,
      side: 'buy',
      tokenId: token.toString(),
      sharesMicro: '1000000',
      usdcMicro: '500000',
      feeMicro: '0',
      feeAsset: 'usdc',
    },
  });
  const catalog = new ChainCatalog();
  catalog.add([
    {
      market_id: condition(0),
      title: 'q0',
      outcomes: ['Yes', 'No'],
      outcome_token_ids: [YES(0).toString(), NO(0).toString()],
      yes_index: 0,
      neg_risk: true,
      neg_risk_market_id: MARKET,
    },
  ]);
  const gate = new SettlementGate(catalog, new NegRiskBook(ADAPTER), 60_000);
  const context = { chainId: 137, source: 'polymarket' as const, nowMs: 1_000, negRiskAdapter: ADAPTER };
  expect(gate.admit([fill(123n, 0), fill(YES(0), 1)], context).ledger).toEqual([]);
  expect(gate.admit([], { ...context, nowMs: 60_999 }).ledger).toEqual([]);
  const out = gate.admit([], { ...context, nowMs: 61_000 });
  expect(out.rejected.map((r) => r.reason)).toEqual(['fill held 60 s (limit 60 s): the catalog does not know token 123']);
  expect(out.ledger.map((e) => e.fill?.asset_id)).toEqual([YES(0).toString()]);
  expect(gate.counts.deadLetteredAtHoldLimit).toBe(1);
});
