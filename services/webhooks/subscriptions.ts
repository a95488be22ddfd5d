/**
 * Webhook subscriptions in the control store, always scoped to the owning account: another
 * account's subscription is indistinguishable from a missing one. Each subscription multiplies
 * matching events into deliveries, so an account holds at most `maxPerAccount` of them, and a
 * trader.large_trade threshold (which costs a trader query per large trade) is at least
 * `minLargeTradeUsdc`.
 */
import crypto from 'node:crypto';
import type { ControlStore } from '../ports/control-store.js';
import type { EventType, SubscriptionFilters } from './event-types.js';
import { generateSecret } from './signature.js';
import type { UrlGuard } from './url-guard.js';

export interface Subscription {
  id: string;
  account_id: string;
  url: string;
  events: EventType[];
  filters: SubscriptionFilters;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  dropped_events: string;
  last_dropped_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A subscription input the service refuses: 400 (`invalid`, naming the field) or 409 (`limit`). */
export class SubscriptionRefusedError extends Error {
  constructor(
    readonly kind: 'invalid' | 'limit',
    message: string,
  ) {
    super(message);
  }
}

export interface SubscriptionInput {
  url: string;
  events: EventType[];
  filters?: SubscriptionFilters;
}

export interface SubscriptionPatch {
  url?: string;
  events?: EventType[];
  filters?: SubscriptionFilters;
  enabled?: boolean;
}

export interface SubscriptionDependencies {
  store: ControlStore;
  guard: UrlGuard;
  clock: () => number;
  secretGraceMs: number;
  randomBytes?: (size: number) => Buffer;
  /** Subscriptions one account may hold (default 10). */
  maxPerAccount?: number;
  /** Lowest trader.large_trade threshold a subscription may set (default 1,000 USDC). */
  minLargeTradeUsdc?: number;
}

const COLUMNS = `id::text AS id, account_id::text AS account_id, url, events, filters, secret, previous_secret,
  previous_secret_expires_at, enabled, disabled_reason, disabled_at, failing_since, dropped_events::text AS dropped_events,
  last_dropped_at, created_at, updated_at`;

export class WebhookSubscriptions {
  constructor(private readonly deps: SubscriptionDependencies) {}

  async create(accountId: string, input: SubscriptionInput): Promise<Subscription> {
    this.checkFilters(input.filters);
    await this.deps.guard.check(input.url);
    const now = new Date(this.deps.clock());
    const limit = this.deps.maxPerAccount ?? 10;
    return this.deps.store.transaction(async (tx) => {
      // Serialises creations of one account, so two at once cannot both pass the count.
      await tx.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      const [count] = await tx.query<{ n: string }>('SELECT count(*)::text AS n FROM webhook_subscriptions WHERE account_id = $1', [
        accountId,
      ]);
      if (Number(count?.n ?? 0) >= limit) {
        throw new SubscriptionRefusedError(
          'limit',
          `this account already has ${limit} webhook subscriptions (the limit); delete one first`,
        );
      }
      const [row] = await tx.query<Subscription>(
        `INSERT INTO webhook_subscriptions (account_id, url, events, filters, secret, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING ${COLUMNS}`,
        [
          accountId,
          input.url,
          unique(input.events),
          JSON.stringify(input.filters ?? {}),
          generateSecret(this.deps.randomBytes ?? crypto.randomBytes),
          now,
        ],
      );
      return row!;
    });
  }

  private checkFilters(filters: SubscriptionFilters | undefined): void {
    const minimum = this.deps.minLargeTradeUsdc ?? 1_000;
    if (filters?.large_trade_min_usdc !== undefined && filters.large_trade_min_usdc < minimum) {
      throw new SubscriptionRefusedError(
        'invalid',
        `filters.large_trade_min_usdc: must be at least ${minimum} (each large trade costs a query of the trader's last 24 hours)`,
      );
    }
  }

  /** Newest first; `beforeId` continues a listing. */
  list(accountId: string, limit: number, beforeId: string | null): Promise<Subscription[]> {
    return this.deps.store.query<Subscription>(
      `SELECT ${COLUMNS} FROM webhook_subscriptions
        WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2::bigint)
        ORDER BY id DESC LIMIT $3`,
      [accountId, beforeId, limit],
    );
  }

  async get(accountId: string, id: string): Promise<Subscription | null> {
    if (!/^\d{1,18}$/.test(id)) return null;
    const [row] = await this.deps.store.query<Subscription>(
      `SELECT ${COLUMNS} FROM webhook_subscriptions WHERE id = $1 AND account_id = $2`,
      [id, accountId],
    );
    return row ?? null;
  }

  async update(accountId: string, id: string, patch: SubscriptionPatch): Promise<Subscription | null> {
    const current = await this.get(accountId, id);
    if (!current) return null;
    this.checkFilters(patch.filters);
    if (patch.url !== undefined && patch.url !== current.url) await this.deps.guard.check(patch.url);
    const reEnabling = patch.enabled === true && !current.enabled;
    const [row] = await this.deps.store.query<Subscription>(
      `UPDATE webhook_subscriptions SET
          url = $3, events = $4, filters = $5, enabled = $6, updated_at = $7,
          disabled_reason = CASE WHEN $6 THEN NULL WHEN $8 THEN 'disabled by the subscriber' ELSE disabled_reason END,
          disabled_at = CASE WHEN $6 THEN NULL WHEN $8 THEN $7 ELSE disabled_at END,
          failing_since = CASE WHEN $9 THEN NULL ELSE failing_since END
        WHERE id = $1 AND account_id = $2 RETURNING ${COLUMNS}`,
      [
        id,
        accountId,
        patch.url ?? current.url,
        patch.events ? unique(patch.events) : current.events,
        JSON.stringify(patch.filters ?? current.filters),
        patch.enabled ?? current.enabled,
        new Date(this.deps.clock()),
        patch.enabled === false && current.enabled,
        reEnabling,
      ],
    );
    return row ?? null;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    if (!/^\d{1,18}$/.test(id)) return false;
    const rows = await this.deps.store.query('DELETE FROM webhook_subscriptions WHERE id = $1 AND account_id = $2 RETURNING id', [
      id,
      accountId,
    ]);
    return rows.length > 0;
  }

  /** New secret now; the old one keeps signing alongside until the grace period ends. */
  async rotateSecret(accountId: string, id: string): Promise<Subscription | null> {
    if (!/^\d{1,18}$/.test(id)) return null;
    const now = this.deps.clock();
    const [row] = await this.deps.store.query<Subscription>(
      `UPDATE webhook_subscriptions
          SET previous_secret = secret, previous_secret_expires_at = $3, secret = $4, updated_at = $5
        WHERE id = $1 AND account_id = $2 RETURNING ${COLUMNS}`,
      [id, accountId, new Date(now + this.deps.secretGraceMs), generateSecret(this.deps.randomBytes ?? crypto.randomBytes), new Date(now)],
    );
    return row ?? null;
  }

  /** Every enabled subscription listening to any of `events` (the signals processor matches in memory). */
  enabledFor(events: readonly string[]): Promise<Subscription[]> {
    return this.deps.store.query<Subscription>(`SELECT ${COLUMNS} FROM webhook_subscriptions WHERE enabled AND events && $1::text[]`, [
      events,
    ]);
  }
}

/** Secrets that sign a delivery sent at `nowMs`: the current one, plus the previous during its grace period. */
export function signingSecrets(
  subscription: Pick<Subscription, 'secret' | 'previous_secret' | 'previous_secret_expires_at'>,
  nowMs: number,
): string[] {
  const { previous_secret: previous, previous_secret_expires_at: expires } = subscription;
  return previous && expires && new Date(expires).getTime() > nowMs ? [subscription.secret, previous] : [subscription.secret];
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/** What the /webhooks routes are given: the subscriptions, the store of their deliveries, and the dispatcher's wake-up. */
export interface WebhooksApi {
  subscriptions: WebhookSubscriptions;
  store: ControlStore;
  clock: () => number;
  /** Tells the dispatcher a delivery is due now (test events, redeliveries). */
  wake: () => void;
  /** WEBHOOK_PENDING_PER_SUBSCRIPTION: test events and redeliveries join the same backlog as events. */
  maxPendingPerSubscription: number;
}
