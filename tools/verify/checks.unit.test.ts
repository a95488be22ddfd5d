/**
 * Identity 1 with ERC-1155 transfers, on two wallets worked out by hand: A buys 100 for 40 and sends 60
 * to B (their cost: 24; A realizes nothing) and holds 40 marked at 0.50 (value 20, cost 16); B sells the
 * 60 for 30 (realized 30 - 24 = 6). Without counting a transfer out as its cost received and a transfer
 * in as its cost paid, both wallets would be violations.
 */
import type { Population, WalletObservation } from './collect.js';
import { cashIdentity } from './checks.js';
import type { ApiCurve, ApiPositions, ApiTrader, TruthWallet } from './sources.js';

function wallet(
  address: string,
  realized: number,
  position: { value: number; cost: number } | null,
  cash: { paid: string; received: string; out: string; into: string },
): WalletObservation {
  return {
    wallet: address,
    trader: { lifetime: { total_realized_pnl: realized } } as unknown as ApiTrader,
    positions: {
      positions: position
        ? [
            {
              asset_id: '1',
              market_id: 'm',
              current_value_usdc: position.value,
              cost_basis_usdc: position.cost,
              unrealized_pnl_usdc: position.value - position.cost,
            },
          ]
        : [],
    } as unknown as ApiPositions,
    curve: { points: [] } as unknown as ApiCurve,
    truth: {
      address,
      cash_paid_micro: cash.paid,
      cash_received_micro: cash.received,
      transfer_out_cost_micro: cash.out,
      transfer_in_cost_micro: cash.into,
    } as unknown as TruthWallet,
  };
}

const population = (wallets: WalletObservation[]): Population => ({
  wallets,
  unread: [],
  listed: { board: 0, truth: 0, union: 0, truncated: false },
});

test('identity 1 counts a transfer out as its cost received and a transfer in as its cost paid', () => {
  const sender = wallet('0xa', 0, { value: 20, cost: 16 }, { paid: '40000000', received: '0', out: '24000000', into: '0' });
  const receiver = wallet('0xb', 6, null, { paid: '0', received: '30000000', out: '0', into: '24000000' });
  expect(cashIdentity(population([sender, receiver]), true)).toMatchObject({ checked: 2, violations: 0 });
});

test('identity 1 still finds a wallet off by a micro-unit', () => {
  const receiver = wallet('0xb', 6.000001, null, { paid: '0', received: '30000000', out: '0', into: '24000000' });
  expect(cashIdentity(population([receiver]), true)).toMatchObject({ checked: 1, violations: 1 });
});
