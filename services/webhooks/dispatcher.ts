/**
 * The webhook dispatcher: claims due deliveries from the outbox under a lease (fair between
 * accounts and receiver hosts, with caps on each in flight), signs each one at send time over
 * the exact body bytes, sends it, and records the attempt with its consequence (success, retry at a
 * backed-off time, or failure, possibly disabling the subscription). It also purges finished
 * deliveries older than `retentionMs`, hourly.
 * Clock, random and transport are injected so the schedule and signatures are deterministic in tests.
 */
import type { Logger } from '../logger.js';
import type { ControlStore } from '../ports/control-store.js';
import type { Transport } from './http-transport.js';
import { claimDue, purgeFinished, recordAttempt, type ClaimedDelivery } from './outbox.js';
import { decide, type RetryPolicy } from './retry-policy.js';
import { signatureHeader } from './signature.js';
import { signingSecrets, type Subscription } from './subscriptions.js';

export interface DispatcherOptions {
  store: ControlStore;
  transport: Transport;
  policy: RetryPolicy;
  logger: Logger;
  timeoutMs: number;
  disableAfterMs: number;
  pollIntervalMs: number;
  concurrency: number;
  /** Deliveries of one account in flight at once, across dispatchers (default: no cap beyond `concurrency`). */
  accountConcurrency?: number;
  /** Deliveries to one receiver host in flight at once, across dispatchers (default: no cap beyond `concurrency`). */
  hostConcurrency?: number;
  /** Finished deliveries older than this are purged (default: kept). */
  retentionMs?: number;
  /** Least time between two claims of due deliveries (default 100 ms). */
  minClaimIntervalMs?: number;
  /** How long a claim is held; default twice the timeout plus 5 s. A killed dispatcher's claims are retried after it. */
  leaseMs?: number;
  clock?: () => number;
  random?: () => number;
  /** Observes every finished attempt (benchmarks, tests). */
  onAttempt?: (event: { delivery: ClaimedDelivery; statusCode: number | null; succeeded: boolean; sentAtMs: number }) => void;
}

export interface Dispatcher {
  /** Looks for due deliveries now instead of at the next poll. */
  wake(): void;
  stop(): Promise<void>;
}

type SigningRow = Pick<Subscription, 'id' | 'url' | 'secret' | 'previous_secret' | 'previous_secret_expires_at'>;

export function startDispatcher(options: DispatcherOptions): Dispatcher {
  const clock = options.clock ?? Date.now;
  const random = options.random ?? Math.random;
  // A lease outlives the longest possible attempt, so a live dispatcher never loses one it is sending.
  const leaseMs = options.leaseMs ?? options.timeoutMs * 2 + 5_000;
  let stopping = false;
  let wakeUp: (() => void) | null = null;
  let wakeRequested = false;

  const attempt = async (delivery: ClaimedDelivery, subscription: SigningRow | undefined) => {
    if (!subscription) return; // deleted meanwhile: the cascade removed the delivery too
    const sentAtMs = clock();
    const timestamp = Math.floor(sentAtMs / 1000);
    const started = performance.now();
    const outcome = await options.transport(
      {
        url: subscription.url,
        body: delivery.body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'tapeline-webhooks/1',
          'x-service-event': delivery.event_type,
          'x-service-delivery': delivery.id,
          'x-service-timestamp': String(timestamp),
          'x-service-signature': signatureHeader(signingSecrets(subscription, sentAtMs), timestamp, delivery.body),
        },
      },
      options.timeoutMs,
    );
    const latencyMs = performance.now() - started;
    const decision = decide(outcome, delivery.attempts + 1, options.policy, random, clock());
    const statusCode = outcome.kind === 'response' ? outcome.status : null;
    const { disabled } = await options.store.transaction((tx) =>
      recordAttempt(
        tx,
        {
          delivery,
          attemptedAtMs: sentAtMs,
          latencyMs,
          statusCode,
          error: decision.next === 'succeeded' ? null : decision.error,
          next: decision.next === 'retry' ? { status: 'pending', atMs: clock() + decision.delayMs } : { status: decision.next },
          subscription:
            decision.next === 'succeeded'
              ? { succeeded: true }
              : { succeeded: false, disableReason: decision.next === 'failed' ? decision.disableReason : null },
        },
        options.disableAfterMs,
      ),
    );
    if (disabled) options.logger.warn({ subscription: delivery.subscription_id, reason: disabled }, 'webhook subscription disabled');
    options.onAttempt?.({ delivery, statusCode, succeeded: decision.next === 'succeeded', sentAtMs });
  };

  // A pool, not rounds: a hanging receiver holds one slot until its timeout, never the others.
  const inFlight = new Set<Promise<void>>();

  /** Claims as many due deliveries as there are free slots and starts them; returns how many. */
  const fillSlots = async (): Promise<number> => {
    const free = options.concurrency - inFlight.size;
    if (free <= 0) return 0;
    const now = clock();
    const claimed = await claimDue(options.store, now, now + leaseMs, free, {
      perAccount: options.accountConcurrency,
      perHost: options.hostConcurrency,
    });
    if (claimed.length === 0) return 0;
    const ids = [...new Set(claimed.map((d) => d.subscription_id))];
    const subscriptions = await options.store.query<SigningRow>(
      `SELECT id::text AS id, url, secret, previous_secret, previous_secret_expires_at FROM webhook_subscriptions WHERE id = ANY($1::bigint[])`,
      [ids],
    );
    const byId = new Map(subscriptions.map((s) => [s.id, s]));
    for (const delivery of claimed) {
      const running: Promise<void> = attempt(delivery, byId.get(delivery.subscription_id))
        .catch((error: unknown) => {
          // The lease runs out and the delivery is attempted again: at-least-once, never dropped.
          options.logger.warn({ err: error, delivery: delivery.id }, 'webhook attempt could not be recorded; it will be retried');
        })
        .finally(() => {
          inFlight.delete(running);
          wake();
        });
      inFlight.add(running);
    }
    return claimed.length;
  };

  // Claims are spaced at least this far apart: each is a query over the outbox, and with fast
  // receivers slots free up continuously; one claim fills every slot freed meanwhile.
  const minClaimIntervalMs = options.minClaimIntervalMs ?? 100;
  let lastClaimAt = 0;
  const loop = async () => {
    while (!stopping) {
      let started = 0;
      const wait = lastClaimAt + minClaimIntervalMs - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      lastClaimAt = performance.now();
      try {
        started = await fillSlots();
      } catch (error) {
        options.logger.warn({ err: error }, 'webhook dispatch round failed; retrying');
      }
      // Started some and slots remain: more may be due, look again at once. Otherwise idle until a
      // slot frees, an enqueue wakes us, or the poll interval passes.
      if ((started === 0 || inFlight.size >= options.concurrency) && !stopping) await idle();
    }
    await Promise.all(inFlight);
  };

  const wake = () => {
    if (wakeUp) wakeUp();
    else wakeRequested = true;
  };

  const idle = () =>
    new Promise<void>((resolve) => {
      if (wakeRequested) {
        wakeRequested = false;
        return resolve();
      }
      const timer = setTimeout(done, options.pollIntervalMs);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });

  // Retention: at start and hourly; a failure is retried at the next hour.
  const purge = () => {
    if (options.retentionMs === undefined) return;
    purgeFinished(options.store, clock() - options.retentionMs).then(
      (purged) => purged > 0 && options.logger.info({ purged }, 'purged finished webhook deliveries past retention'),
      (error: unknown) => options.logger.warn({ err: error }, 'webhook retention purge failed; retrying in an hour'),
    );
  };
  purge();
  const purgeTimer = setInterval(purge, 3_600_000);
  purgeTimer.unref();

  const finished = loop();
  return {
    wake,
    async stop() {
      stopping = true;
      clearInterval(purgeTimer);
      wakeUp?.();
      await finished;
    },
  };
}
