/**
 * One backfill pass over a planned list of markets: for each market, its trades in the range from
 * the Data API (`/trades?market=`, newest first, paged by offset up to the API's 10,000 cap), then
 * each outcome token's CLOB `/prices-history` in the range as `history` price ticks.
 *
 * Resumable: the checkpoint (market in progress, trade offset, tokens done, totals) is written after
 * every page is durably in the log, so a killed run repeats at most one page. Idempotent: trade ids
 * and history tick ids are derived from upstream identity (tx/token/wallet/side/size/price; token +
 * point time), the sink drops trades it already stored and the tick table replaces by id.
 * Resuming by offset is safe while upstream grows: new trades push older ones to higher offsets, so
 * a resumed page can only re-read trades, never skip one.
 */
import type { DeadLetter, MarketUpserted, PriceTick, Source, TradeExecuted } from '../events/types.js';
import type { CheckpointFile } from '../ingest/checkpoint.js';
import { normalizePricesHistory } from '../ingest/normalize-clob.js';
import { normalizeDataTrade } from '../ingest/normalize-trade.js';
import type { EventPublisher } from '../events/publisher.js';
import { UpstreamError, type UpstreamClient } from '../ingest/upstream-client.js';

const PAGE_SIZE = 500;
// The Data API refuses offsets above 10,000: older trades of a busier market are out of reach by paging.
const MAX_OFFSET = 10_000;
// One /prices-history request covers at most this much time, keeping each answer small.
const HISTORY_WINDOW_MS = 7 * 86_400_000;

export interface PlannedMarket {
  market_id: string;
  slug: string;
  tokens: string[];
}

export interface BackfillTotals {
  markets_done: number;
  trades: number;
  ticks: number;
  dead_letters: number;
  /** Markets whose range reached past the Data API's offset cap. */
  capped_markets: number;
  /** Tokens upstream has no price history for (404). */
  tokens_without_history: number;
}

export interface BackfillCheckpoint {
  version: 1;
  key: string;
  from_ms: number;
  to_ms: number;
  fidelity_minutes: number;
  markets: PlannedMarket[];
  next_market: number;
  trades_offset: number;
  trades_done: boolean;
  history_tokens_done: number;
  totals: BackfillTotals;
}

export function emptyTotals(): BackfillTotals {
  return { markets_done: 0, trades: 0, ticks: 0, dead_letters: 0, capped_markets: 0, tokens_without_history: 0 };
}

export function plannedMarket(market: MarketUpserted): PlannedMarket {
  return { market_id: market.market_id, slug: market.slug, tokens: market.outcome_token_ids.filter((t) => t !== '') };
}

export interface ProgressListener {
  /** After every page (trades or a token's history) that moved the totals. */
  progress(checkpoint: BackfillCheckpoint): void;
  marketDone(checkpoint: BackfillCheckpoint, market: PlannedMarket): void;
  warn(message: string): void;
}

export interface BackfillRunOptions {
  data: UpstreamClient;
  clob: UpstreamClient;
  publisher: EventPublisher;
  checkpointFile: CheckpointFile<BackfillCheckpoint | null>;
  listener: ProgressListener;
  clock?: () => number;
  /** Polled between pages; true stops after the current page with the checkpoint written. */
  shouldStop?: () => boolean;
}

export type RunOutcome = 'complete' | 'stopped';

export async function runBackfill(
  start: BackfillCheckpoint,
  options: BackfillRunOptions,
): Promise<{ outcome: RunOutcome; checkpoint: BackfillCheckpoint }> {
  let state = start;
  const save = (next: BackfillCheckpoint) => {
    state = next;
    options.checkpointFile.write(state);
    options.listener.progress(state);
  };
  const now = () => (options.clock ?? Date.now)();
  const stop = () => options.shouldStop?.() === true;

  while (state.next_market < state.markets.length) {
    const market = state.markets[state.next_market]!;
    while (!state.trades_done) {
      if (stop()) return { outcome: 'stopped', checkpoint: state };
      const page = await tradesPage(options, market, state, now());
      await options.publisher.deadLetter(page.deadLetters);
      await options.publisher.publish('trades', page.trades);
      const nextOffset = state.trades_offset + page.rows;
      const capped = !page.finished && nextOffset > MAX_OFFSET;
      if (capped)
        options.listener.warn(
          `${market.slug || market.market_id}: the Data API offset cap (${MAX_OFFSET}) was reached before ${new Date(state.from_ms).toISOString()}; older trades of this market are not reachable by paging`,
        );
      save({
        ...state,
        trades_offset: nextOffset,
        trades_done: page.finished || capped,
        totals: {
          ...state.totals,
          trades: state.totals.trades + page.trades.length,
          dead_letters: state.totals.dead_letters + page.deadLetters.length,
          capped_markets: state.totals.capped_markets + (capped ? 1 : 0),
        },
      });
    }
    while (state.history_tokens_done < market.tokens.length) {
      if (stop()) return { outcome: 'stopped', checkpoint: state };
      const token = market.tokens[state.history_tokens_done]!;
      const history = await tokenHistory(options, market, token, state, now());
      await options.publisher.deadLetter(history.deadLetters);
      await options.publisher.publish('priceTicks', history.ticks);
      save({
        ...state,
        history_tokens_done: state.history_tokens_done + 1,
        totals: {
          ...state.totals,
          ticks: state.totals.ticks + history.ticks.length,
          dead_letters: state.totals.dead_letters + history.deadLetters.length,
          tokens_without_history: state.totals.tokens_without_history + (history.missing ? 1 : 0),
        },
      });
    }
    const done = { ...state, totals: { ...state.totals, markets_done: state.totals.markets_done + 1 } };
    save({ ...done, next_market: state.next_market + 1, trades_offset: 0, trades_done: false, history_tokens_done: 0 });
    options.listener.marketDone(state, market);
  }
  return { outcome: 'complete', checkpoint: state };
}

async function tradesPage(options: BackfillRunOptions, market: PlannedMarket, state: BackfillCheckpoint, nowMs: number) {
  const { body, source } = await options.data.getJson<unknown>(
    `/trades?takerOnly=true&market=${market.market_id}&limit=${PAGE_SIZE}&offset=${state.trades_offset}`,
  );
  if (!Array.isArray(body)) throw new Error(`${options.data.name}/trades: expected an array, got ${typeof body}`);
  const trades: TradeExecuted[] = [];
  const deadLetters: DeadLetter[] = [];
  let reachedFrom = false;
  for (const raw of body) {
    const result = normalizeDataTrade(raw, source, nowMs);
    if (!result.ok) {
      deadLetters.push({
        stage: 'ingest',
        source,
        origin: `${options.data.name}/trades (backfill)`,
        reason: result.reason,
        raw: JSON.stringify(raw),
        at_ms: nowMs,
      });
      continue;
    }
    const ts = result.value.timestamp_ms;
    if (ts < state.from_ms) reachedFrom = true;
    else if (ts <= state.to_ms) trades.push(result.value);
  }
  // Oldest first, so the market's partition holds this page in time order.
  trades.sort((a, b) => a.timestamp_ms - b.timestamp_ms);
  return { trades, deadLetters, rows: body.length, finished: reachedFrom || body.length < PAGE_SIZE };
}

async function tokenHistory(options: BackfillRunOptions, market: PlannedMarket, token: string, state: BackfillCheckpoint, nowMs: number) {
  const ticks: PriceTick[] = [];
  const deadLetters: DeadLetter[] = [];
  const origin = `${options.clob.name}/prices-history`;
  for (let windowStart = state.from_ms; windowStart <= state.to_ms; windowStart += HISTORY_WINDOW_MS) {
    const windowEnd = Math.min(state.to_ms, windowStart + HISTORY_WINDOW_MS - 1);
    let body: unknown;
    let source: Source;
    try {
      ({ body, source } = await options.clob.getJson<unknown>(
        `/prices-history?market=${token}&startTs=${Math.floor(windowStart / 1000)}&endTs=${Math.floor(windowEnd / 1000)}&fidelity=${state.fidelity_minutes}`,
      ));
    } catch (error) {
      // A token that never had an order book has no history: upstream says 404, nothing to backfill.
      if (error instanceof UpstreamError && error.status === 404) return { ticks, deadLetters, missing: true };
      throw error;
    }
    const result = normalizePricesHistory(body, { marketId: market.market_id, assetId: token }, source, nowMs);
    if (!result.ok) {
      deadLetters.push({
        stage: 'ingest',
        source,
        origin,
        reason: result.reason,
        raw: JSON.stringify(body).slice(0, 100_000),
        at_ms: nowMs,
      });
      continue;
    }
    for (const rejected of result.value.rejected) {
      deadLetters.push({ stage: 'ingest', source, origin, reason: rejected.reason, raw: JSON.stringify(rejected.raw), at_ms: nowMs });
    }
    // Window bounds are whole seconds; keep exactly the requested range (windows never overlap in ids anyway).
    for (const tick of result.value.ticks) if (tick.timestamp_ms >= windowStart && tick.timestamp_ms <= windowEnd) ticks.push(tick);
  }
  return { ticks: [...new Map(ticks.map((t) => [t.event_id, t])).values()], deadLetters, missing: false };
}
