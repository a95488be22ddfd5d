/**
 * Gamma market -> MarketUpserted. Decides status from resolution evidence, never from `closed`
 * alone (closed is not resolved), and YES from the outcome names, never from position. Token ids
 * must stay exact (a JSON number that lost digits is refused) and Gamma's empty-book markers
 * (bestBid 0, bestAsk 1) become null.
 */
import { CONDITION_ID } from '../shared/ids.js';
import crypto from 'node:crypto';
import type { MarketResolved, MarketStatus, MarketUpserted, Source } from '../events/types.js';
import { fail, ok, parseBookTop, parseOptionalNumber, parseStringArray, parseTimestampMs, parseTokenIds, type Parsed } from './parse.js';

/** resolved_outcome of a market resolved with a split payout (a 50-50 void): no single winner. */
const VOIDED_OUTCOME = '50-50';

type GammaMarket = Record<string, unknown>;

export function normalizeGammaMarket(raw: unknown, source: Source, nowMs: number): Parsed<MarketUpserted> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return fail('market is not an object');
  const m = raw as GammaMarket;
  const marketId = typeof m.conditionId === 'string' ? m.conditionId.toLowerCase() : '';
  if (!CONDITION_ID.test(marketId)) return fail(`conditionId missing or malformed: ${JSON.stringify(m.conditionId)}`);

  const outcomes = m.outcomes === undefined ? ok<string[]>([]) : parseStringArray(m.outcomes, 'outcomes');
  if (!outcomes.ok) return outcomes;
  const tokenIds = m.clobTokenIds === undefined ? ok<string[]>([]) : parseTokenIds(m.clobTokenIds, 'clobTokenIds');
  if (!tokenIds.ok) return tokenIds;
  // Placeholder members of neg-risk events have no outcomePrices at all.
  const priceStrings = m.outcomePrices === undefined ? ok<string[]>([]) : parseStringArray(m.outcomePrices, 'outcomePrices');
  if (!priceStrings.ok) return priceStrings;
  const prices = priceStrings.value.map(Number);
  if (prices.some((p) => !Number.isFinite(p) || p < 0 || p > 1)) return fail(`outcomePrices out of range: ${String(m.outcomePrices)}`);

  const yesIndex = Math.max(
    0,
    outcomes.value.findIndex((o) => o.toLowerCase() === 'yes'),
  );
  const status = marketStatus(m, prices);
  const event = firstEvent(m);
  const top = parseBookTop(m.bestBid, m.bestAsk);
  const settled = status === 'resolved' || status === 'voided';
  const normalized: Omit<MarketUpserted, 'event_id'> = {
    source,
    market_id: marketId,
    gamma_id: String(m.id ?? ''),
    slug: String(m.slug ?? ''),
    title: String(m.question ?? m.title ?? ''),
    category: String(m.category ?? event?.category ?? tagCategory(m) ?? '').trim() || 'Uncategorized',
    event_id_upstream: String(event?.id ?? ''),
    event_slug: String(event?.slug ?? ''),
    event_title: String(event?.title ?? ''),
    outcomes: outcomes.value,
    outcome_token_ids: tokenIds.value,
    outcome_prices: prices,
    yes_index: yesIndex,
    status,
    resolved_outcome: status === 'resolved' ? (outcomes.value[prices.indexOf(1)] ?? null) : status === 'voided' ? VOIDED_OUTCOME : null,
    volume_total_usdc: parseOptionalNumber(m.volumeNum ?? m.volume) ?? 0,
    volume_24h_usdc: parseOptionalNumber(m.volume24hr) ?? 0,
    liquidity_usdc: parseOptionalNumber(m.liquidityNum ?? m.liquidity) ?? 0,
    best_bid: top.bid,
    best_ask: top.ask,
    last_trade_price: parseOptionalNumber(m.lastTradePrice),
    neg_risk: m.negRisk === true,
    start_ms: parseTimestampMs(m.startDate ?? m.startDateIso),
    end_ms: parseTimestampMs(m.endDate ?? m.endDateIso),
    closed_ms: parseTimestampMs(m.closedTime),
    created_ms: parseTimestampMs(m.createdAt),
    updated_at_ms: parseTimestampMs(m.updatedAt) ?? nowMs,
    ingested_at_ms: nowMs,
    uma_resolution_status: typeof m.umaResolutionStatus === 'string' ? m.umaResolutionStatus : null,
    accepting_orders: typeof m.acceptingOrders === 'boolean' ? m.acceptingOrders : null,
    neg_risk_market_id: typeof m.negRiskMarketID === 'string' && m.negRiskMarketID !== '' ? m.negRiskMarketID.toLowerCase() : null,
    question_id: typeof m.questionID === 'string' && m.questionID !== '' ? m.questionID.toLowerCase() : null,
    tick_size: parseOptionalNumber(m.orderPriceMinTickSize),
    resolved_at_ms: settled ? (parseTimestampMs(m.umaEndDate) ?? parseTimestampMs(m.closedTime)) : null,
    ...feeFields(m),
    market_maker_address: marketMakerAddress(m.marketMakerAddress),
  };
  // The AMM address enters the content hash only when there is one, so a market without one keeps its
  // event id across the field's addition.
  const { ingested_at_ms: _ignored, market_maker_address: amm, ...rest } = normalized;
  const identity = amm === null ? rest : { ...rest, market_maker_address: amm };
  const contentHash = crypto.createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 16);
  return ok({ event_id: `${marketId}:${contentHash}`, ...normalized });
}

/**
 * resolved: UMA says resolved, or the market is closed with a winning price of exactly 1.
 * voided: UMA says resolved with a split payout (no outcome at 1, payouts adding up to 1: a 50-50).
 * closed: closed upstream without resolution evidence. active: everything else.
 */
function marketStatus(m: GammaMarket, prices: number[]): MarketStatus {
  const closed = m.closed === true;
  const umaResolved = m.umaResolutionStatus === 'resolved';
  if (umaResolved && prices.includes(1)) return 'resolved';
  if (closed && prices.length > 0 && prices.includes(1) && prices.every((p) => p === 0 || p === 1)) return 'resolved';
  if (umaResolved && isSplitPayout(prices)) return 'voided';
  return closed ? 'closed' : 'active';
}

/**
 * Fee fields: `feeSchedule` {rate, exponent, takerOnly} is the effective schedule; the legacy
 * makerBaseFee/takerBaseFee (1000 whenever fees are on) are not a rate and are not kept.
 */
function feeFields(m: GammaMarket): Pick<MarketUpserted, 'fees_enabled' | 'fee_type' | 'fee_rate' | 'fee_exponent' | 'fee_taker_only'> {
  const schedule = m.feeSchedule && typeof m.feeSchedule === 'object' ? (m.feeSchedule as Record<string, unknown>) : null;
  const rate = parseOptionalNumber(schedule?.rate);
  const exponent = parseOptionalNumber(schedule?.exponent);
  return {
    fees_enabled: m.feesEnabled === true,
    fee_type: typeof m.feeType === 'string' && m.feeType !== '' ? m.feeType : null,
    fee_rate: rate !== null && rate >= 0 ? rate : null,
    fee_exponent: exponent !== null && exponent >= 0 ? exponent : null,
    fee_taker_only: typeof schedule?.takerOnly === 'boolean' ? schedule.takerOnly : null,
  };
}

function isSplitPayout(prices: number[]): boolean {
  const total = prices.reduce((sum, p) => sum + p, 0);
  return prices.length >= 2 && !prices.includes(1) && Math.abs(total - 1) < 1e-9;
}

function firstEvent(m: GammaMarket): Record<string, unknown> | undefined {
  const events = m.events;
  return Array.isArray(events) && events[0] && typeof events[0] === 'object' ? (events[0] as Record<string, unknown>) : undefined;
}

function tagCategory(m: GammaMarket): string | undefined {
  const tags = (firstEvent(m)?.tags ?? m.tags) as unknown;
  if (!Array.isArray(tags)) return undefined;
  const label = (tags.find((t) => t && typeof t === 'object' && 'label' in t) as { label?: unknown } | undefined)?.label;
  return typeof label === 'string' ? label : undefined;
}

/**
 * The resolution carried by a resolved or voided market (a void has no winner: index -1). Its id is the market id alone, so the Gamma poll,
 * the websocket `market_resolved` message and a re-run all produce the same event.
 */
export function resolutionOf(market: MarketUpserted, origin: MarketResolved['origin'] = 'gamma'): MarketResolved | null {
  if (market.status !== 'resolved' && market.status !== 'voided') return null;
  const winnerIndex =
    market.status === 'resolved' && market.outcome_prices.filter((p) => p === 1).length === 1 ? market.outcome_prices.indexOf(1) : -1;
  return {
    event_id: resolutionEventId(market.market_id),
    source: market.source,
    market_id: market.market_id,
    gamma_id: market.gamma_id,
    slug: market.slug,
    title: market.title,
    outcomes: market.outcomes,
    outcome_token_ids: market.outcome_token_ids,
    winning_outcome: winnerIndex >= 0 ? (market.outcomes[winnerIndex] ?? null) : null,
    winning_outcome_index: winnerIndex,
    winning_asset_id: winnerIndex >= 0 ? (market.outcome_token_ids[winnerIndex] ?? null) : null,
    payouts: market.outcome_prices,
    resolved_at_ms: market.resolved_at_ms ?? market.closed_ms,
    origin,
    ingested_at_ms: market.ingested_at_ms,
  };
}

export function resolutionEventId(marketId: string): string {
  return `${marketId.toLowerCase()}:resolved`;
}

/** Gamma's marketMakerAddress: an address (lower-case) for markets of the legacy AMM, '' (or absent) for the others. */
function marketMakerAddress(value: unknown): string | null {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value) ? value.toLowerCase() : null;
}
