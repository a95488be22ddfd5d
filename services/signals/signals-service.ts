/**
 * The signals processor: its own consumer group over the trades and market-lifecycle topics. Per
 * batch it detects trade.executed, trader.large_trade, market.price_signal and market.volume_spike
 * from trades, and market.resolved from the lifecycle's settlement transitions (resolved, voided,
 * corrected, each carrying `notify`), matches them against enabled subscriptions, and writes the
 * deliveries to the outbox in one transaction; then it publishes the signals it decided to the
 * signals stream (signal-stream.ts: what the `signals` stream channel reads) - all before the log
 * commits the batch's offsets. A crash anywhere redelivers the batch, and the outbox's unique
 * (subscription, event id) makes that harmless; the event id of a resolution is the market and its
 * resolution number, so it is delivered once per resolution however often the lifecycle re-emits it.
 * Every signal's id is deterministic, so a redelivered batch publishes the same records with the
 * same ids (as the lifecycle processor does); trade.executed is not republished: it is each trade.
 */
import { EventPublisher } from '../events/publisher.js';
import type { StreamSignalMessage } from '../http/types.generated.js';
import type { Logger } from '../logger.js';
import type { ControlStore } from '../ports/control-store.js';
import type { EventLog } from '../ports/event-log.js';
import { defineProcessor, type ProcessorBatch, type ProcessorRecord, recordsOf, runProcessor } from '../processors/processor.js';
import type { MarketLifecycleTransition, TradeExecuted } from '../events/types.js';
import { STREAMS } from '../read-models/registry.js';
import { enqueueInChunks, type NewDelivery } from '../webhooks/outbox.js';
import type { Subscription } from '../webhooks/subscriptions.js';
import { isLiveTrade } from './live-trade.js';
import { wants } from './matching.js';
import { largeTrade, marketResolved, priceSignal, tradeExecuted, type TraderContext, volumeSpike } from './payloads.js';
import { PriceWindows } from './price-windows.js';
import type { SignalDecided } from './signal-stream.js';
import { type BaselineSeed, VolumeWindows } from './volume-windows.js';
import type { TraderContextSource } from './trader-context.js';

const SIGNALS_GROUP_ID = 'tapeline-signals';

const SIGNAL_EVENTS = ['trade.executed', 'trader.large_trade', 'market.price_signal', 'market.volume_spike', 'market.resolved'];

export interface SignalsOptions {
  log: EventLog;
  control: ControlStore;
  traderContext: TraderContextSource;
  largeTradeUsdc: number;
  /** Floor under every subscription's own large-trade threshold (subscriptions made before the floor may hold lower ones). */
  minLargeTradeUsdc?: number;
  /** Backlog cap per subscription (WEBHOOK_PENDING_PER_SUBSCRIPTION; see outbox.ts). */
  maxPendingPerSubscription: number;
  priceChangePct: number;
  priceWindowMs: number;
  /** market.volume_spike rule; off when absent. */
  volume?: { windowMs: number; baselineMs: number; spikeRatio: number; minUsdc: number; seed?: BaselineSeed };
  logger: Logger;
  clock?: () => number;
  /** Called after deliveries were enqueued (the in-process dispatcher wakes up at once). */
  onEnqueued?: (count: number) => void;
  groupId?: string;
}

interface SignalsStats {
  batches: number;
  enqueued: number;
  /** Deliveries refused by a full backlog (also counted per subscription). */
  dropped: number;
  price_signals: number;
  volume_spikes: number;
  resolutions: number;
  /** Signals published to the signals stream (redelivered batches count again). */
  published: number;
  /** Trades ingested too long after they happened to decide signals (live-trade.ts). */
  late_trades: number;
}

export interface SignalsService {
  readonly stats: SignalsStats;
  stop(): Promise<void>;
}

export async function startSignals(options: SignalsOptions): Promise<SignalsService> {
  const clock = options.clock ?? Date.now;
  const windows = new PriceWindows(options.priceWindowMs, options.priceChangePct);
  const volumes = options.volume ? new VolumeWindows(options.volume, options.volume.seed, clock) : null;
  const stats: SignalsStats = {
    batches: 0,
    enqueued: 0,
    dropped: 0,
    price_signals: 0,
    volume_spikes: 0,
    resolutions: 0,
    published: 0,
    late_trades: 0,
  };
  const publisher = new EventPublisher(options.log);
  // The stream carries trader.large_trade at the service's own threshold; a subscription may choose another.
  const streamLargeTradeUsdc = Math.max(options.largeTradeUsdc, options.minLargeTradeUsdc ?? 0);

  const loadSubscriptions = (control: ControlStore) =>
    control.query<Subscription>(
      `SELECT id::text AS id, events, filters, created_at FROM webhook_subscriptions WHERE enabled AND events && $1::text[]`,
      [SIGNAL_EVENTS],
    );

  const handleBatch = async (batch: ProcessorBatch) => {
    const subscriptions = await loadSubscriptions(options.control);
    const trades = recordsOf(batch, STREAMS.trades);
    const lifecycle = recordsOf(batch, STREAMS.marketLifecycle);
    // A failed batch is redelivered; the price windows must then look as they did before it.
    const marketIds = new Set(trades.map((t) => t.event.market_id));
    const before = windows.snapshot(marketIds);
    await volumes?.prepare(trades.map((t) => t.event));
    const volumesBefore = volumes?.snapshot(marketIds);
    try {
      const decided: SignalDecided[] = [];
      const deliveries = await detectTradeEvents(trades, subscriptions, decided);
      const settlements = lifecycle.filter(({ event }) => isNotifiedSettlement(event));
      deliveries.push(...resolutionDeliveries(settlements, subscriptions));
      for (const { event } of settlements) decided.push(signalOf(marketResolved(event), null));
      const { enqueued, dropped } = await enqueueInChunks(options.control, deliveries, clock(), options.maxPendingPerSubscription);
      // After the outbox: a failed publish redelivers the batch, whose deliveries are then already stored.
      stats.published += await publisher.publish('signals', decided);
      const resolutions = settlements.length;
      stats.batches += 1;
      stats.enqueued += enqueued;
      stats.dropped += dropped;
      stats.resolutions += resolutions;
      if (enqueued > 0) options.onEnqueued?.(enqueued);
    } catch (error) {
      windows.restore(before);
      if (volumesBefore) volumes?.restore(volumesBefore);
      throw error;
    }
  };

  /** The deliveries the trades make; the signals they decide are appended to `decided`. */
  const detectTradeEvents = async (
    trades: Decoded<TradeExecuted>[],
    subscriptions: Subscription[],
    decided: SignalDecided[],
  ): Promise<NewDelivery[]> => {
    const deliveries: NewDelivery[] = [];
    for (const { event: trade, message } of trades) {
      // The window sees every trade, subscribed or not, so a new subscription gets signals at once.
      const live = isLiveTrade(trade);
      const move = windows.observe(trade);
      const spike = volumes?.observe(trade, live) ?? null;
      // The windows see history too (their baselines need it); only a live trade decides signals.
      if (!live) {
        stats.late_trades += 1;
        continue;
      }
      if (move) stats.price_signals += 1;
      if (spike) stats.volume_spikes += 1;
      const facts = { market_id: trade.market_id, wallet: trade.wallet, size_usdc: trade.size_usdc, logged_at_ms: message.timestamp };
      let context: TraderContext | undefined;
      if (trade.size_usdc >= streamLargeTradeUsdc) {
        context = await options.traderContext(trade.wallet, trade.timestamp_ms);
        decided.push(signalOf(largeTrade(trade, streamLargeTradeUsdc, context), trade.wallet));
      }
      if (move) decided.push(signalOf(priceSignal(move), null));
      if (spike && options.volume) decided.push(signalOf(volumeSpike(spike, options.volume.windowMs), null));
      for (const subscription of subscriptions) {
        if (wants(subscription, { ...facts, type: 'trade.executed' })) deliveries.push(delivery(subscription, tradeExecuted(trade)));
        const threshold = Math.max(subscription.filters?.large_trade_min_usdc ?? options.largeTradeUsdc, options.minLargeTradeUsdc ?? 0);
        if (trade.size_usdc >= threshold && wants(subscription, { ...facts, type: 'trader.large_trade' })) {
          context ??= await options.traderContext(trade.wallet, trade.timestamp_ms);
          deliveries.push(delivery(subscription, largeTrade(trade, threshold, context)));
        }
        if (move && wants(subscription, { ...facts, type: 'market.price_signal', change_pct: move.change_pct })) {
          deliveries.push(delivery(subscription, priceSignal(move)));
        }
        if (spike && options.volume && wants(subscription, { ...facts, type: 'market.volume_spike' })) {
          deliveries.push(delivery(subscription, volumeSpike(spike, options.volume.windowMs)));
        }
      }
    }
    return deliveries;
  };

  const processor = await runProcessor(
    options.log,
    defineProcessor({
      name: 'signals',
      group: options.groupId ?? SIGNALS_GROUP_ID,
      streams: [STREAMS.marketLifecycle, STREAMS.trades],
      maxBatchSize: 2_000,
      // From the beginning: replayed history reaches no subscriber (each gets only events logged after it was created).
      fromBeginning: true,
      handle: handleBatch,
    }),
    options.logger,
  );
  return { stats, stop: () => processor.stop() };
}

/** A settlement subscribers are told about: resolved, voided or corrected, watched as it happened. */
function isNotifiedSettlement(transition: MarketLifecycleTransition): boolean {
  return transition.notify && (transition.kind === 'resolved' || transition.kind === 'voided' || transition.kind === 'corrected');
}

function resolutionDeliveries(settlements: Decoded<MarketLifecycleTransition>[], subscriptions: Subscription[]): NewDelivery[] {
  const deliveries: NewDelivery[] = [];
  for (const { event, message } of settlements) {
    const facts = { type: 'market.resolved', market_id: event.market_id, logged_at_ms: message.timestamp };
    for (const subscription of subscriptions)
      if (wants(subscription, facts)) deliveries.push(delivery(subscription, marketResolved(event)));
  }
  return deliveries;
}

/** A decided signal as the signals stream carries it: its webhook payload whole, and what the channel filters on. */
function signalOf(
  // The document's payload type: a payload function that drifts from api/openapi.yaml fails to compile.
  payload: StreamSignalMessage['data'] & { event: SignalDecided['event']; source: SignalDecided['source'] },
  wallet: string | null,
): SignalDecided {
  return {
    event_id: payload.id,
    event: payload.event,
    source: payload.source,
    market_id: payload.market_id,
    wallet,
    at_ms: Date.parse(payload.timestamp),
    payload: JSON.stringify(payload),
  };
}

function delivery(subscription: Subscription, payload: { event: string; id: string }): NewDelivery {
  return { subscriptionId: subscription.id, eventId: payload.id, eventType: payload.event, payload };
}

type Decoded<T> = ProcessorRecord<T>;
