/**
 * An account's API keys over their life: listed by their safe prefix, added, rotated (the new key is
 * shown once; the old one keeps working for an optional grace period so running clients can switch)
 * and revoked. Only SHA-256 hashes are stored, so a lost key cannot be shown again, only replaced.
 */
import type { ControlStore, SqlExecutor } from '../ports/control-store.js';
import { apiKeyHint, generateApiKey, hashApiKey } from './api-keys.js';

export interface KeyRecord {
  id: string;
  account_id: string;
  /** Safe reminder of the key: its first characters and last four. */
  prefix: string;
  label: string | null;
  created_at: string;
  last_used_at: string | null;
  /** When the key stops (stopped) working; null while it has no end. */
  expires_at: string | null;
  status: 'active' | 'expiring' | 'revoked';
  rotated_from: string | null;
}

export interface NewKey extends KeyRecord {
  /** The key itself: shown once, here. */
  api_key: string;
}

/** Longest grace a rotated key may keep: a week covers any deploy cycle. */
const MAX_ROTATION_GRACE_SECONDS = 7 * 86_400;

/**
 * Refusals the API renders as 404 (no such key of this account), 409 (not possible in its state) and
 * 403 (the acting key may not manage keys: it was rotated and is in its grace period, or revoked).
 */
export class KeyLifecycleError extends Error {
  constructor(
    readonly kind: 'not_found' | 'conflict' | 'forbidden',
    message: string,
  ) {
    super(message);
  }
}

interface KeyRow {
  id: string;
  account_id: string;
  key_hint: string;
  label: string | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  rotated_from: string | null;
}

const COLUMNS = `id::text AS id, account_id::text AS account_id, key_hint, label, created_at, last_used_at, revoked_at,
  rotated_from::text AS rotated_from`;

const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null);

function present(row: KeyRow, nowMs: number): KeyRecord {
  const revokedMs = row.revoked_at ? new Date(row.revoked_at).getTime() : null;
  return {
    id: row.id,
    account_id: row.account_id,
    prefix: row.key_hint,
    label: row.label,
    created_at: iso(row.created_at)!,
    last_used_at: iso(row.last_used_at),
    expires_at: iso(row.revoked_at),
    status: revokedMs === null ? 'active' : revokedMs > nowMs ? 'expiring' : 'revoked',
    rotated_from: row.rotated_from,
  };
}

export class KeyLifecycle {
  constructor(
    private readonly store: ControlStore,
    private readonly options: { keysPerAccount: number; clock?: () => number },
  ) {}

  private now(): number {
    return (this.options.clock ?? Date.now)();
  }

  /** Newest first; live keys only unless `includeRevoked`; `beforeId` continues a listing. */
  async list(accountId: string, options: { includeRevoked: boolean; limit: number; beforeId: string | null }): Promise<KeyRecord[]> {
    const rows = await this.store.query<KeyRow>(
      `SELECT ${COLUMNS} FROM api_keys
        WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2::bigint)
          AND ($3 OR revoked_at IS NULL OR revoked_at > $4)
        ORDER BY id DESC LIMIT $5`,
      [accountId, options.beforeId, options.includeRevoked, new Date(this.now()), options.limit],
    );
    return rows.map((row) => present(row, this.now()));
  }

  async get(accountId: string, keyId: string): Promise<KeyRecord | null> {
    if (!/^\d{1,18}$/.test(keyId)) return null;
    const [row] = await this.store.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1 AND account_id = $2`, [keyId, accountId]);
    return row ? present(row, this.now()) : null;
  }

  /** The account owning a key (for operators, who name keys by the key itself or by id). */
  async accountOfKey(reference: { apiKey?: string; keyId?: string }): Promise<{ account_id: string; key_id: string } | null> {
    const [row] = reference.apiKey
      ? await this.store.query<{ account_id: string; key_id: string }>(
          'SELECT account_id::text AS account_id, id::text AS key_id FROM api_keys WHERE key_hash = $1',
          [hashApiKey(reference.apiKey)],
        )
      : /^\d{1,18}$/.test(reference.keyId ?? '')
        ? await this.store.query<{ account_id: string; key_id: string }>(
            'SELECT account_id::text AS account_id, id::text AS key_id FROM api_keys WHERE id = $1',
            [reference.keyId],
          )
        : [];
    return row ?? null;
  }

  /** An additional key for the account, refused past the per-account limit of live keys. */
  create(accountId: string, label: string | null, actingKeyId?: string): Promise<NewKey> {
    return this.store.transaction(async (tx) => {
      await lockAccount(tx, accountId);
      await requireManagingKey(tx, actingKeyId);
      const live = await this.liveCount(tx, accountId);
      if (live >= this.options.keysPerAccount) {
        throw new KeyLifecycleError(
          'conflict',
          `this account already has ${live} live keys (the limit is ${this.options.keysPerAccount}); revoke one first`,
        );
      }
      return this.insertKey(tx, accountId, label, null);
    });
  }

  /**
   * A new key replacing `keyId`: the old key stops now, or after `graceSeconds` (at most a week) so
   * running clients can switch. Only a key without an end can be rotated.
   */
  rotate(accountId: string, keyId: string, graceSeconds: number, actingKeyId?: string): Promise<{ key: NewKey; previous: KeyRecord }> {
    if (!(Number.isInteger(graceSeconds) && graceSeconds >= 0 && graceSeconds <= MAX_ROTATION_GRACE_SECONDS)) {
      throw new KeyLifecycleError('conflict', `expire_previous_in_seconds must be an integer from 0 to ${MAX_ROTATION_GRACE_SECONDS}`);
    }
    return this.store.transaction(async (tx) => {
      await lockAccount(tx, accountId);
      await requireManagingKey(tx, actingKeyId);
      const current = await this.requireKey(tx, accountId, keyId);
      if (current.revoked_at !== null) {
        throw new KeyLifecycleError('conflict', `key ${keyId} was already rotated or revoked; rotate a key that is active`);
      }
      const now = this.now();
      const [previous] = await tx.query<KeyRow>(`UPDATE api_keys SET revoked_at = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [
        keyId,
        new Date(now + graceSeconds * 1000),
      ]);
      const key = await this.insertKey(tx, accountId, current.label, keyId);
      return { key, previous: present(previous!, now) };
    });
  }

  /**
   * Revokes a key now. For the key's owner an account keeps at least one key without an end (it would
   * otherwise lock itself out); operators (`allowLast`) may revoke every key.
   */
  revoke(accountId: string, keyId: string, options: { allowLast: boolean; actingKeyId?: string }): Promise<KeyRecord> {
    return this.store.transaction(async (tx) => {
      await lockAccount(tx, accountId);
      await requireManagingKey(tx, options.actingKeyId);
      const current = await this.requireKey(tx, accountId, keyId);
      const now = this.now();
      if (current.revoked_at !== null && new Date(current.revoked_at).getTime() <= now) return present(current, now);
      if (!options.allowLast && current.revoked_at === null) {
        const [row] = await tx.query<{ n: string }>(
          'SELECT count(*)::text AS n FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL AND id <> $2',
          [accountId, keyId],
        );
        if (Number(row?.n ?? 0) === 0) {
          throw new KeyLifecycleError('conflict', 'this is the account’s only active key; create or rotate another key before revoking it');
        }
      }
      const [revoked] = await tx.query<KeyRow>(`UPDATE api_keys SET revoked_at = $2 WHERE id = $1 RETURNING ${COLUMNS}`, [
        keyId,
        new Date(now),
      ]);
      return present(revoked!, now);
    });
  }

  private async liveCount(tx: SqlExecutor, accountId: string): Promise<number> {
    const [row] = await tx.query<{ n: string }>(
      'SELECT count(*)::text AS n FROM api_keys WHERE account_id = $1 AND (revoked_at IS NULL OR revoked_at > $2)',
      [accountId, new Date(this.now())],
    );
    return Number(row?.n ?? 0);
  }

  private async requireKey(tx: SqlExecutor, accountId: string, keyId: string): Promise<KeyRow> {
    const [row] = /^\d{1,18}$/.test(keyId)
      ? await tx.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1 AND account_id = $2 FOR UPDATE`, [keyId, accountId])
      : [];
    if (!row) throw new KeyLifecycleError('not_found', `API key not found: ${keyId}`);
    return row;
  }

  private async insertKey(tx: SqlExecutor, accountId: string, label: string | null, rotatedFrom: string | null): Promise<NewKey> {
    const apiKey = generateApiKey();
    const [row] = await tx.query<KeyRow>(
      `INSERT INTO api_keys (account_id, key_hash, key_hint, label, rotated_from, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [accountId, hashApiKey(apiKey), apiKeyHint(apiKey), label, rotatedFrom, new Date(this.now())],
    );
    return { ...present(row!, this.now()), api_key: apiKey };
  }
}

/** Stores when keys were last used (the API's usage flush; times only move forward). */
export async function recordKeysLastUsed(db: SqlExecutor, lastUsed: ReadonlyMap<string, number>): Promise<void> {
  if (lastUsed.size === 0) return;
  await db.query(
    `UPDATE api_keys k SET last_used_at = GREATEST(COALESCE(k.last_used_at, t.at), t.at)
       FROM unnest($1::bigint[], $2::timestamptz[]) AS t(id, at) WHERE k.id = t.id`,
    [[...lastUsed.keys()], [...lastUsed.values()].map((ms) => new Date(ms))],
  );
}

/**
 * Key management by a key of the account needs a key without an end: checked in the store, under the
 * account's lock, because another API process may still hold the acting key's owner from before its
 * rotation (cached up to AUTH_CACHE_TTL_MS). Operators act without a key.
 */
async function requireManagingKey(tx: SqlExecutor, actingKeyId: string | undefined): Promise<void> {
  if (actingKeyId === undefined) return;
  const [row] = await tx.query<{ revoked_at: Date | null }>('SELECT revoked_at FROM api_keys WHERE id = $1', [actingKeyId]);
  if (!row || row.revoked_at !== null)
    throw new KeyLifecycleError('forbidden', 'this key was rotated or revoked; it can read but not manage keys: use the new key');
}

/** Serialises key changes of one account (the live-key checks must see each other's writes). */
async function lockAccount(tx: SqlExecutor, accountId: string): Promise<void> {
  await tx.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
}
