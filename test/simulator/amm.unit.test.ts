/**
 * Legacy AMM markets on the simulated chain (`ammMarkets`): Gamma lists their pool as
 * `marketMakerAddress`, their trades have no maker wallet and settle as FixedProductMarketMaker.buy/sell
 * (FPMMBuy/FPMMSell with the pool's CTF split or merge and ERC-1155 legs); the service's own chain code,
 * given the catalog Gamma makes, reads each as the fill the simulator decided (role amm, collateral
 * before the pool's fee, the fee apart), skips the pool's other logs, and the truth counts them.
 */
import { ChainCatalog } from '../../services/chain/catalog.js';
import { ContractBook } from '../../services/chain/contract-book.js';
import { toLedgerEvent } from '../../services/chain/ledger-events.js';
import { NegRiskBook } from '../../services/chain/neg-risk-book.js';
import { interpretLogs } from '../../services/chain/settlement-records.js';
import { loadConfig } from '../../services/config.js';
import type { ChainLedgerEvent } from '../../services/events/types.js';
import { normalizeGammaMarket } from '../../services/ingest/normalize-market.js';
import { OrderBooks } from '../../simulator/books.js';
import type { JournalEntry } from '../../simulator/chain-journal.js';
import { SIM_GENESIS_BLOCK, SimulatedChain } from '../../simulator/chain.js';
import { renderMarket } from '../../simulator/render-gamma.js';
import { SimulatorTruth } from '../../simulator/truth.js';
import { FIXED_NOW_MS, smallState } from './fixtures.js';

const C = loadConfig({}).chain.contracts;
const state = smallState({ seed: 11, ammMarkets: 3 });
const chain = new SimulatedChain(state);
const pools = state.world.markets.filter((m) => state.ammPool(m.index) !== null);
const catalog = new ChainCatalog();
const books = new OrderBooks(state);
catalog.add(
  state.world.markets.map((market) => {
    const result = normalizeGammaMarket(renderMarket(state, books, market, { withEvent: false }), 'simulator', FIXED_NOW_MS);
    if (!result.ok) throw new Error(result.reason);
    return result.value;
  }),
);
const book = new ContractBook(C, { marketMakers: catalog });
const query = book.logQuery(chain.head());
const logs = chain.logs({
  fromBlock: SIM_GENESIS_BLOCK,
  toBlock: chain.head(),
  addresses: new Set(query.addresses),
  topics: [new Set(query.topics)],
});
const times = new Map(logs.map((log) => [log.blockNumber, chain.secondOfBlock(log.blockNumber) * 1000]));
const interpreted = interpretLogs(
  logs.map((log) => ({ ...log, blockNumber: BigInt(log.blockNumber), removed: false })),
  times,
  book,
);
const context = { chainId: 137, source: 'simulator' as const, nowMs: FIXED_NOW_MS, negRiskAdapter: C.negRiskAdapter.address };
const events: ChainLedgerEvent[] = interpreted.records.flatMap((record) => {
  if (record.kind === 'resolution' || record.kind === 'prepared') return [];
  const outcome = toLedgerEvent(record, catalog, context, new NegRiskBook(C.negRiskAdapter.address));
  if (outcome.status !== 'ready') throw new Error(JSON.stringify(outcome));
  return [outcome.event];
});
const ammTrades = state.journal.entries.filter(
  (e): e is Extract<JournalEntry, { kind: 'trade' }> => e.kind === 'trade' && state.ammPool(e.trade.marketIndex) !== null,
);

test('the three oldest open binary markets have a pool, listed by Gamma and named in the catalog', () => {
  expect(pools).toHaveLength(3);
  for (const market of pools) {
    const pool = state.ammPool(market.index)!;
    expect(pool).toMatch(/^0x[0-9a-f]{40}$/);
    expect(catalog.marketOfMaker(pool)?.marketId).toBe(market.conditionId);
  }
  expect(query.addresses).toEqual(expect.arrayContaining(pools.map((m) => state.ammPool(m.index))));
});

test('their trades have no maker wallet and read back as the fills the simulator decided, role amm, the fee apart', () => {
  expect(interpreted.rejected).toEqual([]);
  expect(ammTrades.length).toBeGreaterThan(20);
  expect(ammTrades.every((e) => e.trade.makerWalletIndex === -1)).toBe(true);
  expect(ammTrades.some((e) => e.trade.side === 'BUY') && ammTrades.some((e) => e.trade.side === 'SELL')).toBe(true);
  const amm = events.filter((e) => e.fill?.role === 'amm');
  const decided = ammTrades.map((e) => {
    const amounts = chain.transactions.tradeAmounts(e.trade, e.second);
    const market = state.world.markets[e.trade.marketIndex]!;
    return {
      wallet: state.world.wallets[e.trade.walletIndex]!.address,
      contract: state.ammPool(e.trade.marketIndex),
      side: e.trade.side.toLowerCase(),
      asset: market.tokenIds[e.trade.outcomeIndex],
      shares: amounts.shares.toString(),
      usdc: amounts.usdc.toString(),
      fee: amounts.takerFee.toString(),
    };
  });
  expect(
    amm.map((e) => ({
      wallet: e.wallet,
      contract: e.contract,
      side: e.fill!.side,
      asset: e.fill!.asset_id,
      shares: e.fill!.shares_micro,
      usdc: e.fill!.usdc_micro,
      fee: e.fill!.fee_micro,
    })),
  ).toEqual(decided);
  // The pool's fee is 2 % of the collateral before fees, in collateral.
  expect(
    amm.every((e) => e.fill!.fee_asset === 'usdc' && BigInt(e.fill!.fee_micro) === (BigInt(e.fill!.usdc_micro) * 200n) / 10_000n),
  ).toBe(true);
});

test("the pools' splits, merges and ERC-1155 legs are no user's: no record names a pool", () => {
  const poolAddresses = new Set(pools.map((m) => state.ammPool(m.index)));
  const named = interpreted.records.filter(
    (r) =>
      ('wallet' in r && poolAddresses.has(r.wallet)) ||
      (r.kind === 'transfer' && (poolAddresses.has(r.transfer.from) || poolAddresses.has(r.transfer.to))),
  );
  expect(named).toEqual([]);
  // They are on the chain all the same: a split or merge by a pool in every AMM trade's transaction.
  const poolLegs = logs.filter(
    (log) => log.address === C.conditionalTokens.address && log.topics.length > 1 && poolAddresses.has(`0x${log.topics[1]!.slice(26)}`),
  );
  expect(poolLegs.length).toBeGreaterThanOrEqual(ammTrades.length);
});

test('the truth counts each AMM trade once, for its trader', () => {
  const truth = new SimulatorTruth(state, chain);
  const through = chain.secondOfBlock(chain.head());
  const counted = truth.walletsWithChanges(through).reduce((sum, w) => sum + truth.wallet(w, through).amm_trades, 0);
  expect(counted).toBe(ammTrades.length);
});
