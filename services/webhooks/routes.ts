/** /webhooks: subscriptions of the calling account, their delivery log, test events and redelivery. */
import { queryOf } from '../http/query.js';
import { isoOrNull } from '../shared/time.js';
import crypto from 'node:crypto';
import { Router, type Request } from 'express';
import { EVENT_TYPE_INFO, EVENT_TYPES, TEST_EVENT_TYPE } from './event-types.js';
import { attemptsOf, enqueueDeliveries, listDeliveries, redeliver, type AttemptRecord, type DeliveryRecord } from './outbox.js';
import { secretHint } from './signature.js';
import { UnsafeUrlError } from './url-guard.js';
import { type Subscription, SubscriptionRefusedError, type WebhooksApi } from './subscriptions.js';
import { keysetPage } from '../http/keyset.js';
import { success } from '../http/envelope.js';
import { ApiError } from '../http/errors.js';

/** A test event or redelivery with the subscription's backlog full: 409, counted as dropped like any event. */
const backlogFull = (api: WebhooksApi) =>
  new ApiError(
    409,
    'CONFLICT',
    `the subscription already holds ${api.maxPendingPerSubscription} undelivered deliveries (WEBHOOK_PENDING_PER_SUBSCRIPTION); ` +
      'retry once its receiver has taken some (GET /webhooks/{id}/deliveries?status=pending)',
    { reason: 'backlog_full' },
  );

/** PostgreSQL timestamps arrive as Date. */
const iso = (value: Date | null) => isoOrNull(value?.getTime());

function presentSubscription(s: Subscription, now: number, secret?: string) {
  const graceRunning = s.previous_secret_expires_at !== null && new Date(s.previous_secret_expires_at).getTime() > now;
  return {
    id: s.id,
    url: s.url,
    events: s.events,
    filters: s.filters,
    enabled: s.enabled,
    disabled_reason: s.disabled_reason,
    disabled_at: iso(s.disabled_at),
    secret_hint: secretHint(s.secret),
    previous_secret_expires_at: graceRunning ? iso(s.previous_secret_expires_at) : null,
    dropped_events: Number(s.dropped_events),
    last_dropped_at: iso(s.last_dropped_at),
    created_at: iso(s.created_at)!,
    updated_at: iso(s.updated_at)!,
    ...(secret ? { secret } : {}),
  };
}

function presentDelivery(d: DeliveryRecord, attempts: AttemptRecord[]) {
  return {
    id: d.id,
    event: d.event_type,
    event_id: d.event_id,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? iso(d.next_attempt_at) : null,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    created_at: iso(d.created_at)!,
    delivered_at: iso(d.delivered_at),
    attempt_log: attempts.map((a) => ({
      attempt: a.attempt,
      attempted_at: iso(a.attempted_at)!,
      status_code: a.status_code,
      error: a.error,
      latency_ms: a.latency_ms,
    })),
  };
}

const ownerOf = (request: Request) => request.owner!.account_id;

/** SSRF and filter refusals are the subscriber's input problem (400); the subscription limit is 409. */
async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UnsafeUrlError) throw ApiError.badRequest(error.message);
    if (error instanceof SubscriptionRefusedError)
      throw error.kind === 'invalid' ? ApiError.badRequest(error.message) : new ApiError(409, 'CONFLICT', error.message);
    throw error;
  }
}

export function webhookRoutes(api: WebhooksApi): Router {
  const router = Router();

  const requireSubscription = async (request: Request) => {
    const subscription = await api.subscriptions.get(ownerOf(request), String(request.params.id));
    if (!subscription) throw ApiError.notFound(`webhook subscription not found: ${request.params.id}`);
    return subscription;
  };

  router.post('/webhooks', async (request, response) => {
    const created = await guarded(() => api.subscriptions.create(ownerOf(request), request.body));
    // The only time the secret is shown in full (rotate-secret shows its replacement once).
    response.status(201).json(success(presentSubscription(created, api.clock(), created.secret)));
  });

  router.get('/webhooks', async (request, response) => {
    response.json(
      await keysetPage(request, {
        filters: {},
        shape: ['id'],
        fetch: (after, take) => api.subscriptions.list(ownerOf(request), take, after ? String(after[0]) : null),
        keyOf: (s) => [s.id],
        present: (s) => presentSubscription(s, api.clock()),
      }),
    );
  });

  // Before /webhooks/:id, which would otherwise take the name as an id.
  router.get('/webhooks/event-types', (_request, response) => {
    response.json(success(EVENT_TYPES.map((event) => ({ event, ...EVENT_TYPE_INFO[event] }))));
  });

  router.get('/webhooks/:id', async (request, response) => {
    response.json(success(presentSubscription(await requireSubscription(request), api.clock())));
  });

  router.patch('/webhooks/:id', async (request, response) => {
    const updated = await guarded(() => api.subscriptions.update(ownerOf(request), String(request.params.id), request.body));
    if (!updated) throw ApiError.notFound(`webhook subscription not found: ${request.params.id}`);
    if (updated.enabled) api.wake();
    response.json(success(presentSubscription(updated, api.clock())));
  });

  router.delete('/webhooks/:id', async (request, response) => {
    const deleted = await api.subscriptions.delete(ownerOf(request), String(request.params.id));
    if (!deleted) throw ApiError.notFound(`webhook subscription not found: ${request.params.id}`);
    response.json(success({ id: String(request.params.id), deleted: true }));
  });

  router.post('/webhooks/:id/rotate-secret', async (request, response) => {
    const rotated = await api.subscriptions.rotateSecret(ownerOf(request), String(request.params.id));
    if (!rotated) throw ApiError.notFound(`webhook subscription not found: ${request.params.id}`);
    response.json(success(presentSubscription(rotated, api.clock(), rotated.secret)));
  });

  router.post('/webhooks/:id/test', async (request, response) => {
    const subscription = await requireSubscription(request);
    const now = api.clock();
    const eventId = `evt_test_${crypto.randomBytes(12).toString('hex')}`;
    const payload = { event: TEST_EVENT_TYPE, id: eventId, subscription_id: subscription.id, timestamp: new Date(now).toISOString() };
    const done = await api.store.transaction((tx) =>
      enqueueDeliveries(
        tx,
        [{ subscriptionId: subscription.id, eventId, eventType: TEST_EVENT_TYPE, payload }],
        now,
        api.maxPendingPerSubscription,
      ),
    );
    if (done.enqueued === 0) throw backlogFull(api);
    api.wake();
    const [delivery] = await listDeliveries(api.store, subscription.id, 1, null, null);
    response.status(202).json(success(presentDelivery(delivery!, [])));
  });

  router.get('/webhooks/:id/deliveries', async (request, response) => {
    const subscription = await requireSubscription(request);
    const status = queryOf(request, 'listWebhookDeliveries').status ?? null;
    response.json(
      await keysetPage(request, {
        filters: { status: status ?? undefined },
        shape: ['id'],
        fetch: async (after, take) => {
          const rows = await listDeliveries(api.store, subscription.id, take, after ? String(after[0]) : null, status);
          const attempts = await attemptsOf(
            api.store,
            rows.map((d) => d.seq),
          );
          return rows.map((d) => ({ delivery: d, attempts: attempts.filter((a) => a.delivery_seq === d.seq) }));
        },
        keyOf: (row) => [row.delivery.seq],
        present: (row) => presentDelivery(row.delivery, row.attempts),
      }),
    );
  });

  router.post('/webhooks/:id/deliveries/:delivery_id/redeliver', async (request, response) => {
    const subscription = await requireSubscription(request);
    const done = await api.store.transaction((tx) =>
      redeliver(tx, subscription.id, String(request.params.delivery_id), api.clock(), api.maxPendingPerSubscription),
    );
    if ('notFound' in done) throw ApiError.notFound(`delivery not found: ${request.params.delivery_id}`);
    if ('backlogFull' in done) throw backlogFull(api);
    const { delivery } = done;
    api.wake();
    response.status(202).json(success(presentDelivery(delivery, await attemptsOf(api.store, [delivery.seq]))));
  });

  return router;
}
