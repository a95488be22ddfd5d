/**
 * Composes webhooks for one process: the signals processor (its own consumer group), the dispatcher
 * over the durable outbox, and what the API routes need. Each part only talks to the ports, so the
 * processor and the dispatcher can also run as separate processes on the same stores.
 */
import type { WebhooksApi } from './subscriptions.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { ControlStore } from '../ports/control-store.js';
import type { EventLog } from '../ports/event-log.js';
import { startSignals, type SignalsService } from '../signals/signals-service.js';
import { analyticsTraderContext } from '../signals/trader-context.js';
import type { BaselineSeed } from '../signals/volume-windows.js';
import { startDispatcher, type Dispatcher } from './dispatcher.js';
import { createHttpTransport } from './http-transport.js';
import type { RetryPolicy } from './retry-policy.js';
import { WebhookSubscriptions } from './subscriptions.js';
import { UrlGuard } from './url-guard.js';

export function retryPolicyFrom(config: Config): RetryPolicy {
  return {
    scheduleMs: config.webhooks.retryScheduleMs,
    jitter: config.webhooks.retryJitter,
    throttleMinDelayMs: config.webhooks.throttleMinDelayMs,
    retryAfterMaxMs: config.webhooks.retryAfterMaxMs,
  };
}

/** The dispatcher over the durable outbox (the `webhooks` part). */
export function startWebhookDispatcher(
  config: Config,
  control: ControlStore,
  logger: Logger,
): { dispatcher: Dispatcher; stop(): Promise<void> } {
  const transport = createHttpTransport(new UrlGuard(config.webhooks.allowedHosts));
  const dispatcher = startDispatcher({
    store: control,
    transport: transport.send,
    policy: retryPolicyFrom(config),
    logger: logger.child({ part: 'webhook-dispatcher' }),
    timeoutMs: config.webhooks.timeoutMs,
    disableAfterMs: config.webhooks.disableAfterMs,
    pollIntervalMs: config.webhooks.pollIntervalMs,
    concurrency: config.webhooks.concurrency,
    accountConcurrency: config.webhooks.accountConcurrency,
    hostConcurrency: config.webhooks.hostConcurrency,
    retentionMs: config.webhooks.retentionMs,
  });
  return {
    dispatcher,
    async stop() {
      await dispatcher.stop();
      transport.close();
    },
  };
}

/** The signals processor (the `signals` part); `onEnqueued` wakes a dispatcher in the same process. */
export function startSignalsProcessor(
  config: Config,
  log: EventLog,
  control: ControlStore,
  analytics: AnalyticsStore,
  logger: Logger,
  onEnqueued: () => void = () => {},
): Promise<SignalsService> {
  return startSignals({
    log,
    control,
    traderContext: analyticsTraderContext(analytics),
    largeTradeUsdc: config.signals.largeTradeUsdc,
    minLargeTradeUsdc: config.webhooks.largeTradeMinUsdc,
    maxPendingPerSubscription: config.webhooks.pendingPerSubscription,
    priceChangePct: config.signals.priceChangePct,
    priceWindowMs: config.signals.priceWindowMs,
    volume: { ...config.signals.volume, seed: indexedVolume(analytics) },
    logger: logger.child({ part: 'signals' }),
    onEnqueued,
  });
}

/** What the /webhooks routes need; `wake` nudges an in-process dispatcher (others poll the outbox). */
export function webhooksApi(config: Config, control: ControlStore, wake: () => void = () => {}): WebhooksApi {
  const subscriptions = new WebhookSubscriptions({
    store: control,
    guard: new UrlGuard(config.webhooks.allowedHosts),
    clock: Date.now,
    secretGraceMs: config.webhooks.secretGraceMs,
    maxPerAccount: config.webhooks.subscriptionsPerAccount,
    minLargeTradeUsdc: config.webhooks.largeTradeMinUsdc,
  });
  return { subscriptions, store: control, clock: Date.now, wake, maxPendingPerSubscription: config.webhooks.pendingPerSubscription };
}

/** Markets' indexed taker volume per minute in [from, to) (volume-spike baselines after a start), in one query. */
function indexedVolume(analytics: AnalyticsStore): BaselineSeed {
  return async (marketIds, fromMs, toMs) => {
    const rows = await analytics.query<{ market_id: string; minute_ms: string; usdc: number }>(
      `SELECT market_id, toUnixTimestamp64Milli(toStartOfMinute(ts)::DateTime64(3)) AS minute_ms, sum(size_usdc) AS usdc FROM trades FINAL
        WHERE market_id IN {markets:Array(String)} AND ts >= fromUnixTimestamp64Milli({from:Int64}) AND ts < fromUnixTimestamp64Milli({to:Int64})
        GROUP BY market_id, minute_ms`,
      { markets: marketIds, from: fromMs, to: toMs },
    );
    return rows.map((r) => [r.market_id, Number(r.minute_ms), Number(r.usdc)]);
  };
}
