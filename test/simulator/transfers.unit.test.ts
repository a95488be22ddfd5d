/**
 * ERC-1155 transfers between wallets (SIM_TRANSFERS): the simulator generates them only when asked;
 * with them, every balance is still the chain's, and the truth moves shares at the sender's average
 * cost (the sender realizes nothing, the receiver's basis is that cost), so each wallet's identity holds
 * with the transferred cost counted as received (out) and paid (in).
 */
import { decodeEventLog, type Hex } from 'viem';
import { conditionalTokensAbi, TOPIC0 } from '../../services/chain/abis.js';
import { POLYGON_CONTRACTS } from '../../services/chain/polygon-contracts.js';
import { SimulatedChain, SIM_GENESIS_BLOCK } from '../../simulator/chain.js';
import type { JournalEntry } from '../../simulator/chain-journal.js';
import { micro } from '../../simulator/fill-amounts.js';
import { tokenKey } from '../../simulator/ledger.js';
import type { SimTrade } from '../../simulator/trades.js';
import { SimulatorTruth, type WalletTruth } from '../../simulator/truth.js';
import type { SimMarket } from '../../simulator/world-types.js';
import { smallState } from './fixtures.js';

const transfersOf = (entries: readonly JournalEntry[]) =>
  entries.filter((e): e is Extract<JournalEntry, { kind: 'transfer' }> => e.kind === 'transfer');

describe('a generated world with transfers', () => {
  const state = smallState({ transfers: true });
  state.advance(2 * 3_600_000);
  const chain = new SimulatedChain(state);
  const truth = new SimulatorTruth(state, chain);
  const head = state.generatedThroughSecond;
  const wallets = truth.walletsWithChanges(head).map((index) => ({ index, truth: truth.wallet(index, head) }));
  const transfers = transfersOf(state.journal.entries);

  test('without the knob (off by default) nothing is transferred', () => {
    const plain = smallState();
    plain.advance(2 * 3_600_000);
    expect(transfersOf(plain.journal.entries)).toEqual([]);
    const reference = smallState({ transfers: false });
    reference.advance(2 * 3_600_000);
    expect(plain.trades.map((t) => t.transactionHash)).toEqual(reference.trades.map((t) => t.transactionHash));
  });

  test('single and batch transfers, whole and partial, to wallets other than the sender; never a market maker', () => {
    expect(transfers.length).toBeGreaterThan(50);
    expect(transfers.some((t) => t.transfer.batch && t.transfer.legs.length > 1)).toBe(true);
    expect(transfers.some((t) => !t.transfer.batch)).toBe(true);
    for (const { transfer } of transfers) {
      expect(transfer.toWalletIndex).not.toBe(transfer.fromWalletIndex);
      expect(state.world.wallets[transfer.toWalletIndex]!.behaviour).not.toBe('market-maker');
      expect(transfer.legs.every((leg) => leg.shares > 0n)).toBe(true);
    }
  });

  test('the chain carries them as the CTF does: TransferSingle / TransferBatch, operator = sender', () => {
    const logs = chain.logs({
      fromBlock: SIM_GENESIS_BLOCK,
      toBlock: chain.head(),
      addresses: new Set([POLYGON_CONTRACTS.conditionalTokens.toLowerCase()]),
      topics: [new Set([TOPIC0.ctfTransferSingle, TOPIC0.ctfTransferBatch])],
    });
    const byTx = new Map(transfers.map((t) => [t.transfer.transactionHash, t.transfer]));
    let seen = 0;
    for (const log of logs) {
      const transfer = byTx.get(log.transactionHash);
      if (!transfer) continue; // a collateral adapter's leg of a split, merge or redemption
      seen++;
      const { eventName, args } = decodeEventLog({ abi: conditionalTokensAbi, topics: log.topics as [Hex], data: log.data as Hex });
      const from = state.world.wallets[transfer.fromWalletIndex]!.address;
      const to = state.world.wallets[transfer.toWalletIndex]!.address;
      const a = args as { operator: string; from: string; to: string; id?: bigint; value?: bigint; ids?: bigint[]; values?: bigint[] };
      expect([a.operator.toLowerCase(), a.from.toLowerCase(), a.to.toLowerCase()]).toEqual([from, from, to]);
      expect(eventName).toBe(transfer.batch ? 'TransferBatch' : 'TransferSingle');
      const ids = a.ids ?? [a.id!];
      const values = a.values ?? [a.value!];
      expect(values).toEqual(transfer.legs.map((leg) => leg.shares));
      expect(ids.map(String)).toEqual(transfer.legs.map((leg) => state.world.markets[leg.marketIndex]!.tokenIds[leg.outcomeIndex]));
    }
    expect(seen).toBe(transfers.filter((t) => t.second <= head).length);
  });

  test('every (wallet, token) still holds exactly its chain balance, never negative', () => {
    for (const { index, truth: t } of wallets) {
      for (const token of t.tokens) {
        const market = state.marketByConditionId.get(token.market_id)!;
        expect({ token: token.token_id, shares: token.shares_micro }).toEqual({
          token: token.token_id,
          shares: state.ledger.heldMicro(index, tokenKey(market.index, token.outcome_index)),
        });
        expect(token.shares_micro >= 0n && token.held_micro === token.shares_micro).toBe(true);
      }
    }
  });

  test('per wallet: realized = cash received - cash paid + cost basis + cost transferred out - cost transferred in; the costs balance', () => {
    let out = 0n;
    let into = 0n;
    for (const { truth: t } of wallets) {
      const right = t.cash_received_micro - t.cash_paid_micro + t.cost_basis_micro + t.transfer_out_cost_micro - t.transfer_in_cost_micro;
      expect({ wallet: t.address, realized: t.realized_micro }).toEqual({ wallet: t.address, realized: right });
      out += t.transfer_out_cost_micro;
      into += t.transfer_in_cost_micro;
    }
    expect(out).toBeGreaterThan(0n);
    expect(into).toBe(out);
  });

  test('receivers later sell or redeem what they received, and partly sent positions are redeemed by both ends', () => {
    const received = new Set(
      transfers.flatMap((t) => t.transfer.legs.map((leg) => `${t.transfer.toWalletIndex}:${tokenKey(leg.marketIndex, leg.outcomeIndex)}`)),
    );
    const at = new Map(transfers.map((t) => [t.transfer, t.second]));
    const sold = state.trades.filter(
      (trade) => trade.side === 'SELL' && received.has(`${trade.walletIndex}:${tokenKey(trade.marketIndex, trade.outcomeIndex)}`),
    );
    const redeemers = state.world.wallets.flatMap((w) =>
      state.ledger
        .activityOf(w.index)
        .filter((a) => a.type === 'REDEEM' && [0, 1].some((o) => received.has(`${w.index}:${tokenKey(a.marketIndex, o)}`)))
        .map((a) => ({ wallet: w.index, market: a.marketIndex })),
    );
    expect(sold.length).toBeGreaterThan(0);
    expect(redeemers.length).toBeGreaterThan(0);
    // A partial transfer whose market both ends redeemed.
    const bothRedeemed = transfers.some(({ transfer }) =>
      transfer.legs.some((leg) =>
        [transfer.fromWalletIndex, transfer.toWalletIndex].every((w) =>
          state.ledger
            .activityOf(w)
            .some((a) => a.type === 'REDEEM' && a.marketIndex === leg.marketIndex && a.timestamp >= at.get(transfer)!),
        ),
      ),
    );
    expect(bothRedeemed).toBe(true);
  });
});

/**
 * By hand, on a quiet world (no generated trades), the market maker M selling from a split of 200:
 * A buys 100 YES at 0.40 and 50 more at 0.60 (cost 70,
 * average 0.466667), sends 60 to B (cost out 70 x 60/150 = 28; nothing realized), B sells 20 at 0.50
 * (cost out 28 x 20/60 = 9.333333 half up: +0.666667), then A sends B its 90 others in a batch with 10 NO
 * (whole books: cost 42 and 4); the market resolves YES, B redeems 130 YES and 10 NO: +130 - (18.666667 + 42)
 * on YES, -4 on NO.
 */
describe('the truth of a transfer, by hand', () => {
  const DAY = Date.UTC(2026, 3, 10, 10, 0, 0) / 1000;
  const state = smallState({ historicTrades: 0, tradesPerSecond: 0, marketCount: 4, walletCount: 12 });
  const chain = new SimulatedChain(state, { v2FromMs: 0 });
  const truth = new SimulatorTruth(state, chain);
  const [A, B, M] = [0, 1, 2];
  const market = state.world.markets.find((m) => !m.placeholder) as SimMarket;
  market.winningOutcome = 0;
  market.voided = false;
  let sequence = 0;
  const hash = () => `0x${String(++sequence).padStart(64, '0')}`;
  const trade = (second: number, taker: number, side: 'BUY' | 'SELL', size: number, price: number, outcomeIndex: 0 | 1 = 0) => {
    const entry: SimTrade = {
      sequence,
      walletIndex: taker,
      makerWalletIndex: M,
      marketIndex: market.index,
      outcomeIndex,
      side,
      size,
      price,
      timestamp: second,
      transactionHash: hash(),
    };
    state.journal.append({ kind: 'trade', second, trade: entry });
  };
  const send = (second: number, from: number, to: number, legs: Array<[0 | 1, number]>) =>
    state.journal.append({
      kind: 'transfer',
      second,
      transfer: {
        fromWalletIndex: from,
        toWalletIndex: to,
        legs: legs.map(([outcomeIndex, shares]) => ({ marketIndex: market.index, outcomeIndex, shares: micro(shares) })),
        batch: legs.length > 1,
        timestamp: second,
        transactionHash: hash(),
      },
    });
  state.journal.append({
    kind: 'activity',
    second: DAY,
    activity: {
      type: 'SPLIT',
      walletIndex: M,
      marketIndex: market.index,
      timestamp: DAY,
      shares: micro(200),
      usdc: micro(200),
      transactionHash: hash(),
      tradesBefore: 0,
      sequence,
    },
  });
  trade(DAY, A, 'BUY', 100, 0.4);
  trade(DAY + 1, A, 'BUY', 50, 0.6);
  trade(DAY + 1, A, 'BUY', 10, 0.4, 1);
  send(DAY + 2, A, B, [[0, 60]]);
  trade(DAY + 3, B, 'SELL', 20, 0.5);
  send(DAY + 4, A, B, [
    [0, 90],
    [1, 10],
  ]);
  state.journal.append({ kind: 'resolution', second: DAY + 10, marketIndex: market.index });
  state.journal.append({
    kind: 'activity',
    second: DAY + 10,
    activity: {
      type: 'REDEEM',
      walletIndex: B,
      marketIndex: market.index,
      timestamp: DAY + 10,
      shares: micro(130),
      usdc: micro(130),
      losingShares: micro(10),
      transactionHash: hash(),
      tradesBefore: 0,
      sequence,
    },
  });
  const of = (wallet: number, through = DAY + 10): WalletTruth => truth.wallet(wallet, through);

  // v2 fees (v2FromMs 0): 0.02 x shares x p x (1 - p) on A's buys, B's sell; fees are apart from the costs.
  test('the sender realizes nothing; its basis leaves with the shares', () => {
    const a = of(A);
    expect(a.realized_micro).toBe(0n);
    expect(a.cost_basis_micro).toBe(0n);
    expect(a.cash_paid_micro).toBe(74_000_000n); // 40 + 30 + 4
    expect(a.transfer_out_cost_micro).toBe(74_000_000n); // 28 + 42 + 4
    expect([a.transfers_out, a.transfers_in]).toEqual([2, 0]);
    expect(a.tokens.map((t) => t.transferred_out_micro)).toEqual([150_000_000n, 10_000_000n]);
    // After the first transfer: 90 YES at 42.
    expect(of(A, DAY + 2).tokens[0]).toMatchObject({ shares_micro: 90_000_000n, cost_basis_micro: 42_000_000n });
  });

  test("the receiver's cost is the sender's: its sales and redemptions realize against it", () => {
    const b = of(B);
    expect(b.transfer_in_cost_micro).toBe(74_000_000n);
    expect(b.cash_paid_micro).toBe(0n);
    expect(b.cash_received_micro).toBe(140_000_000n); // 10 from the sell + 130 redeemed
    // +0.666667 on the sell; +130 - 60.666667 on YES, -4 on NO at the redemption.
    expect(b.realized_micro).toBe(666_667n + 69_333_333n - 4_000_000n);
    expect(b.tokens.map((t) => [t.transferred_in_micro, t.cost_paid_in_micro, t.shares_micro])).toEqual([
      [150_000_000n, 70_000_000n, 0n],
      [10_000_000n, 4_000_000n, 0n],
    ]);
    // Its only market, won (its transferred-in cost counts as paid in).
    expect([b.won, b.lost]).toEqual([1, 0]);
    expect(b.markets[0]).toMatchObject({ transfer_in_cost_micro: 74_000_000n, transfer_out_cost_micro: 0n });
  });

  test("the market's PnL across wallets is the same as without the transfers", () => {
    const pnl = [of(A), of(B), of(M)].map(
      (w) => w.markets[0]!.realized_micro + w.markets[0]!.payout_value_micro - w.markets[0]!.cost_basis_micro,
    );
    // A and B together: 140 received + 0 held at the payout - 74 paid = +66; M the other side: -200 split,
    // +74 sold, -10 bought, 70 YES left at 1.
    expect(pnl[0]! + pnl[1]!).toBe(66_000_000n);
    expect(pnl[0]! + pnl[1]! + pnl[2]!).toBe(0n);
  });
});
