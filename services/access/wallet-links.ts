/**
 * Linking a wallet to an account, proven by an EIP-191 signature (personal_sign) of a message that
 * names the account - so a signature cannot be replayed to link the wallet to another account. One
 * account per wallet (a unique index), so one balance lifts one account.
 */
import { verifyMessage, type Hex } from 'viem';
import { ApiError } from '../http/errors.js';
import type { ControlStore } from '../ports/control-store.js';
import type { TokenBalances } from './token-balances.js';

export const linkMessage = (accountId: string) =>
  `tapeline: link this wallet to account ${accountId}. Its platform-token balance will set the account's tier.`;

export interface WalletRecord {
  address: string | null;
  linkedAt: Date | null;
}

export async function linkedWallet(control: ControlStore, accountId: string): Promise<WalletRecord> {
  const [row] = await control.query<{ wallet_address: string | null; wallet_linked_at: Date | null }>(
    'SELECT wallet_address, wallet_linked_at FROM accounts WHERE id = $1',
    [accountId],
  );
  return { address: row?.wallet_address ?? null, linkedAt: row?.wallet_linked_at ? new Date(row.wallet_linked_at) : null };
}

export async function linkWallet(control: ControlStore, accountId: string, address: string, signature: string, now: Date): Promise<void> {
  const wallet = address.toLowerCase();
  let valid = false;
  try {
    valid = await verifyMessage({ address: wallet as Hex, message: linkMessage(accountId), signature: signature as Hex });
  } catch {
    valid = false;
  }
  if (!valid) throw ApiError.badRequest("signature: not this wallet's signature of the account's link_message (GET /account/wallet)");
  try {
    await control.query('UPDATE accounts SET wallet_address = $2, wallet_linked_at = $3 WHERE id = $1', [accountId, wallet, now]);
  } catch (error) {
    if ((error as { code?: string }).code === '23505')
      throw new ApiError(409, 'CONFLICT', `address: wallet ${wallet} is linked to another account; unlink it there first`);
    throw error;
  }
}

export async function unlinkWallet(control: ControlStore, accountId: string): Promise<void> {
  await control.query('UPDATE accounts SET wallet_address = NULL, wallet_linked_at = NULL WHERE id = $1', [accountId]);
}

/** What the /account/wallet routes are given. */
export interface WalletApi {
  control: ControlStore;
  /** Absent when no platform-token contract is configured. */
  balances?: TokenBalances;
  chainId: number;
  clock?: () => number;
}
