/**
 * Per-account caps on the rows an account may keep (copy subscriptions, strategies): every such row
 * is work the shared engines do for it, so the count is checked under the account's row lock (two
 * concurrent creates see each other) and refused with 409 CONFLICT naming the setting.
 */
import { ApiError } from '../http/errors.js';
import type { SqlExecutor } from '../ports/control-store.js';

export interface AccountCap {
  /** The table whose rows are counted (a constant of the caller, never input). */
  table: 'copy_subscriptions' | 'strategies';
  limit: number;
  /** The configuration parameter that sets the limit, named in the refusal. */
  parameter: string;
  /** What the rows are, in the refusal ("copy subscriptions"). */
  what: string;
}

export async function assertUnderAccountCap(tx: SqlExecutor, accountId: string, cap: AccountCap): Promise<void> {
  await tx.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
  const [row] = await tx.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${cap.table} WHERE account_id = $1`, [accountId]);
  const count = Number(row?.n ?? 0);
  if (count >= cap.limit)
    throw new ApiError(
      409,
      'CONFLICT',
      `this account has ${count} ${cap.what} (the limit is ${cap.limit}, ${cap.parameter}); delete one first`,
      { reason: 'account_limit' },
    );
}
