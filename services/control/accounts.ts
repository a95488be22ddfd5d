/** Accounts and their API keys in the control store. */
import type { ControlStore } from '../ports/control-store.js';
import { apiKeyHint, generateApiKey, hashApiKey, isWellFormedApiKey } from './api-keys.js';

export type Tier = 'sandbox' | '1' | '2' | '3';

export interface IssuedKey {
  account_id: string;
  name: string;
  api_key: string;
  tier: Tier;
  created_at: string;
}

export interface KeyOwner {
  account_id: string;
  name: string;
  kind: 'agent' | 'developer';
  tier: Tier;
}

export class Accounts {
  constructor(private readonly store: ControlStore) {}

  /** Self-serve sandbox registration: a new agent account and its first key. */
  registerAgent(name: string): Promise<IssuedKey> {
    return this.createAccountWithKey(name, 'agent', 'sandbox');
  }

  /** Operator-issued developer key of a given tier (admin command). */
  issueDeveloperKey(name: string, tier: Tier): Promise<IssuedKey> {
    return this.createAccountWithKey(name, 'developer', tier);
  }

  /** The owner of a live key, or null for a malformed, unknown or revoked one. */
  async authenticate(apiKey: string): Promise<KeyOwner | null> {
    if (!isWellFormedApiKey(apiKey)) return null;
    const rows = await this.store.query<KeyOwner>(
      `SELECT a.id::text AS account_id, a.name, a.kind, k.tier
         FROM api_keys k JOIN accounts a ON a.id = k.account_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [hashApiKey(apiKey)],
    );
    return rows[0] ?? null;
  }

  private async createAccountWithKey(name: string, kind: KeyOwner['kind'], tier: Tier): Promise<IssuedKey> {
    const apiKey = generateApiKey();
    return this.store.transaction(async (tx) => {
      const [account] = await tx.query<{ id: string; created_at: Date }>(
        'INSERT INTO accounts (name, kind) VALUES ($1, $2) RETURNING id::text AS id, created_at',
        [name, kind],
      );
      await tx.query('INSERT INTO api_keys (account_id, key_hash, key_hint, tier) VALUES ($1, $2, $3, $4)', [
        account!.id,
        hashApiKey(apiKey),
        apiKeyHint(apiKey),
        tier,
      ]);
      return { account_id: account!.id, name, api_key: apiKey, tier, created_at: new Date(account!.created_at).toISOString() };
    });
  }
}
