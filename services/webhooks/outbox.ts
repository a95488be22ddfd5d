/**
 * The durable outbox of webhook deliveries in the control store. Producers enqueue idempotently
 * (one row per subscription and event id); dispatchers claim due rows under a lease, so a killed
 * dispatcher's in-flight deliveries become due again when the lease runs out.
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

/** Inserts the deliveries not already in the outbox; returns how many were new. */
export async function enqueueDeliveries(
  db: SqlExecutor,
  deliveries: NewDelivery[],
  nowMs: number,
  newId: () => string = newDeliveryId,
): Promise<number> {
  if (deliveries.length === 0) return 0;
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

/** Due deliveries of enabled subscriptions, leased to the caller until `leaseUntilMs`. */
export function claimDue(db: SqlExecutor, nowMs: number, leaseUntilMs: number, limit: number): Promise<ClaimedDelivery[]> {
  return db.query<ClaimedDelivery>(
    `UPDATE webhook_deliveries d SET lease_until = $2
      WHERE d.seq IN (
        SELECT d2.seq FROM webhook_deliveries d2 JOIN webhook_subscriptions s ON s.id = d2.subscription_id
         WHERE d2.status = 'pending' AND s.enabled AND d2.next_attempt_at <= $1
           AND (d2.lease_until IS NULL OR d2.lease_until <= $1)
         ORDER BY d2.next_attempt_at, d2.seq
         LIMIT $3
         FOR UPDATE OF d2 SKIP LOCKED)
      RETURNING d.seq::text AS seq, d.id, d.subscription_id::text AS subscription_id, d.event_id, d.event_type, d.body, d.attempts, d.created_at`,
    [new Date(nowMs), new Date(leaseUntilMs), limit],
  );
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
