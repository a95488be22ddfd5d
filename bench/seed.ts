/** Seeds an analytics store for read benchmarks: synthetic markets, trades, books (all source simulator). */
import type { AnalyticsStore } from '../services/ports/analytics-store.js';
import type { MarketUpserted } from '../services/events/types.js';
import { marketRow } from '../services/read-models/markets/rows.js';
import { tradeRow } from '../services/read-models/trades/rows.js';
import { syntheticTrades } from './synthetic-trades.js';

export const BENCH_MARKETS = 300;

export async function seedMarkets(store: AnalyticsStore, nowMs: number): Promise<void> {
  await insertMarkets(
    store,
    Array.from({ length: BENCH_MARKETS }, (_, m) => benchMarket(m, nowMs, null)),
    nowMs,
  );
}

/** Neg-risk events of the ledger part's conversions, each of NEG_RISK_QUESTIONS questions (catalog markets after BENCH_MARKETS). */
export const NEG_RISK_EVENTS = 25;
export const NEG_RISK_QUESTIONS = 4;

/** Question `index` of neg-risk event `event`: its catalog market number, neg-risk market id and question id. */
export function negRiskQuestion(event: number, index: number): { market: number; negRiskMarketId: string; questionId: string } {
  // NegRiskIdLib: a question id is its market id with the question's index in the low byte.
  const negRiskMarketId = `0x${'a'.repeat(8)}${hex(event, 54)}00`;
  return {
    market: BENCH_MARKETS + event * NEG_RISK_QUESTIONS + index,
    negRiskMarketId,
    questionId: `${negRiskMarketId.slice(0, -2)}${hex(index, 2)}`,
  };
}

/** The condition id and YES/NO token ids of catalog market `m` (YES first). */
export function benchTokens(m: number): { marketId: string; yes: string; no: string } {
  return { marketId: `0x${hex(m, 64)}`, yes: String(10n ** 76n + BigInt(m * 2)), no: String(10n ** 76n + BigInt(m * 2 + 1)) };
}

/**
 * The catalog rows (and books) of the neg-risk events' questions, as the catalog ingest stores a neg-risk
 * question: neg_risk, its neg-risk market id and question id.
 */
export async function seedNegRiskMarkets(store: AnalyticsStore, nowMs: number): Promise<void> {
  const rows: MarketUpserted[] = [];
  for (let event = 0; event < NEG_RISK_EVENTS; event++)
    for (let index = 0; index < NEG_RISK_QUESTIONS; index++) {
      const q = negRiskQuestion(event, index);
      rows.push(benchMarket(q.market, nowMs, { negRiskMarketId: q.negRiskMarketId, questionId: q.questionId }));
    }
  await insertMarkets(store, rows, nowMs);
}

const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');

function benchMarket(m: number, nowMs: number, negRisk: { negRiskMarketId: string; questionId: string } | null): MarketUpserted {
  const tokens = benchTokens(m);
  return {
    event_id: `${m}:1`,
    source: 'simulator',
    market_id: tokens.marketId,
    gamma_id: String(m),
    slug: `synthetic-market-${m}`,
    title: `Synthetic market ${m}`,
    category: ['Politics', 'Sports', 'Crypto', 'Economics'][m % 4]!,
    event_id_upstream: '',
    event_slug: '',
    event_title: '',
    outcomes: ['Yes', 'No'],
    outcome_token_ids: [tokens.yes, tokens.no],
    outcome_prices: [0.5, 0.5],
    yes_index: 0,
    status: 'active',
    resolved_outcome: null,
    volume_total_usdc: 1e6 / (m + 1),
    volume_24h_usdc: 1e5 / (m + 1),
    liquidity_usdc: 1e4,
    best_bid: 0.49,
    best_ask: 0.51,
    last_trade_price: 0.5,
    neg_risk: negRisk !== null,
    start_ms: nowMs - 30 * 86_400_000,
    end_ms: nowMs + 30 * 86_400_000,
    closed_ms: null,
    created_ms: nowMs - 30 * 86_400_000,
    updated_at_ms: nowMs,
    ingested_at_ms: nowMs,
    uma_resolution_status: null,
    accepting_orders: true,
    neg_risk_market_id: negRisk?.negRiskMarketId ?? null,
    question_id: negRisk?.questionId ?? null,
    tick_size: 0.01,
    resolved_at_ms: null,
    fees_enabled: false,
    fee_type: null,
    fee_rate: null,
    fee_exponent: null,
    fee_taker_only: null,
    market_maker_address: null,
  };
}

async function insertMarkets(store: AnalyticsStore, rows: MarketUpserted[], nowMs: number): Promise<void> {
  await store.insert('markets', rows.map(marketRow));
  const at = new Date(nowMs).toISOString();
  await store.insert(
    'order_books',
    rows.flatMap((m) =>
      m.outcome_token_ids.map((asset) => ({
        book_id: `${asset}:h`,
        market_id: m.market_id,
        asset_id: asset,
        hash: 'h',
        ts: at,
        bid_prices: Array.from({ length: 30 }, (_, i) => 0.49 - i * 0.01),
        bid_sizes: Array.from({ length: 30 }, () => 100),
        ask_prices: Array.from({ length: 30 }, (_, i) => 0.51 + i * 0.01),
        ask_sizes: Array.from({ length: 30 }, () => 100),
        best_bid: 0.49,
        best_ask: 0.51,
        tick_size: 0.01,
        min_order_size: 5,
        last_trade_price: 0.5,
        origin: 'clob-rest',
        source: 'simulator',
        ingested_at: at,
      })),
    ),
  );
}

/** Inserts `count` synthetic trades ending at `endMs`, in batches, with a distinct seed per call. */
export async function seedTrades(store: AnalyticsStore, count: number, endMs: number, seed: number, batch = 100_000): Promise<void> {
  for (let done = 0; done < count; done += batch) {
    const n = Math.min(batch, count - done);
    const trades = syntheticTrades(n, BENCH_MARKETS, seed * 1000 + done / batch, endMs).map((t, i) => ({
      ...t,
      event_id: `${seed}-${done + i}`,
    }));
    await store.insert(
      'trades',
      trades.map((t) => tradeRow(t)),
    );
  }
}
