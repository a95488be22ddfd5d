/**
 * The sandbox processor (the `sandbox` part): its own consumer group over book snapshots, trades
 * and market resolutions. Per batch, in one control-store transaction before the log commits the
 * offsets: resting paper orders meet the new books and trades (services/paper/resting-orders.ts),
 * resolved markets settle paper positions (services/paper/settlement.ts), and large trades, price
 * signals and resolutions are recorded for briefings - with the webhooks' own detectors and
 * payloads, so a briefing and a webhook never disagree on what happened. A crash redelivers the
 * batch; fills, settlements and signals are keyed so that changes nothing. A new group starts at the
 * log's end: paper orders only meet market data that arrives after them.
 */
import type { Logger } from '../logger.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import type { ControlStore, SqlExecutor } from '../ports/control-store.js';
import type { EventLog } from '../ports/event-log.js';
import { defineProcessor, eventsOf, type ProcessorBatch, runProcessor } from '../processors/processor.js';
import type { BookSnapshot, MarketResolved, TradeExecuted } from '../events/types.js';
import { STREAMS } from '../read-models/registry.js';
import { microsOf } from '../shared/decimal.js';
import { presentOutcome, priceSignal, tradeExecuted } from '../signals/payloads.js';
import { PriceWindows } from '../signals/price-windows.js';
import { applyMarketEvent, type MarketEvent, tokensWithRestingOrders } from '../paper/resting-orders.js';
import { settleMarket } from '../paper/settlement.js';
import { iso } from '../shared/time.js';
import { MarketCategories } from './market-categories.js';

export const SANDBOX_GROUP_ID = 'tapeline-sandbox';

export interface SandboxOptions {
  log: EventLog;
  control: ControlStore;
  store: AnalyticsStore;
  logger: Logger;
  largeTradeUsdc: number;
  priceChangePct: number;
  priceWindowMs: number;
  signalRetentionDays: number;
  clock?: () => number;
  groupId?: string;
  /** Where a new group starts: the log's end by default (paper orders only meet data newer than them). */
  fromBeginning?: boolean;
}

interface SandboxStats {
  batches: number;
  fills: number;
  settled: number;
  signals: number;
}

export interface SandboxProcessor {
  readonly stats: SandboxStats;
  stop(): Promise<void>;
}

interface Signal {
  signalId: string;
  kind: 'large_trade' | 'price_signal' | 'resolution';
  marketId: string;
  payload: Record<string, unknown>;
  occurredAtMs: number;
}

const PRUNE_EVERY_MS = 3_600_000;

export async function startSandboxProcessor(options: SandboxOptions): Promise<SandboxProcessor> {
  const clock = options.clock ?? Date.now;
  const stats: SandboxStats = { batches: 0, fills: 0, settled: 0, signals: 0 };
  const windows = new PriceWindows(options.priceWindowMs, options.priceChangePct);
  const categories = new MarketCategories(options.store);
  let lastPrune = 0;

  const handleBatch = async (batch: ProcessorBatch) => {
    const books = eventsOf(batch, STREAMS.bookSnapshots);
    const trades = eventsOf(batch, STREAMS.trades);
    const resolutions = eventsOf(batch, STREAMS.marketResolutions);
    const before = windows.snapshot(new Set(trades.map((t) => t.market_id)));
    try {
      const signals = detectSignals(trades, resolutions, windows, options.largeTradeUsdc);
      const marketEvents = [...books.map(bookEvent), ...trades.map(tradeEvent)];
      const watched = await tokensWithRestingOrders(
        options.control,
        marketEvents.map((e) => e.assetId),
      );
      const categoryOf = await categories.of(signals.map((s) => s.marketId));
      const newest = Math.max(0, ...books.map((b) => b.timestamp_ms), ...trades.map((t) => t.timestamp_ms));
      const now = new Date(clock());
      await options.control.transaction(async (tx) => {
        for (const event of marketEvents) if (watched.has(event.assetId)) stats.fills += await applyMarketEvent(tx, event, now);
        for (const resolution of resolutions)
          stats.settled += await settleMarket(
            tx,
            {
              marketId: resolution.market_id,
              outcomeTokenIds: resolution.outcome_token_ids,
              payouts: resolution.payouts,
              winningOutcome: resolution.winning_outcome,
            },
            now,
          );
        stats.signals += await recordSignals(tx, signals, categoryOf, now);
        if (newest > 0) await recordProgress(tx, batch.topic, newest, now);
      });
      stats.batches += 1;
    } catch (error) {
      windows.restore(before);
      throw error;
    }
    if (clock() - lastPrune > PRUNE_EVERY_MS) {
      lastPrune = clock();
      await options.control.query('DELETE FROM briefing_signals WHERE recorded_at < $1', [
        new Date(clock() - options.signalRetentionDays * 86_400_000),
      ]);
    }
  };

  const processor = await runProcessor(
    options.log,
    defineProcessor({
      name: 'sandbox',
      group: options.groupId ?? SANDBOX_GROUP_ID,
      streams: [STREAMS.bookSnapshots, STREAMS.trades, STREAMS.marketResolutions],
      maxBatchSize: 1_000,
      fromBeginning: options.fromBeginning ?? false,
      handle: handleBatch,
    }),
    options.logger,
  );
  return { stats, stop: () => processor.stop() };
}

function bookEvent(book: BookSnapshot): MarketEvent {
  const levels = (list: BookSnapshot['bids']) =>
    list.map((l) => ({ priceMicros: microsOf(l.price), sizeMicros: microsOf(l.size) })).filter((l) => l.sizeMicros > 0n);
  return {
    kind: 'book',
    ref: book.event_id,
    assetId: book.asset_id,
    atMs: book.timestamp_ms,
    bids: levels(book.bids),
    asks: levels(book.asks),
  };
}

function tradeEvent(trade: TradeExecuted): MarketEvent {
  return {
    kind: 'trade',
    ref: trade.event_id,
    assetId: trade.asset_id,
    atMs: trade.timestamp_ms,
    trade: { priceMicros: microsOf(trade.price), sizeMicros: microsOf(trade.size) },
  };
}

/** Large trades at the service's threshold, price moves by the webhooks' detector, and resolutions. */
function detectSignals(trades: TradeExecuted[], resolutions: MarketResolved[], windows: PriceWindows, largeTradeUsdc: number): Signal[] {
  const signals: Signal[] = [];
  for (const trade of trades) {
    if (trade.size_usdc >= largeTradeUsdc)
      signals.push({
        signalId: `large_trade:${trade.event_id}`,
        kind: 'large_trade',
        marketId: trade.market_id,
        payload: { ...tradeExecuted(trade), event: 'trader.large_trade', threshold_usdc: largeTradeUsdc },
        occurredAtMs: trade.timestamp_ms,
      });
    const move = windows.observe(trade);
    if (move)
      signals.push({
        signalId: `price_signal:${move.market_id}:${move.trigger_id}`,
        kind: 'price_signal',
        marketId: move.market_id,
        payload: priceSignal(move),
        occurredAtMs: move.at_ms,
      });
  }
  for (const r of resolutions) {
    signals.push({
      signalId: `resolution:${r.market_id}`,
      kind: 'resolution',
      marketId: r.market_id,
      payload: {
        event: 'market.resolved',
        market_id: r.market_id,
        market_title: r.title,
        resolved_outcome: r.winning_outcome === null ? null : presentOutcome(r.winning_outcome),
        outcomes: r.outcomes,
        payouts: r.payouts,
        timestamp: iso(r.resolved_at_ms ?? r.ingested_at_ms),
        source: r.source,
      },
      occurredAtMs: r.resolved_at_ms ?? r.ingested_at_ms,
    });
  }
  return signals;
}

async function recordSignals(tx: SqlExecutor, signals: Signal[], categoryOf: Map<string, string>, now: Date): Promise<number> {
  if (signals.length === 0) return 0;
  const rows = await tx.query(
    `INSERT INTO briefing_signals (signal_id, kind, market_id, category, payload, occurred_at, recorded_at)
     SELECT signal_id, kind, market_id, category, payload::jsonb, to_timestamp(occurred_ms / 1000.0), $7
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[])
         AS t(signal_id, kind, market_id, category, payload, occurred_ms)
     ON CONFLICT (signal_id) DO NOTHING RETURNING seq`,
    [
      signals.map((s) => s.signalId),
      signals.map((s) => s.kind),
      signals.map((s) => s.marketId),
      signals.map((s) => categoryOf.get(s.marketId) ?? 'Uncategorized'),
      signals.map((s) => JSON.stringify(s.payload)),
      signals.map((s) => s.occurredAtMs),
      now,
    ],
  );
  return rows.length;
}

async function recordProgress(tx: SqlExecutor, topic: string, eventMs: number, now: Date): Promise<void> {
  await tx.query(
    `INSERT INTO sandbox_progress (topic, event_at, applied_at) VALUES ($1, $2, $3)
     ON CONFLICT (topic) DO UPDATE SET event_at = GREATEST(sandbox_progress.event_at, EXCLUDED.event_at), applied_at = EXCLUDED.applied_at`,
    [topic, new Date(eventMs), now],
  );
}
