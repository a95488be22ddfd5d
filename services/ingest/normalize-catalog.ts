/**
 * Gamma events, series and tags -> catalog events. Ids are digit strings upstream; event-level
 * volume/liquidity/openInterest are JSON numbers (markets carry decimal strings), both accepted.
 */
import type { GammaEventUpserted, SeriesUpserted, Source, TagUpserted } from '../events/types.js';
import { contentId } from './content-id.js';
import { fail, ok, parseOptionalNumber, parseTimestampMs, type Parsed } from './parse.js';

type Json = Record<string, unknown>;
const GAMMA_ID = /^\d+$/;

const isObject = (raw: unknown): raw is Json => !!raw && typeof raw === 'object' && !Array.isArray(raw);
const text = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
const idsOf = (list: unknown, field = 'id'): string[] =>
  Array.isArray(list)
    ? list
        .filter(isObject)
        .map((item) => text(item[field]).toLowerCase())
        .filter((id) => id !== '')
    : [];

function gammaId(raw: Json, what: string): Parsed<string> {
  const id = text(raw.id);
  return GAMMA_ID.test(id) ? ok(id) : fail(`${what} id missing or not digits: ${JSON.stringify(raw.id)}`);
}

export function normalizeGammaEvent(raw: unknown, source: Source, nowMs: number): Parsed<GammaEventUpserted> {
  if (!isObject(raw)) return fail('event is not an object');
  const id = gammaId(raw, 'event');
  if (!id.ok) return id;
  const tags = Array.isArray(raw.tags) ? raw.tags.filter(isObject) : [];
  const body: Omit<GammaEventUpserted, 'event_id'> = {
    source,
    gamma_event_id: id.value,
    slug: text(raw.slug),
    title: text(raw.title),
    category: text(raw.category).trim() || text(tags[0]?.label).trim() || 'Uncategorized',
    active: raw.active === true,
    closed: raw.closed === true,
    archived: raw.archived === true,
    neg_risk: raw.negRisk === true || raw.enableNegRisk === true,
    neg_risk_market_id: text(raw.negRiskMarketID).toLowerCase() || null,
    start_ms: parseTimestampMs(raw.startDate),
    end_ms: parseTimestampMs(raw.endDate),
    closed_ms: parseTimestampMs(raw.closedTime),
    volume_usdc: parseOptionalNumber(raw.volume) ?? 0,
    volume_24h_usdc: parseOptionalNumber(raw.volume24hr) ?? 0,
    liquidity_usdc: parseOptionalNumber(raw.liquidity) ?? 0,
    open_interest_usdc: parseOptionalNumber(raw.openInterest) ?? 0,
    market_ids: idsOf(raw.markets, 'conditionId'),
    series_ids: idsOf(raw.series),
    tag_ids: idsOf(tags),
    updated_at_ms: parseTimestampMs(raw.updatedAt) ?? nowMs,
    ingested_at_ms: nowMs,
  };
  return ok({ event_id: contentId(`event:${id.value}`, body), ...body });
}

export function normalizeGammaSeries(raw: unknown, source: Source, nowMs: number): Parsed<SeriesUpserted> {
  if (!isObject(raw)) return fail('series is not an object');
  const id = gammaId(raw, 'series');
  if (!id.ok) return id;
  const body: Omit<SeriesUpserted, 'event_id'> = {
    source,
    series_id: id.value,
    slug: text(raw.slug),
    ticker: text(raw.ticker),
    title: text(raw.title),
    series_type: text(raw.seriesType),
    recurrence: text(raw.recurrence),
    active: raw.active === true,
    closed: raw.closed === true,
    archived: raw.archived === true,
    volume_usdc: parseOptionalNumber(raw.volume) ?? 0,
    volume_24h_usdc: parseOptionalNumber(raw.volume24hr) ?? 0,
    liquidity_usdc: parseOptionalNumber(raw.liquidity) ?? 0,
    event_ids: idsOf(raw.events),
    created_ms: parseTimestampMs(raw.createdAt),
    updated_at_ms: parseTimestampMs(raw.updatedAt) ?? nowMs,
    ingested_at_ms: nowMs,
  };
  // A series' updatedAt moves on every read upstream; keep it out of the identity so an unchanged
  // series is not republished every poll.
  const { updated_at_ms: _moving, ...identity } = body;
  return ok({ event_id: contentId(`series:${id.value}`, identity), ...body });
}

export function normalizeGammaTag(raw: unknown, source: Source, nowMs: number): Parsed<TagUpserted> {
  if (!isObject(raw)) return fail('tag is not an object');
  const id = gammaId(raw, 'tag');
  if (!id.ok) return id;
  const body: Omit<TagUpserted, 'event_id'> = {
    source,
    tag_id: id.value,
    label: text(raw.label),
    slug: text(raw.slug),
    force_show: raw.forceShow === true,
    created_ms: parseTimestampMs(raw.createdAt),
    updated_at_ms: parseTimestampMs(raw.updatedAt) ?? nowMs,
    ingested_at_ms: nowMs,
  };
  return ok({ event_id: contentId(`tag:${id.value}`, body), ...body });
}
