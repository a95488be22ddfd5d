/** Accounts, their API keys and balances in the control store. */
import type { ControlStore } from '../ports/control-store.js';
import { apiKeyHint, generateApiKey, hashApiKey, isWellFormedApiKey } from './api-keys.js';

export interface IssuedKey {
  account_id: string;
  name: string;
  api_key: string;
  created_at: string;
  /** Set for self-serve developer accounts. */
  email?: string;
}

export interface KeyOwner {
  account_id: string;
  name: string;
  kind: 'agent' | 'developer';
  /** The key's own id (api_keys.id). */
  key_id: string;
  /** When a rotated key stops working (ms), null for a key without an end. */
  expires_at_ms: number | null;
}

export interface Balances {
  account_id: string;
  token_balance: number;
  credits: number;
}

export class Accounts {
  constructor(private readonly store: ControlStore) {}

  /** Self-serve sandbox registration: a new agent account and its first key. */
  registerAgent(name: string): Promise<IssuedKey> {
    return this.createAccountWithKey(name, 'agent', 0);
  }

  /**
   * Self-serve developer sign-up: a Tier 1 developer account and its first key. The email is a
   * contact address stored as given (never verified or mailed; not unique, see migration 0040).
   */
  registerDeveloper(name: string, email: string): Promise<IssuedKey> {
    return this.createAccountWithKey(name, 'developer', 0, email);
  }

  /** Operator-issued developer key; the token balance decides its tier. */
  issueDeveloperKey(name: string, tokenBalance: number): Promise<IssuedKey> {
    return this.createAccountWithKey(name, 'developer', tokenBalance);
  }

  /** Whether the key has the format and checksum of an issued key (no lookup). */
  isWellFormed(apiKey: string): boolean {
    return isWellFormedApiKey(apiKey);
  }

  /** The owner of a live key, or null for a malformed, unknown or revoked one (a rotated key lives until its grace ends). */
  async authenticate(apiKey: string): Promise<KeyOwner | null> {
    if (!isWellFormedApiKey(apiKey)) return null;
    const rows = await this.store.query<Omit<KeyOwner, 'expires_at_ms'> & { revoked_at: Date | null }>(
      `SELECT a.id::text AS account_id, a.name, a.kind, k.id::text AS key_id, k.revoked_at
         FROM api_keys k JOIN accounts a ON a.id = k.account_id
        WHERE k.key_hash = $1 AND (k.revoked_at IS NULL OR k.revoked_at > now())`,
      [hashApiKey(apiKey)],
    );
    const row = rows[0];
    if (!row) return null;
    const { revoked_at: revokedAt, ...owner } = row;
    return { ...owner, expires_at_ms: revokedAt ? new Date(revokedAt).getTime() : null };
  }

  async record(accountId: string): Promise<AccountRecord | null> {
    const [row] = await this.store.query<{
      account_id: string;
      name: string;
      kind: KeyOwner['kind'];
      email: string | null;
      created_at: Date;
    }>('SELECT id::text AS account_id, name, kind, email, created_at FROM accounts WHERE id = $1', [accountId]);
    return row ? { ...row, created_at: new Date(row.created_at).toISOString() } : null;
  }

  async addCredits(apiKey: string, amount: number): Promise<Balances> {
    return this.updateBalances(apiKey, 'credits = credits + $2', amount);
  }

  async setTokenBalance(apiKey: string, balance: number): Promise<Balances> {
    return this.updateBalances(apiKey, 'token_balance = $2', balance);
  }

  private async updateBalances(apiKey: string, assignment: string, value: number): Promise<Balances> {
    const owner = await this.authenticate(apiKey);
    if (!owner) throw new Error('unknown or revoked API key');
    const [row] = await this.store.query<{ account_id: string; token_balance: string; credits: string }>(
      `UPDATE accounts SET ${assignment} WHERE id = $1
       RETURNING id::text AS account_id, token_balance::text AS token_balance, credits::text AS credits`,
      [owner.account_id, value],
    );
    return { account_id: row!.account_id, token_balance: Number(row!.token_balance), credits: Number(row!.credits) };
  }

  private async createAccountWithKey(
    name: string,
    kind: KeyOwner['kind'],
    tokenBalance: number,
    email: string | null = null,
  ): Promise<IssuedKey> {
    const apiKey = generateApiKey();
    return this.store.transaction(async (tx) => {
      const [account] = await tx.query<{ id: string; created_at: Date }>(
        'INSERT INTO accounts (name, kind, token_balance, email) VALUES ($1, $2, $3, $4) RETURNING id::text AS id, created_at',
        [name, kind, tokenBalance, email],
      );
      await tx.query('INSERT INTO api_keys (account_id, key_hash, key_hint) VALUES ($1, $2, $3)', [
        account!.id,
        hashApiKey(apiKey),
        apiKeyHint(apiKey),
      ]);
      return {
        account_id: account!.id,
        name,
        ...(email === null ? {} : { email }),
        api_key: apiKey,
        created_at: new Date(account!.created_at).toISOString(),
      };
    });
  }
}

export interface AccountRecord {
  account_id: string;
  name: string;
  kind: KeyOwner['kind'];
  /** Contact address given at developer sign-up (null for agents and operator-issued keys). */
  email: string | null;
  created_at: string;
}
