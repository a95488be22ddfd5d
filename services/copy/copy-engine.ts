/**
 * The copy engine: its own consumer group over the chain ledger and the Data API trades. Before the
 * log commits a batch's offsets, every fill of a followed wallet is decided for each enabled copy
 * subscription of that leader (services/copy/copy-rules.ts), in control-store transactions of at most
 * `fanoutChunk` subscriptions (the store has one connection: a fill followed by a thousand
 * subscriptions must not hold it for seconds while other accounts' requests wait), accounts taking
 * turns within a fill, each chunk decided with one read of the subscriptions' copied figures and one
 * insert of their intents (copy-engine.ts decideChunk):
 * an intent row, then a `copy.executed` (submitted or dry run) or `risk.blocked` event: into the
 * account's feed for the `copy` stream channel (services/copy/account-events.ts) and as a delivery
 * into the webhook outbox for the account's own webhook subscriptions. The signed delivery is the
 * dispatcher's. A redelivered batch, or the same match arriving from the other source, finds its
 * intent and does nothing (unique per subscription and fill key).
 *
 * A new group starts at the log's end, and a subscription only copies fills that reached the log
 * after it was created: copying starts now, never with the leader's history.
 */
import type { Logger } from '../logger.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { ControlStore, SqlExecutor } from '../ports/control-store.js';
import type { Stream } from '../events/stream.js';
import type { EventLog, LogMessage } from '../ports/event-log.js';
import { defineProcessor, type ProcessorBatch, type ProcessorContext, recordsOf, runProcessor } from '../processors/processor.js';
import { STREAMS } from '../read-models/registry.js';
import { MarketCategories } from '../sandbox/market-categories.js';
import { wants } from '../signals/matching.js';
import { enqueueDeliveries, type NewDelivery } from '../webhooks/outbox.js';
import type { EventType, SubscriptionFilters } from '../webhooks/event-types.js';
import { type AccountEvent, accountEventsCommitted, pruneAccountEvents, recordAccountEvents } from './account-events.js';
import { decideCopy } from './copy-rules.js';
import { type CopySubscription, CopySubscriptions } from './copy-subscriptions.js';
import { copiedFigures, insertIntents, type NewIntent } from './intents.js';
import { fromChainEvent, fromTrade, type LeaderFill } from './leader-fill.js';
import { copyExecuted, type IntentFacts, riskBlocked, strategySignal } from './payloads.js';
import { enabledStrategies } from './strategies.js';
import { StrategyEvaluator } from './strategy-signals.js';

export const COPY_GROUP_ID = 'tapeline-copy';

export interface CopyEngineOptions {
  log: EventLog;
  control: ControlStore;
  store: AnalyticsStore;
  logger: Logger;
  /** A fill older than this when it reaches the engine is blocked as stale_fill (copying it late would chase an old price). */
  maxFillAgeMs: number;
  /** How long the account feed keeps events (STREAM_ACCOUNT_EVENT_RETENTION_MS); older ones are deleted hourly. */
  accountEventRetentionMs: number;
  /** Backlog cap per webhook subscription (WEBHOOK_PENDING_PER_SUBSCRIPTION): copy events queue like any other. */
  maxPendingPerSubscription: number;
  /** Subscriptions decided per control-store transaction (COPY_FANOUT_CHUNK; default 25). */
  fanoutChunk?: number;
  clock?: () => number;
  groupId?: string;
  fromBeginning?: boolean;
  /** After a batch's intents are committed: the in-process dispatcher wakes; the benchmark times it. */
  onEmitted?: (emitted: EmittedIntent[]) => void;
}

interface EmittedIntent {
  intentId: string;
  status: 'submitted' | 'dry_run' | 'blocked';
  /** The log message timestamp of the leader fill (its settlement or trade time, as published). */
  loggedAtMs: number;
}

interface CopyEngineStats {
  batches: number;
  leader_fills: number;
  intents: number;
  blocked: number;
  duplicates: number;
  strategy_signals: number;
  enqueued: number;
  /** Deliveries refused by a full backlog (also counted per webhook subscription). */
  dropped: number;
  /** Events recorded into the account feed (the copy and strategy stream channels). */
  account_events: number;
  /** Events retention deleted from it. */
  account_events_pruned: number;
}

export interface CopyEngine {
  readonly stats: CopyEngineStats;
  stop(): Promise<void>;
}

interface AccountHook {
  id: string;
  account_id: string;
  events: EventType[];
  filters: SubscriptionFilters;
  created_at: Date;
}

const ACCOUNT_EVENTS = ['copy.executed', 'risk.blocked', 'strategy.signal'];

export async function startCopyEngine(options: CopyEngineOptions): Promise<CopyEngine> {
  const clock = options.clock ?? Date.now;
  const subscriptions = new CopySubscriptions(options.control, clock);
  const categories = new MarketCategories(options.store);
  const stats: CopyEngineStats = {
    batches: 0,
    leader_fills: 0,
    intents: 0,
    blocked: 0,
    duplicates: 0,
    strategy_signals: 0,
    enqueued: 0,
    dropped: 0,
    account_events: 0,
    account_events_pruned: 0,
  };
  const evaluator = new StrategyEvaluator();
  const chunk = options.fanoutChunk ?? 25;

  const handleBatch = async (batch: ProcessorBatch, context: ProcessorContext) => {
    stats.batches += 1;
    if (batch.topic === STREAMS.trades.topic) await strategiesOn(batch);
    const fills = await leaderFillsOf(batch, context);
    if (fills.length === 0) return;
    const following = await subscriptions.following([...new Set(fills.map((f) => f.fill.wallet))]);
    if (following.length === 0) return;
    const byLeader = new Map<string, CopySubscription[]>();
    for (const s of following) byLeader.set(s.leaderWallet, [...(byLeader.get(s.leaderWallet) ?? []), s]);
    const relevant = fills.filter((f) => byLeader.has(f.fill.wallet));
    // Categories come from ClickHouse: only asked for when a subscription limits them (the hot path stays in the control store).
    const needsCategory = following.some((s) => s.limits.allowedCategories.length > 0);
    const categoryOf = needsCategory ? await categories.of(relevant.map((f) => f.fill.marketId)) : new Map<string, string>();
    const hooks = await accountHooks(options.control, [...new Set(following.map((s) => s.accountId))]);
    const emitted: EmittedIntent[] = [];
    const queued = { enqueued: 0, dropped: 0 };
    for (const { fill, loggedAtMs } of relevant) {
      stats.leader_fills += 1;
      const due = takingTurns((byLeader.get(fill.wallet) ?? []).filter((s) => loggedAtMs >= s.createdAtMs));
      for (let start = 0; start < due.length; start += chunk) {
        // Each chunk commits its intents with their deliveries; a redelivered batch finds them and skips.
        const done = await options.control.transaction(async (tx) => {
          const deliveries: NewDelivery[] = [];
          const events: AccountEvent[] = [];
          const category = (categoryOf.get(fill.marketId) ?? '').toLowerCase();
          for (const { subscription, decision } of await decideChunk(tx, due.slice(start, start + chunk), fill, category)) {
            if (!decision) {
              stats.duplicates += 1;
              continue;
            }
            emitted.push({ intentId: decision.intentId, status: decision.status, loggedAtMs });
            const payload = decision.status === 'blocked' ? riskBlocked(decision) : copyExecuted(decision);
            events.push({ accountId: subscription.accountId, marketId: fill.marketId, payload });
            for (const hook of hooks.get(subscription.accountId) ?? []) {
              if (wants(hook, { type: payload.event, market_id: fill.marketId, logged_at_ms: loggedAtMs })) {
                deliveries.push({ subscriptionId: hook.id, eventId: payload.id, eventType: payload.event, payload });
              }
            }
          }
          const enqueued = await enqueueDeliveries(tx, deliveries, clock(), options.maxPendingPerSubscription);
          // Last: it takes the feed's writer lock, held until this transaction commits.
          return { ...enqueued, recorded: await recordAccountEvents(tx, events, clock()) };
        });
        queued.enqueued += done.enqueued;
        queued.dropped += done.dropped;
        stats.account_events += done.recorded;
        if (done.recorded > 0) accountEventsCommitted(options.control);
        // Between chunks the store is free: queued requests of other accounts run before the next chunk.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    for (const e of emitted) {
      stats.intents += 1;
      if (e.status === 'blocked') stats.blocked += 1;
    }
    stats.enqueued += queued.enqueued;
    stats.dropped += queued.dropped;
    if (emitted.length > 0) options.onEmitted?.(emitted);
  };

  /** Saved strategies on a batch of trades: strategy.signal to the owners' webhook subscriptions. */
  const strategiesOn = async (batch: ProcessorBatch) => {
    const strategies = await enabledStrategies(options.control);
    if (strategies.length === 0) return;
    const trades = recordsOf(batch, STREAMS.trades).map(({ event, message }) => ({ trade: event, loggedAtMs: message.timestamp }));
    const restore = evaluator.checkpoint(new Set(trades.map((t) => t.trade.market_id)));
    try {
      const fired = evaluator.evaluate(
        trades.map((t) => t.trade),
        strategies,
        clock(),
      );
      if (fired.length === 0) return;
      const hooks = await accountHooks(options.control, [...new Set(fired.map((f) => f.accountId))]);
      const loggedAt = new Map(trades.map((t) => [t.trade.event_id, t.loggedAtMs]));
      const deliveries: NewDelivery[] = [];
      const events: AccountEvent[] = [];
      for (const { accountId, facts } of fired) {
        const payload = strategySignal(facts);
        events.push({ accountId, marketId: facts.marketId, payload });
        for (const hook of hooks.get(accountId) ?? []) {
          if (wants(hook, { type: payload.event, market_id: facts.marketId, logged_at_ms: loggedAt.get(facts.triggerId) ?? 0 })) {
            deliveries.push({ subscriptionId: hook.id, eventId: payload.id, eventType: payload.event, payload });
          }
        }
      }
      const { enqueued, dropped, recorded } = await options.control.transaction(async (tx) => {
        const done = await enqueueDeliveries(tx, deliveries, clock(), options.maxPendingPerSubscription);
        return { ...done, recorded: await recordAccountEvents(tx, events, clock()) };
      });
      stats.strategy_signals += fired.length;
      stats.enqueued += enqueued;
      stats.dropped += dropped;
      stats.account_events += recorded;
      if (recorded > 0) accountEventsCommitted(options.control);
      if (enqueued > 0) options.onEmitted?.([]);
    } catch (error) {
      restore();
      throw error;
    }
  };

  /**
   * Decides one fill for a chunk of subscriptions with two statements whatever the chunk's size: one
   * read of every subscription's copied figures, one insert of every intent (a subscription that had
   * already decided on the fill gets null).
   */
  const decideChunk = async (
    tx: SqlExecutor,
    subscriptions: readonly CopySubscription[],
    fill: LeaderFill,
    category: string,
  ): Promise<Array<{ subscription: CopySubscription; decision: IntentFacts | null }>> => {
    const now = clock();
    const figures = await copiedFigures(
      tx,
      subscriptions.map((s) => s.id),
      fill.side === 'sell' ? fill.assetId : null,
      now,
    );
    const intents: NewIntent[] = subscriptions.map((subscription) => {
      const { spentTodayMicros, heldSharesMicros } = figures.get(subscription.id)!;
      const decision = decideCopy({
        fill,
        category,
        sizing: subscription.sizing,
        limits: subscription.limits,
        dryRun: subscription.dryRun,
        spentTodayMicros,
        heldSharesMicros,
        nowMs: now,
        maxFillAgeMs: options.maxFillAgeMs,
      });
      const intent =
        decision.kind === 'intent'
          ? { childMicros: decision.childMicros, childSharesMicros: decision.childSharesMicros, status: decision.status, reason: null }
          : { childMicros: null, childSharesMicros: null, status: 'blocked' as const, reason: decision.reason };
      return { subscriptionId: subscription.id, accountId: subscription.accountId, fill, createdAtMs: now, ...intent };
    });
    const ids = await insertIntents(tx, intents);
    return subscriptions.map((subscription, index) => {
      const intentId = ids.get(subscription.id);
      const intent = intents[index]!;
      if (intentId === undefined) return { subscription, decision: null };
      return {
        subscription,
        decision: {
          intentId,
          accountId: subscription.accountId,
          subscriptionId: subscription.id,
          leaderWallet: fill.wallet,
          leaderTradeId: fill.tradeId,
          fillKey: fill.key,
          marketId: fill.marketId,
          side: fill.side,
          outcome: fill.outcome,
          leaderUsdcMicros: fill.usdcMicros,
          childMicros: intent.childMicros,
          status: intent.status,
          reason: intent.reason,
          decidedAtMs: now,
          source: fill.source,
        },
      };
    });
  };

  const processor = await runProcessor(
    options.log,
    defineProcessor({
      name: 'copy',
      group: options.groupId ?? COPY_GROUP_ID,
      streams: [STREAMS.chainLedger, STREAMS.trades],
      maxBatchSize: 2_000,
      fromBeginning: options.fromBeginning ?? false,
      handle: handleBatch,
    }),
    options.logger,
  );
  // Retention of the account feed: hourly, and once at start (a process that restarts often still prunes).
  const prune = async () => {
    try {
      stats.account_events_pruned += await pruneAccountEvents(options.control, clock() - options.accountEventRetentionMs);
    } catch (error) {
      options.logger.warn({ err: error }, 'copy: pruning the account feed failed; trying again in an hour');
    }
  };
  let pruning = prune();
  const pruneTimer = setInterval(() => {
    pruning = pruning.then(prune);
  }, 3_600_000).unref();
  return {
    stats,
    stop: async () => {
      clearInterval(pruneTimer);
      await Promise.all([processor.stop(), pruning]);
    },
  };
}

/** Subscriptions ordered so accounts take turns (each account's first, then each one's second, ...), by id within an account. */
export function takingTurns(subscriptions: CopySubscription[]): CopySubscription[] {
  const byAccount = new Map<string, CopySubscription[]>();
  const byId = (a: CopySubscription, b: CopySubscription) => (BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0);
  for (const s of [...subscriptions].sort(byId)) byAccount.set(s.accountId, [...(byAccount.get(s.accountId) ?? []), s]);
  const queues = [...byAccount.values()];
  const out: CopySubscription[] = [];
  for (let round = 0; out.length < subscriptions.length; round++) for (const queue of queues) if (queue[round]) out.push(queue[round]!);
  return out;
}

async function accountHooks(control: ControlStore, accountIds: string[]): Promise<Map<string, AccountHook[]>> {
  const rows = await control.query<AccountHook>(
    `SELECT id::text AS id, account_id::text AS account_id, events, filters, created_at FROM webhook_subscriptions
      WHERE enabled AND account_id = ANY($1::bigint[]) AND events && $2::text[]`,
    [accountIds, ACCOUNT_EVENTS],
  );
  const byAccount = new Map<string, AccountHook[]>();
  for (const row of rows) byAccount.set(row.account_id, [...(byAccount.get(row.account_id) ?? []), row]);
  return byAccount;
}

/**
 * The batch's fills (chain ledger events or Data API trades), with the time each reached the log; an
 * event that cannot be read as a fill is dead-lettered rather than stalling its partition.
 */
async function leaderFillsOf(batch: ProcessorBatch, context: ProcessorContext): Promise<Array<{ fill: LeaderFill; loggedAtMs: number }>> {
  const fills: Array<{ fill: LeaderFill; loggedAtMs: number }> = [];
  const unreadable: Array<{ message: LogMessage; reason: string }> = [];
  const read = <E>(stream: Stream<E>, toFill: (event: E) => LeaderFill | null) => {
    for (const { event, message } of recordsOf(batch, stream)) {
      try {
        const fill = toFill(event);
        if (fill) fills.push({ fill, loggedAtMs: message.timestamp });
      } catch (error) {
        unreadable.push({ message, reason: `cannot read a leader fill from ${stream.name} event: ${(error as Error).message}` });
      }
    }
  };
  read(STREAMS.chainLedger, fromChainEvent);
  read(STREAMS.trades, fromTrade);
  await context.deadLetter(unreadable);
  return fills;
}
