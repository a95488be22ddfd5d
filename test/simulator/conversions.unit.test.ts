/**
 * Neg-risk conversions on the simulated chain (`conversions: true`): the amounts of
 * NegRiskAdapter.convertPositions, worked out by hand; and every conversion the simulator makes, decoded
 * by the service's own chain code, is the one it decided: the adapter's PositionsConverted, the market
 * and questions as MarketPrepared / QuestionPrepared left them (a question prepared later is not part
 * of it), the splits of the other questions as evidence, the YES shares or collateral the receipt shows,
 * and the truth's accounting of it (docs/POSITIONS.md's definitions).
 */
import { ContractBook } from '../../services/chain/contract-book.js';
import { amountOutFromReceipt, popcount, questionsFromTransaction } from '../../services/chain/conversion-evidence.js';
import { NegRiskBook } from '../../services/chain/neg-risk-book.js';
import { attributeAdapterActions, interpretLogs, type SettlementRecord } from '../../services/chain/settlement-records.js';
import { loadConfig } from '../../services/config.js';
import type { ChainLog } from '../../services/ports/chain-reader.js';
import type { JournalEntry } from '../../simulator/chain-journal.js';
import { type ChainLogEntry, SIM_GENESIS_BLOCK, SimulatedChain } from '../../simulator/chain.js';
import { conversionAmounts, indexSetOf } from '../../simulator/neg-risk.js';
import { SimulatorTruth } from '../../simulator/truth.js';
import { smallState } from './fixtures.js';

describe('conversionAmounts: NegRiskAdapter.convertPositions', () => {
  test('k = 3 of a market with a 100 bips fee: A - f YES of each other question, (k - 1) x (A - f) collateral', () => {
    expect(conversionAmounts(100_000_000n, 3, 100)).toEqual({
      fee: 1_000_000n,
      yesOut: 99_000_000n,
      collateralOut: 198_000_000n,
      vaultCollateral: 2_000_000n,
      vaultYes: 1_000_000n,
    });
  });

  test('k = 1 pays no collateral; the fee rounds down', () => {
    expect(conversionAmounts(333n, 1, 100)).toEqual({ fee: 3n, yesOut: 330n, collateralOut: 0n, vaultCollateral: 0n, vaultYes: 3n });
  });

  test('no fee: the whole amount; k = 4 pays 3 x A', () => {
    expect(conversionAmounts(7_500_001n, 4, 0)).toEqual({
      fee: 0n,
      yesOut: 7_500_001n,
      collateralOut: 22_500_003n,
      vaultCollateral: 0n,
      vaultYes: 0n,
    });
  });

  test('the index set has bit i for question i', () => {
    expect(indexSetOf([0, 2, 3])).toBe(13n);
  });
});

describe('conversions on the simulated chain, read by the service', () => {
  const book = new ContractBook(loadConfig({}).chain.contracts);
  const adapter = book.negRiskAdapter;
  const state = smallState({
    seed: 5,
    marketCount: 200,
    walletCount: 120,
    historyHours: 24,
    historicTrades: 12_000,
    conversions: true,
    conversionsOfEveryQuestion: true,
  });
  const chain = new SimulatedChain(state);
  const query = book.logQuery(chain.head());
  const logs = chain.logs({
    fromBlock: SIM_GENESIS_BLOCK,
    toBlock: chain.head(),
    addresses: new Set(query.addresses),
    topics: [new Set(query.topics)],
  });
  const toChainLog = (log: Omit<ChainLogEntry, 'transactionIndex'>): ChainLog => ({
    address: log.address,
    topics: log.topics,
    data: log.data,
    blockNumber: BigInt(log.blockNumber),
    blockHash: log.blockHash,
    transactionHash: log.transactionHash,
    logIndex: log.logIndex,
    removed: false,
  });
  const times = new Map<number, number>();
  for (const log of logs) times.set(log.blockNumber, chain.secondOfBlock(log.blockNumber) * 1000);
  const interpreted = interpretLogs(logs.map(toChainLog), times, book);
  const { records } = attributeAdapterActions(interpreted.records, new Map(), book);
  const conversions = records.filter((r): r is Extract<SettlementRecord, { kind: 'conversion' }> => r.kind === 'conversion');
  const journal = state.journal.entries.filter((e): e is Extract<JournalEntry, { kind: 'conversion' }> => e.kind === 'conversion');
  const negRisk = new NegRiskBook(adapter);
  for (const r of records) {
    if (r.kind !== 'prepared') continue;
    const at = { block: r.at.blockNumber, logIndex: r.at.logIndex, blockHash: r.at.blockHash };
    if (r.prepared.type === 'market_prepared')
      negRisk.marketPrepared(r.prepared.negRiskMarketId, r.prepared.oracle, r.prepared.feeBips, at);
    else negRisk.questionPrepared(r.prepared.negRiskMarketId, r.prepared.index, at);
  }
  const receiptOf = (hash: string): ChainLog[] => {
    const located = chain.locate(hash)!;
    const tx = located.block.transactions[located.transactionIndex]!;
    return tx.logs.map((log, offset) =>
      toChainLog({
        ...log,
        blockNumber: located.block.number,
        blockHash: located.block.hash,
        transactionHash: hash,
        logIndex: tx.logIndexStart + offset,
      }),
    );
  };

  test('the world converts k = 1..4 NO positions, with and without a fee, some before a question of the event was prepared', () => {
    expect(interpreted.rejected).toEqual([]);
    const ks = new Set(journal.map((e) => e.conversion.noMarkets.length));
    expect([...ks].sort()).toEqual([1, 2, 3, 4]);
    // Some convert every question (no YES minted: the ledger realizes the difference whatever its sign).
    expect(journal.some((e) => e.conversion.yesMarkets.length === 0)).toBe(true);
    expect(journal.some((e) => e.conversion.yesMarkets.length > 0)).toBe(true);
    expect(journal.some((e) => e.conversion.fee > 0n)).toBe(true);
    expect(journal.some((e) => e.conversion.fee === 0n)).toBe(true);
    const beforeLate = journal.filter((e) => {
      const plan = state.negRiskPlans.find((p) => p.eventIndex === e.conversion.eventIndex)!;
      return plan.preparedAtSecond.some((second) => second > e.second);
    });
    expect(beforeLate.length).toBeGreaterThan(0);
  });

  test('each is one PositionsConverted of its wallet, market, index set and amount, in the questions prepared before it', () => {
    expect(
      conversions.map((r) => [
        r.at.txHash,
        r.conversion.stakeholder,
        r.conversion.negRiskMarketId,
        r.conversion.indexSet,
        r.conversion.amountMicro,
      ]),
    ).toEqual(
      journal.map((e) => [
        e.conversion.transactionHash,
        state.world.wallets[e.conversion.walletIndex]!.address,
        e.conversion.negRiskMarketId,
        e.conversion.indexSet.toString(),
        e.conversion.amount.toString(),
      ]),
    );
    for (const [i, record] of conversions.entries()) {
      const { conversion } = journal[i]!;
      const market = negRisk.at(conversion.negRiskMarketId, { blockNumber: record.at.blockNumber, logIndex: record.at.logIndex })!;
      const n = conversion.noMarkets.length + conversion.yesMarkets.length;
      expect({ fee: market.feeBips, questions: market.questions.length }).toEqual({ fee: conversion.feeBips, questions: n });
      // The questions' condition ids are the member markets' (the catalog names their tokens by them).
      const byIndex = [...conversion.noMarkets, ...conversion.yesMarkets].map((m) => state.world.markets[m]!.conditionId).sort();
      expect(market.questions.map((q) => q.conditionId).sort()).toEqual(byIndex);
      expect(popcount(BigInt(record.conversion.indexSet))).toBe(conversion.noMarkets.length);
    }
  });

  test("its own transaction tells the same: the adapter's splits of the other questions, and what the caller received", () => {
    for (const [i, record] of conversions.entries()) {
      const { conversion } = journal[i]!;
      const evidence = questionsFromTransaction(record, adapter);
      expect(evidence).toMatchObject({ ok: true });
      expect(evidence?.ok && evidence.questions.length).toBe(conversion.noMarkets.length + conversion.yesMarkets.length);
      expect(amountOutFromReceipt(record, receiptOf(record.at.txHash), book)).toBe(conversion.yesOut.toString());
    }
  });

  test('the truth: NO out at cost, collateral in cash, YES in at the NO cost less the collateral, the excess realized', () => {
    const truth = new SimulatorTruth(state, chain);
    const involves = (e: JournalEntry, w: number): boolean =>
      e.kind === 'trade'
        ? e.trade.walletIndex === w || e.trade.makerWalletIndex === w
        : e.kind === 'activity'
          ? e.activity.walletIndex === w
          : e.kind === 'transfer'
            ? e.transfer.fromWalletIndex === w || e.transfer.toWalletIndex === w
            : e.kind === 'conversion' && e.conversion.walletIndex === w;
    // A conversion of 3 NO positions with YES legs, the last change of its wallet in its block: the
    // wallet's accounts just before it and at the block are before and after it.
    const entry = journal.find((e) => {
      const { entries } = state.journal;
      const later = entries.slice(entries.indexOf(e) + 1).filter((x) => x.second === e.second);
      return (
        e.conversion.noMarkets.length === 3 &&
        e.conversion.yesMarkets.length > 0 &&
        !later.some((x) => involves(x, e.conversion.walletIndex))
      );
    })!;
    const { conversion, second } = entry;
    const wallet = conversion.walletIndex;
    const before = truth.wallet(wallet, second, entry);
    const after = truth.wallet(wallet, second);
    const token = (w: typeof before, market: number, outcome: 0 | 1) =>
      w.tokens.find((t) => t.token_id === state.world.markets[market]!.tokenIds[outcome]) ?? { shares_micro: 0n, cost_basis_micro: 0n };
    let noCost = 0n;
    for (const m of conversion.noMarkets) {
      expect(token(after, m, 1).shares_micro).toBe(token(before, m, 1).shares_micro - conversion.amount);
      noCost += token(before, m, 1).cost_basis_micro - token(after, m, 1).cost_basis_micro;
    }
    let yesCost = 0n;
    for (const m of conversion.yesMarkets) {
      expect(token(after, m, 0).shares_micro).toBe(token(before, m, 0).shares_micro + conversion.yesOut);
      yesCost += token(after, m, 0).cost_basis_micro - token(before, m, 0).cost_basis_micro;
    }
    expect(after.cash_received_micro - before.cash_received_micro).toBe(2n * conversion.yesOut);
    const collateral = 2n * conversion.yesOut;
    expect(yesCost).toBe(noCost > collateral ? noCost - collateral : 0n);
    expect(after.realized_micro - before.realized_micro).toBe(collateral > noCost ? collateral - noCost : 0n);
    expect(after.fees_micro - before.fees_micro).toBe(2n * conversion.fee);
    expect(after.conversions.length).toBe(before.conversions.length + 1);
  });
});
