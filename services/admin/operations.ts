/** Operator actions on accounts: issue keys of a tier, list, rotate and revoke keys, add credits, set platform-token balances. */
import type { TierThresholds } from '../access/tiers.js';
import type { Accounts, Balances, IssuedKey } from '../control/accounts.js';
import type { KeyLifecycle, KeyRecord, NewKey } from '../control/key-lifecycle.js';

export type IssuableTier = '1' | '2' | '3';

/** A key named by an operator: the key itself, or its id (from a listing). */
export interface KeyReference {
  apiKey?: string;
  keyId?: string;
}

export class AdminOperations {
  constructor(
    private readonly accounts: Accounts,
    private readonly thresholds: TierThresholds,
    private readonly keys?: KeyLifecycle,
    /** Told which keys stopped working, so this process forgets them at once. */
    private readonly onKeysRevoked: (keyIds: string[]) => void = () => {},
  ) {}

  /** A developer key whose account holds exactly the token balance its tier needs. */
  async createKey(name: string, tier: IssuableTier): Promise<IssuedKey & { tier: IssuableTier }> {
    const balance = tier === '3' ? this.thresholds.tier3Tokens : tier === '2' ? this.thresholds.tier2Tokens : 0;
    return { ...(await this.accounts.issueDeveloperKey(name, balance)), tier };
  }

  addCredits(apiKey: string, amount: number): Promise<Balances> {
    if (!(amount > 0)) throw new Error('amount must be a positive number');
    return this.accounts.addCredits(apiKey, amount);
  }

  setTokens(apiKey: string, balance: number): Promise<Balances> {
    if (!(balance >= 0)) throw new Error('balance must be zero or more');
    return this.accounts.setTokenBalance(apiKey, balance);
  }

  /** Every key of the account that owns the named key, revoked ones included. */
  async listKeys(reference: KeyReference): Promise<KeyRecord[]> {
    const { keys, owner } = await this.resolve(reference);
    return keys.list(owner.account_id, { includeRevoked: true, limit: 1_000, beforeId: null });
  }

  /** Revokes the named key now (operators may revoke an account's last key). */
  async revokeKey(reference: KeyReference): Promise<KeyRecord> {
    const { keys, owner } = await this.resolve(reference);
    const revoked = await keys.revoke(owner.account_id, owner.key_id, { allowLast: true });
    this.onKeysRevoked([revoked.id]);
    return revoked;
  }

  /** A new key for the named one's account; the named key stops now or after `graceSeconds`. */
  async rotateKey(reference: KeyReference, graceSeconds: number): Promise<{ key: NewKey; previous: KeyRecord }> {
    const { keys, owner } = await this.resolve(reference);
    const rotated = await keys.rotate(owner.account_id, owner.key_id, graceSeconds);
    this.onKeysRevoked([rotated.previous.id]);
    return rotated;
  }

  private async resolve(reference: KeyReference): Promise<{ keys: KeyLifecycle; owner: { account_id: string; key_id: string } }> {
    if (!this.keys) throw new Error('key management is not available here');
    const owner = await this.keys.accountOfKey(reference);
    if (!owner) throw new Error('no such API key');
    return { keys: this.keys, owner };
  }
}
