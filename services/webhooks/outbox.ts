/**
 * The durable outbox of webhook deliveries in the control store. Producers enqueue idempotently
 * (one row per subscription and event id), up to a backlog cap per subscription that every producer
 * and redelivery goes through (events past it are counted as dropped on the subscription); dispatchers claim due rows under a lease, so a
 * killed dispatcher's in-flight deliveries become due again when the lease runs out. Claims are
 * fair: each account and each receiver host has at most a few deliveries in flight (leased) across
 * all dispatchers, failing receivers wait behind healthy ones, and accounts take turns for the free
 * slots, so one account's (or one host's) slow receivers cannot hold everyone's. Finished
 * deliveries are purged after the retention period.
 */
import crypto from 'node:crypto';
import type { ControlStore, SqlExecutor } from '../ports/control-store.js';

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

function newDeliveryId(): string {
  return `dlv_${crypto.randomBytes(16).toString('hex')}`;
}

/** What an enqueue did: deliveries added, and deliveries refused because their subscription's backlog was full. */
export interface Enqueued {
  enqueued: number;
  dropped: number;
}

/**
 * Inserts the deliveries not already in the outbox. A subscription already holding
 * `maxPendingPerSubscription` undelivered deliveries gets none of these: they are counted in its
 * dropped_events instead. The cap is not optional: every producer (signals, the copy engine, test
 * events) goes through it, or one of them can grow a backlog without bound. The subscriptions' rows
 * are locked (in id order, so producers never deadlock) before their room is read, so producers
 * enqueueing at once cannot both take the last place; call it inside a transaction.
 */
export async function enqueueDeliveries(
  db: SqlExecutor,
  wanted: NewDelivery[],
  nowMs: number,
  maxPendingPerSubscription: number,
  newId: () => string = newDeliveryId,
): Promise<Enqueued> {
  if (wanted.length === 0) return { enqueued: 0, dropped: 0 };
  const subscriptionIds = [...new Set(wanted.map((d) => d.subscriptionId))];
  // Each subscription keeps its count of pending deliveries (below), so this costs one row per subscription.
  const backlog = await db.query<{ subscription_id: string; pending: string }>(
    `SELECT id::text AS subscription_id, pending_deliveries::text AS pending FROM webhook_subscriptions
      WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE`,
    [subscriptionIds],
  );
  const room = new Map(subscriptionIds.map((id) => [id, maxPendingPerSubscription]));
  for (const row of backlog) room.set(row.subscription_id, maxPendingPerSubscription - Number(row.pending));
  const dropped = new Map<string, number>();
  const deliveries = wanted.filter((d) => {
    const left = room.get(d.subscriptionId)!;
    if (left > 0) {
      room.set(d.subscriptionId, left - 1);
      return true;
    }
    dropped.set(d.subscriptionId, (dropped.get(d.subscriptionId) ?? 0) + 1);
    return false;
  });
  const droppedCount = await countDropped(db, dropped, nowMs);
  if (deliveries.length === 0) return { enqueued: 0, dropped: droppedCount };
  const ids = deliveries.map(() => newId());
  // The body is fixed here, once: every attempt sends (and signs) exactly these bytes.
  const bodies = deliveries.map((d, i) => JSON.stringify({ event: d.payload.event, id: d.eventId, delivery_id: ids[i], ...d.payload }));
  const rows = await db.query<{ subscription_id: string }>(
    `WITH inserted AS (
       INSERT INTO webhook_deliveries (id, subscription_id, event_id, event_type, body, status, next_attempt_at, created_at)
       SELECT id, subscription_id, event_id, event_type, body, 'pending', $6, $6
         FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[]) AS t(id, subscription_id, event_id, event_type, body)
       ON CONFLICT (subscription_id, event_id) DO NOTHING
       RETURNING subscription_id
     ), counted AS (
       UPDATE webhook_subscriptions s SET pending_deliveries = s.pending_deliveries + n.added
         FROM (SELECT subscription_id, count(*) AS added FROM inserted GROUP BY subscription_id) n WHERE s.id = n.subscription_id
     )
     SELECT subscription_id::text AS subscription_id FROM inserted`,
    [
      ids,
      deliveries.map((d) => d.subscriptionId),
      deliveries.map((d) => d.eventId),
      deliveries.map((d) => d.eventType),
      bodies,
      new Date(nowMs),
    ],
  );
  return { enqueued: rows.length, dropped: droppedCount };
}

async function countDropped(db: SqlExecutor, dropped: Map<string, number>, nowMs: number): Promise<number> {
  if (dropped.size === 0) return 0;
  await db.query(
    `UPDATE webhook_subscriptions s SET dropped_events = s.dropped_events + t.n, last_dropped_at = $3
       FROM unnest($1::bigint[], $2::bigint[]) AS t(id, n) WHERE s.id = t.id`,
    [[...dropped.keys()], [...dropped.values()], new Date(nowMs)],
  );
  return [...dropped.values()].reduce((sum, n) => sum + n, 0);
}

/**
 * Deliveries per transaction of `enqueueInChunks`. One trade fanned out to 1,000 subscriptions is
 * 1,000 rows at ~75 us each on PGlite, whose work runs on the calling thread: in one statement that
 * held the embedded service's API for 75-490 ms at a time (test/abuse's webhook phase); 200 rows hold
 * it for ~15 ms and cost the same in total (50 rows cost 25 % more).
 */
export const ENQUEUE_CHUNK = 200;

/**
 * `enqueueDeliveries` in transactions of at most `ENQUEUE_CHUNK` deliveries, giving the event loop a
 * turn between them (requests waiting on the API's thread and the control store go first). Chunks
 * commit one by one: a caller that fails part way and retries (the signals processor replays its
 * batch) finds the chunks already in and skips them (one delivery per subscription and event).
 */
export async function enqueueInChunks(
  store: ControlStore,
  wanted: NewDelivery[],
  nowMs: number,
  maxPendingPerSubscription: number,
): Promise<Enqueued> {
  const total = { enqueued: 0, dropped: 0 };
  for (let start = 0; start < wanted.length; start += ENQUEUE_CHUNK) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const chunk = wanted.slice(start, start + ENQUEUE_CHUNK);
    const done = await store.transaction((tx) => enqueueDeliveries(tx, chunk, nowMs, maxPendingPerSubscription));
    total.enqueued += done.enqueued;
    total.dropped += done.dropped;
  }
  return total;
}

export interface ClaimCaps {
  /** Deliveries of one account in flight at once, across dispatchers. */
  perAccount?: number;
  /** Deliveries to one receiver host (host:port) in flight at once, across dispatchers. */
  perHost?: number;
}

/**
 * Due deliveries of enabled subscriptions, leased to the caller until `leaseUntilMs`: at most
 * `limit`; per account and per receiver host no more than their caps minus what is already in
 * flight; subscriptions whose last attempt failed after healthy ones; and accounts take turns
 * (each account's oldest due first, then each account's second, ...). Each subscription offers only
 * its oldest few due deliveries, so a claim costs the same however large a backlog grows. The UPDATE
 * checks the lease again, so two dispatchers claiming at once never both get a delivery.
 *
 * Subscriptions whose account or host has no room left are dropped before their deliveries are
 * looked up: a receiver that hangs holds its host's cap, and its subscriptions then cost a claim
 * nothing: with 1,000 of them behind one hanging host, a claim looking them all up held PGlite's
 * thread, which is the API's thread in the embedded service, for an order of magnitude longer
 * (test/abuse floods it).
 */
export function claimDue(
  db: SqlExecutor,
  nowMs: number,
  leaseUntilMs: number,
  limit: number,
  caps: ClaimCaps = {},
): Promise<ClaimedDelivery[]> {
  // Without a cap nothing is held back; each subscription still offers no more than can be taken.
  const perAccount = caps.perAccount ?? 1_000_000_000;
  const perHost = caps.perHost ?? 1_000_000_000;
  const offered = Math.min(perAccount, limit);
  return db.query<ClaimedDelivery>(
    `WITH in_flight AS (
       SELECT s.account_id, s.host
         FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.status = 'pending' AND d.lease_until > $1
     ), account_busy AS (
       SELECT account_id, count(*) AS n FROM in_flight GROUP BY account_id
     ), host_busy AS (
       SELECT host, count(*) AS n FROM in_flight GROUP BY host
     ), open_subscriptions AS (
       SELECT s.id, s.account_id, s.host, s.failing_since IS NOT NULL AS failing,
              $4 - COALESCE(a.n, 0) AS account_room, $5 - COALESCE(h.n, 0) AS host_room
         FROM webhook_subscriptions s
         LEFT JOIN account_busy a ON a.account_id = s.account_id
         LEFT JOIN host_busy h ON h.host = s.host
        WHERE s.enabled AND COALESCE(a.n, 0) < $4 AND COALESCE(h.n, 0) < $5
     ), candidates AS (
       SELECT d.seq, d.next_attempt_at, o.account_id, o.host, o.failing, o.account_room, o.host_room
         FROM open_subscriptions o
         CROSS JOIN LATERAL (
           SELECT d.seq, d.next_attempt_at FROM webhook_deliveries d
            WHERE d.subscription_id = o.id AND d.status = 'pending' AND d.next_attempt_at <= $1
              AND (d.lease_until IS NULL OR d.lease_until <= $1)
            ORDER BY d.next_attempt_at, d.seq LIMIT LEAST($6, o.account_room)) d
     ), ranked AS (
       SELECT c.*,
              row_number() OVER (PARTITION BY c.account_id ORDER BY c.failing, c.next_attempt_at, c.seq) AS account_turn,
              row_number() OVER (PARTITION BY c.host ORDER BY c.failing, c.next_attempt_at, c.seq) AS host_turn
         FROM candidates c
     ), chosen AS (
       SELECT r.seq FROM ranked r
        WHERE r.account_turn <= r.account_room AND r.host_turn <= r.host_room
        ORDER BY r.failing, r.account_turn, r.next_attempt_at, r.seq
        LIMIT $3
     )
     UPDATE webhook_deliveries d SET lease_until = $2
      WHERE d.seq IN (SELECT seq FROM chosen) AND d.status = 'pending' AND (d.lease_until IS NULL OR d.lease_until <= $1)
      RETURNING d.seq::text AS seq, d.id, d.subscription_id::text AS subscription_id, d.event_id, d.event_type, d.body, d.attempts, d.created_at`,
    [new Date(nowMs), new Date(leaseUntilMs), limit, perAccount, perHost, offered],
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
  const moved = await db.query(
    `UPDATE webhook_deliveries
        SET attempts = attempts + 1, status = $2, next_attempt_at = $3, lease_until = NULL,
            last_status_code = $4, last_error = $5, delivered_at = CASE WHEN $2 = 'succeeded' THEN $6 ELSE delivered_at END
      WHERE seq = $1 AND status = 'pending'
      RETURNING seq`,
    [delivery.seq, next.status, next.status === 'pending' ? new Date(next.atMs) : at, result.statusCode, result.error, at],
  );
  // A delivery that leaves the pending state frees room in its subscription's backlog.
  if (moved.length > 0 && next.status !== 'pending') {
    await db.query('UPDATE webhook_subscriptions SET pending_deliveries = GREATEST(pending_deliveries - 1, 0) WHERE id = $1', [
      delivery.subscription_id,
    ]);
  }
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
      -- Qualified: a bare "seq" here would name the text output column and sort 10 before 9.
      ORDER BY webhook_deliveries.seq DESC LIMIT $4`,
    [subscriptionId, beforeSeq, status, limit],
  );
}

export function attemptsOf(db: SqlExecutor, deliverySeqs: string[]): Promise<AttemptRecord[]> {
  if (deliverySeqs.length === 0) return Promise.resolve([]);
  return db.query<AttemptRecord>(
    `SELECT delivery_seq::text AS delivery_seq, attempt, attempted_at, status_code, error, latency_ms
       FROM webhook_attempts WHERE delivery_seq = ANY($1::bigint[]) ORDER BY webhook_attempts.delivery_seq, attempt`,
    [deliverySeqs],
  );
}

export type Redelivery = { delivery: DeliveryRecord } | { backlogFull: true } | { notFound: true };

/**
 * Makes a delivery due now again (same delivery id, a new attempt appended to its log). A finished
 * delivery made pending again takes a place in the backlog like a new one: with the backlog full it
 * is refused and counted as dropped. Call it inside a transaction (the row locks hold the count).
 */
export async function redeliver(
  db: SqlExecutor,
  subscriptionId: string,
  deliveryId: string,
  nowMs: number,
  maxPendingPerSubscription: number,
): Promise<Redelivery> {
  const [subscription] = await db.query<{ pending: number }>(
    'SELECT pending_deliveries AS pending FROM webhook_subscriptions WHERE id = $1 FOR UPDATE',
    [subscriptionId],
  );
  const [target] = await db.query<{ status: DeliveryRecord['status'] }>(
    'SELECT status FROM webhook_deliveries WHERE subscription_id = $1 AND id = $2 FOR UPDATE',
    [subscriptionId, deliveryId],
  );
  if (!subscription || !target) return { notFound: true };
  const joinsBacklog = target.status !== 'pending';
  if (joinsBacklog && Number(subscription.pending) >= maxPendingPerSubscription) {
    await countDropped(db, new Map([[subscriptionId, 1]]), nowMs);
    return { backlogFull: true };
  }
  const [row] = await db.query<DeliveryRecord>(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $3, lease_until = NULL
      WHERE subscription_id = $1 AND id = $2
      RETURNING seq::text AS seq, id, event_id, event_type, status, attempts, next_attempt_at, last_status_code, last_error, created_at, delivered_at`,
    [subscriptionId, deliveryId, new Date(nowMs)],
  );
  if (joinsBacklog)
    await db.query('UPDATE webhook_subscriptions SET pending_deliveries = pending_deliveries + 1 WHERE id = $1', [subscriptionId]);
  return { delivery: row! };
}
