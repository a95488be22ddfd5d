/**
 * The durable outbox of webhook deliveries in the control store. Producers enqueue idempotently
 * (one row per subscription and event id), up to a backlog cap per subscription (events past it
 * are counted as dropped on the subscription); dispatchers claim due rows under a lease, so a
 * killed dispatcher's in-flight deliveries become due again when the lease runs out. Claims are
 * fair between accounts: each account has at most `perAccount` deliveries in flight (leased) across
 * all dispatchers, and accounts take turns for the free slots, so one account's slow receivers
 * cannot hold everyone's. Finished deliveries are purged after the retention period.
 */
import crypto from 'node:crypto';
import type { SqlExecutor } from '../ports/control-store.js';

export interface NewDelivery {
  subscriptionId: string;
  eventId: string;
  eventType: string;
  /** The event payload (`event`, `id` and the fields); `delivery_id` is added to the body here. */
  payload: Record<string, unknown>;
}

export interface ClaimedDelivery {
  seq: string;
  id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  body: string;
  attempts: number;
  created_at: Date;
}

export interface DeliveryRecord {
  seq: string;
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: Date;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
}

export interface AttemptRecord {
  delivery_seq: string;
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
}

export function newDeliveryId(): string {
  return `dlv_${crypto.randomBytes(16).toString('hex')}`;
}

/**
 * Inserts the deliveries not already in the outbox; returns how many were new. With
 * `maxPendingPerSubscription`, a subscription already holding that many undelivered deliveries
 * gets none of these: they are counted in its dropped_events instead.
 */
export async function enqueueDeliveries(
  db: SqlExecutor,
  wanted: NewDelivery[],
  nowMs: number,
  newId: () => string = newDeliveryId,
  maxPendingPerSubscription = Number.POSITIVE_INFINITY,
): Promise<number> {
  if (wanted.length === 0) return 0;
  let deliveries = wanted;
  if (Number.isFinite(maxPendingPerSubscription)) {
    const ids = [...new Set(wanted.map((d) => d.subscriptionId))];
    const backlog = await db.query<{ subscription_id: string; pending: string }>(
      `SELECT subscription_id::text AS subscription_id, count(*)::text AS pending FROM webhook_deliveries
        WHERE status = 'pending' AND subscription_id = ANY($1::bigint[]) GROUP BY subscription_id`,
      [ids],
    );
    const room = new Map(ids.map((id) => [id, maxPendingPerSubscription]));
    for (const row of backlog) room.set(row.subscription_id, maxPendingPerSubscription - Number(row.pending));
    const dropped = new Map<string, number>();
    deliveries = wanted.filter((d) => {
      const left = room.get(d.subscriptionId)!;
      if (left > 0) {
        room.set(d.subscriptionId, left - 1);
        return true;
      }
      dropped.set(d.subscriptionId, (dropped.get(d.subscriptionId) ?? 0) + 1);
      return false;
    });
    if (dropped.size > 0) {
      await db.query(
        `UPDATE webhook_subscriptions s SET dropped_events = s.dropped_events + t.n, last_dropped_at = $3
           FROM unnest($1::bigint[], $2::bigint[]) AS t(id, n) WHERE s.id = t.id`,
        [[...dropped.keys()], [...dropped.values()], new Date(nowMs)],
      );
    }
    if (deliveries.length === 0) return 0;
  }
  const ids = deliveries.map(() => newId());
  // The body is fixed here, once: every attempt sends (and signs) exactly these bytes.
  const bodies = deliveries.map((d, i) => JSON.stringify({ event: d.payload.event, id: d.eventId, delivery_id: ids[i], ...d.payload }));
  const rows = await db.query(
    `INSERT INTO webhook_deliveries (id, subscription_id, event_id, event_type, body, status, next_attempt_at, created_at)
     SELECT id, subscription_id, event_id, event_type, body, 'pending', $6, $6
       FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[]) AS t(id, subscription_id, event_id, event_type, body)
     ON CONFLICT (subscription_id, event_id) DO NOTHING
     RETURNING seq`,
    [
      ids,
      deliveries.map((d) => d.subscriptionId),
      deliveries.map((d) => d.eventId),
      deliveries.map((d) => d.eventType),
      bodies,
      new Date(nowMs),
    ],
  );
  return rows.length;
}

/**
 * Due deliveries of enabled subscriptions, leased to the caller until `leaseUntilMs`: at most
 * `limit`, and per account no more than `perAccount` minus what it already has in flight; accounts
 * take turns (each account's oldest due first, then each account's second, ...). The UPDATE checks
 * the lease again, so two dispatchers claiming at once never both get a delivery.
 */
export function claimDue(
  db: SqlExecutor,
  nowMs: number,
  leaseUntilMs: number,
  limit: number,
  perAccount = Number.MAX_SAFE_INTEGER,
): Promise<ClaimedDelivery[]> {
  return db.query<ClaimedDelivery>(
    `WITH in_flight AS (
       SELECT s.account_id, count(*) AS n
         FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.status = 'pending' AND d.lease_until > $1
        GROUP BY s.account_id
     ), due AS (
       SELECT d.seq, d.next_attempt_at, s.account_id,
              row_number() OVER (PARTITION BY s.account_id ORDER BY d.next_attempt_at, d.seq) AS turn
         FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.status = 'pending' AND s.enabled AND d.next_attempt_at <= $1
          AND (d.lease_until IS NULL OR d.lease_until <= $1)
     ), chosen AS (
       SELECT due.seq FROM due LEFT JOIN in_flight f ON f.account_id = due.account_id
        WHERE due.turn + COALESCE(f.n, 0) <= $4
        ORDER BY due.turn, due.next_attempt_at, due.seq
        LIMIT $3
     )
     UPDATE webhook_deliveries d SET lease_until = $2
      WHERE d.seq IN (SELECT seq FROM chosen) AND d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until <= $1)
      RETURNING d.seq::text AS seq, d.id, d.subscription_id::text AS subscription_id, d.event_id, d.event_type, d.body, d.attempts, d.created_at`,
    [new Date(nowMs), new Date(leaseUntilMs), limit, Math.min(perAccount, 2_000_000_000)],
  );
}

/** Deletes finished deliveries (and, by cascade, their attempt logs) created before `beforeMs`, in bounded batches; returns how many. */
export async function purgeFinished(db: SqlExecutor, beforeMs: number, batchSize = 5_000): Promise<number> {
  let purged = 0;
  for (;;) {
    const rows = await db.query(
      `DELETE FROM webhook_deliveries WHERE seq IN (
         SELECT seq FROM webhook_deliveries WHERE status <> 'pending' AND created_at < $1 ORDER BY created_at LIMIT $2)
       RETURNING seq`,
      [new Date(beforeMs), batchSize],
    );
    purged += rows.length;
    if (rows.length < batchSize) return purged;
  }
}

export interface AttemptResult {
  delivery: ClaimedDelivery;
  attemptedAtMs: number;
  latencyMs: number;
  statusCode: number | null;
  error: string | null;
  /** Where the delivery goes next. */
  next: { status: 'succeeded' } | { status: 'failed' } | { status: 'pending'; atMs: number };
  /** What happens to the subscription. */
  subscription: { succeeded: true } | { succeeded: false; disableReason: string | null };
}

/** Records one attempt, moves the delivery on and updates the subscription's health, atomically. */
export async function recordAttempt(db: SqlExecutor, result: AttemptResult, disableAfterMs: number): Promise<{ disabled: string | null }> {
  const { delivery, next } = result;
  const at = new Date(result.attemptedAtMs);
  await db.query(
    `INSERT INTO webhook_attempts (delivery_seq, attempt, attempted_at, status_code, error, latency_ms) VALUES ($1, $2, $3, $4, $5, $6)`,
    [delivery.seq, delivery.attempts + 1, at, result.statusCode, result.error, Math.round(result.latencyMs)],
  );
  await db.query(
    `UPDATE webhook_deliveries
        SET attempts = attempts + 1, status = $2, next_attempt_at = $3, lease_until = NULL,
            last_status_code = $4, last_error = $5, delivered_at = CASE WHEN $2 = 'succeeded' THEN $6 ELSE delivered_at END
      WHERE seq = $1`,
    [delivery.seq, next.status, next.status === 'pending' ? new Date(next.atMs) : at, result.statusCode, result.error, at],
  );
  if (result.subscription.succeeded) {
    await db.query('UPDATE webhook_subscriptions SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL', [
      delivery.subscription_id,
    ]);
    return { disabled: null };
  }
  const [row] = await db.query<{ failing_since: Date }>(
    'UPDATE webhook_subscriptions SET failing_since = COALESCE(failing_since, $2) WHERE id = $1 RETURNING failing_since',
    [delivery.subscription_id, at],
  );
  let reason = result.subscription.disableReason;
  if (!reason && row && result.attemptedAtMs - new Date(row.failing_since).getTime() >= disableAfterMs) {
    reason = `no successful delivery since ${new Date(row.failing_since).toISOString()} (sustained failure); last error: ${result.error ?? `HTTP ${result.statusCode}`}`;
  }
  if (reason) {
    await db.query(
      `UPDATE webhook_subscriptions SET enabled = false, disabled_reason = $2, disabled_at = $3, updated_at = $3 WHERE id = $1 AND enabled`,
      [delivery.subscription_id, reason, at],
    );
  }
  return { disabled: reason };
}

export function listDeliveries(
  db: SqlExecutor,
  subscriptionId: string,
  limit: number,
  beforeSeq: string | null,
  status: string | null,
): Promise<DeliveryRecord[]> {
  return db.query<DeliveryRecord>(
    `SELECT seq::text AS seq, id, event_id, event_type, status, attempts, next_attempt_at, last_status_code, last_error, created_at, delivered_at
       FROM webhook_deliveries
      WHERE subscription_id = $1 AND ($2::bigint IS NULL OR seq < $2::bigint) AND ($3::text IS NULL OR status = $3)
      ORDER BY seq DESC LIMIT $4`,
    [subscriptionId, beforeSeq, status, limit],
  );
}

export function attemptsOf(db: SqlExecutor, deliverySeqs: string[]): Promise<AttemptRecord[]> {
  if (deliverySeqs.length === 0) return Promise.resolve([]);
  return db.query<AttemptRecord>(
    `SELECT delivery_seq::text AS delivery_seq, attempt, attempted_at, status_code, error, latency_ms
       FROM webhook_attempts WHERE delivery_seq = ANY($1::bigint[]) ORDER BY delivery_seq, attempt`,
    [deliverySeqs],
  );
}

/** Makes a delivery due now again (same delivery id, a new attempt appended to its log). */
export async function redeliver(
  db: SqlExecutor,
  subscriptionId: string,
  deliveryId: string,
  nowMs: number,
): Promise<DeliveryRecord | null> {
  const [row] = await db.query<DeliveryRecord>(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $3, lease_until = NULL
      WHERE subscription_id = $1 AND id = $2
      RETURNING seq::text AS seq, id, event_id, event_type, status, attempts, next_attempt_at, last_status_code, last_error, created_at, delivered_at`,
    [subscriptionId, deliveryId, new Date(nowMs)],
  );
  return row ?? null;
}
