/**
 * The simulated chain says what the simulator's Data API says: decoding every log of its history with
 * the service's decoder gives back each tape trade once as a taker fill (same transaction, wallet,
 * token, shares, collateral) plus its maker's fill, every split, merge and redemption of the ledger
 * with the right wallet (through the collateral adapters' transfers after the v2 switch), and every
 * resolution.
 */
import { ContractBook } from '../../services/chain/contract-book.js';
import { attributeAdapterActions, interpretLogs, type SettlementRecord } from '../../services/chain/settlement-records.js';
import { loadConfig } from '../../services/config.js';
import type { ChainLog } from '../../services/ports/chain-reader.js';
import { type ChainLogEntry, SIM_GENESIS_BLOCK, SimulatedChain } from '../../simulator/chain.js';
import { fillAmounts } from '../../simulator/fill-amounts.js';
import { smallState } from './fixtures.js';

const book = new ContractBook(loadConfig({}).chain.contracts);
const micro = (n: number) => String(Math.round(n * 1e6));
const toChainLog = (log: ChainLogEntry): ChainLog => ({
  address: log.address,
  topics: log.topics,
  data: log.data,
  blockNumber: BigInt(log.blockNumber),
  blockHash: log.blockHash,
  transactionHash: log.transactionHash,
  logIndex: log.logIndex,
  removed: false,
});

const state = smallState({ seed: 11, historyHours: 30, historicTrades: 3000 });
state.advance(3 * 3_600_000);
const chain = new SimulatedChain(state);
const query = book.logQuery(chain.head());
const logs = chain.logs({
  fromBlock: SIM_GENESIS_BLOCK,
  toBlock: chain.head(),
  addresses: new Set(query.addresses),
  topics: [new Set(query.topics)],
});
const times = new Map<number, number>();
for (const log of logs) times.set(log.blockNumber, chain.secondOfBlock(log.blockNumber) * 1000);
const interpreted = interpretLogs(logs.map(toChainLog), times, book);
const receipts = new Map<string, ChainLog[]>();
for (const hash of interpreted.receiptsNeeded) {
  const located = chain.locate(hash)!;
  const tx = located.block.transactions[located.transactionIndex]!;
  receipts.set(
    hash,
    tx.logs.map((log, offset) => ({
      ...log,
      blockNumber: BigInt(located.block.number),
      blockHash: located.block.hash,
      transactionHash: hash,
      logIndex: tx.logIndexStart + offset,
      removed: false,
    })),
  );
}
const { records, rejected } = attributeAdapterActions(interpreted.records, receipts, book);
const of = <K extends SettlementRecord['kind']>(kind: K) =>
  records.filter((r): r is Extract<SettlementRecord, { kind: K }> => r.kind === kind);

test('every log decodes', () => {
  expect(interpreted.rejected).toEqual([]);
  expect(rejected).toEqual([]);
});

test('each tape trade is one taker fill with the Data API numbers, and its resting order one maker fill', () => {
  const fills = of('fill');
  const takers = fills.filter((f) => f.role === 'taker');
  const makers = fills.filter((f) => f.role === 'maker');
  const key = (tx: string, wallet: string, token: string, shares: string, usdc: string, side: string) =>
    [tx, wallet, token, shares, usdc, side].join('|');
  const tape = state.trades.map((t) => {
    const market = state.world.markets[t.marketIndex]!;
    return {
      taker: key(
        t.transactionHash,
        state.world.wallets[t.walletIndex]!.address,
        market.tokenIds[t.outcomeIndex]!,
        micro(t.size),
        micro(t.size * t.price),
        t.side.toLowerCase(),
      ),
      maker:
        t.makerWalletIndex < 0
          ? null
          : key(
              t.transactionHash,
              state.world.wallets[t.makerWalletIndex]!.address,
              market.tokenIds[t.outcomeIndex]!,
              micro(t.size),
              micro(t.size * t.price),
              t.side === 'BUY' ? 'sell' : 'buy',
            ),
    };
  });
  const keyOf = (f: (typeof fills)[number]) =>
    key(f.at.txHash, f.fill.maker, f.fill.tokenId, f.fill.sharesMicro, f.fill.usdcMicro, f.fill.side);
  expect(takers.map(keyOf).sort()).toEqual(tape.map((t) => t.taker).sort());
  expect(makers.map(keyOf).sort()).toEqual(tape.flatMap((t) => (t.maker ? [t.maker] : [])).sort());
  // Both exchange generations appear: v1 before the switch, v2 (with taker fees) after.
  expect(new Set(takers.map((f) => f.fill.version))).toEqual(new Set([1, 2]));
  expect(takers.some((f) => f.fill.version === 2 && f.fill.feeMicro !== '0')).toBe(true);
  // v1 charges a taker's buy in the shares it receives, its sell in collateral; makers pay none.
  for (const side of ['buy', 'sell']) {
    const asset = side === 'buy' ? 'shares' : 'usdc';
    expect(takers.some((f) => f.fill.version === 1 && f.fill.side === side && f.fill.feeAsset === asset && f.fill.feeMicro !== '0')).toBe(
      true,
    );
  }
  expect(makers.every((f) => f.fill.feeMicro === '0')).toBe(true);
  // Each taker fee is the one the simulator's ledger and truth charge.
  for (const f of takers) {
    const trade = state.trades.find((t) => t.transactionHash === f.at.txHash)!;
    expect(f.fill.feeMicro).toBe(String(fillAmounts(trade, f.fill.version === 2).takerFee));
  }
  // A block's time is its trades' Data API timestamp.
  for (const f of takers.slice(0, 50)) {
    const trade = state.trades.find((t) => t.transactionHash === f.at.txHash)!;
    expect(f.at.blockTimeMs).toBe(trade.timestamp * 1000);
  }
});

test('splits, merges and redemptions of the ledger, by wallet and amount, direct and through the adapters', () => {
  const activity = state.world.wallets.flatMap((w) => state.ledger.activityOf(w.index).map((a) => ({ a, wallet: w.address })));
  const expected = activity
    .map(({ a, wallet }) =>
      [
        a.transactionHash,
        a.type.toLowerCase().replace('redeem', 'redemption'),
        wallet,
        String(a.type === 'REDEEM' ? a.usdc : a.shares),
      ].join('|'),
    )
    .sort();
  const actual = records
    .flatMap((r) => {
      if (r.kind === 'redemption') return [[r.at.txHash, r.kind, r.wallet, r.change.payoutMicro].join('|')];
      if (r.kind === 'split' || r.kind === 'merge') return [[r.at.txHash, r.kind, r.wallet, r.change.amountMicro].join('|')];
      return [];
    })
    .sort();
  expect(actual).toEqual(expected);
  expect(expected.length).toBeGreaterThan(20);
  const viaAdapter = records.filter((r) => 'via' in r && r.via !== '');
  expect(viaAdapter.length).toBeGreaterThan(0);
  expect(viaAdapter.length).toBeLessThan(expected.length);
});

test('every resolved market has one ConditionResolution paying its winner', () => {
  const resolved = state.world.markets.filter((m) => state.status[m.index]?.resolved);
  const resolutions = of('resolution');
  expect(resolutions.map((r) => r.resolution.conditionId).sort()).toEqual(resolved.map((m) => m.conditionId).sort());
  for (const r of resolutions) {
    const market = state.marketByConditionId.get(r.resolution.conditionId)!;
    expect(r.resolution.payoutNumerators).toEqual(market.voided ? ['1', '1'] : market.winningOutcome === 0 ? ['1', '0'] : ['0', '1']);
  }
});
