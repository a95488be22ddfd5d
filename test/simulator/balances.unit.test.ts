/**
 * The simulator's balances are the chain's: over every generated wallet, what its ledger holds per
 * (wallet, token) is, to the micro-unit, the ERC-1155 balance the logs it serves add up to (the truth's
 * shares_micro), never negative; a redemption leaves the market's balances at 0 (a CTF redemption burns
 * them whole); and each wallet's truth keeps its identity: realized = cash received - cash paid + cost
 * basis left (cash before fees), with every share it sends one it held.
 *
 * Float holdings broke the first: sells and merges left float remainders, dust under 1e-6 was
 * dropped, and a redemption burned micro(float) rather than the balance (a 1-micro share the service's
 * ledger did not hold, found by the verify e2e).
 */
import { SimulatedChain } from '../../simulator/chain.js';
import { tokenKey } from '../../simulator/ledger.js';
import type { SimulatorState } from '../../simulator/state.js';
import { SimulatorTruth } from '../../simulator/truth.js';
import { smallState } from './fixtures.js';

const worlds: Array<[string, SimulatorState]> = [
  ['the small world, 2 h live', smallState()],
  ['400 wallets, 12 h', smallState({ seed: 3, walletCount: 400, historyHours: 12, historicTrades: 8000 })],
];
for (const [, state] of worlds) state.advance(2 * 3_600_000);

describe.each(worlds)('%s', (_name, state) => {
  const chain = new SimulatedChain(state);
  const truth = new SimulatorTruth(state, chain);
  const head = state.generatedThroughSecond;
  const wallets = truth.walletsWithChanges(head).map((index) => ({ index, truth: truth.wallet(index, head) }));

  test('every (wallet, token) holds exactly its chain balance, never negative', () => {
    const wrong: string[] = [];
    let tokens = 0;
    for (const { index, truth: t } of wallets) {
      for (const token of t.tokens) {
        tokens++;
        const market = state.marketByConditionId.get(token.market_id)!;
        const held = state.ledger.heldMicro(index, tokenKey(market.index, token.outcome_index));
        if (token.shares_micro < 0n || held !== token.shares_micro)
          wrong.push(`${t.address} ${token.token_id.slice(0, 8)} ledger ${held} chain ${token.shares_micro}`);
      }
    }
    expect(tokens).toBeGreaterThan(2_000);
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  test('a redemption leaves nothing of its market on chain', () => {
    let redemptions = 0;
    const left: string[] = [];
    for (const { index, truth: t } of wallets) {
      for (const entry of state.ledger.activityOf(index)) {
        if (entry.type !== 'REDEEM' || entry.timestamp > head) continue;
        redemptions++;
        const conditionId = state.world.markets[entry.marketIndex]!.conditionId;
        for (const token of t.tokens)
          if (token.market_id === conditionId && token.shares_micro !== 0n) left.push(`${t.address} ${token.shares_micro}`);
      }
    }
    expect(redemptions).toBeGreaterThan(50);
    expect(left).toEqual([]);
  });

  test("each wallet's truth: realized = cash received - cash paid + cost basis left, and it only sends shares it holds", () => {
    const wrong: string[] = [];
    for (const { truth: t } of wallets) {
      if (t.realized_micro !== t.cash_received_micro - t.cash_paid_micro + t.cost_basis_micro) wrong.push(`${t.address} identity`);
      for (const token of t.tokens)
        if (token.held_micro !== token.shares_micro) wrong.push(`${t.address} ${token.token_id.slice(0, 8)} held`);
    }
    expect(wallets.length).toBeGreaterThan(50);
    expect(wrong.slice(0, 5)).toEqual([]);
  });
});
