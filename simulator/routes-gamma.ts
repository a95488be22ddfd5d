/**
 * Gamma API: /markets, /markets/keyset, /markets/:id, /markets/slug/:slug, /events, /events/keyset,
 * /events/:id, /events/slug/:slug, /series, /series/:id, /tags.
 *
 * Listing semantics copied from upstream: omitting `closed` behaves as closed=false (closed markets
 * silently drop out) and, in this simulator, omitting `archived` as archived=false; `end_date_min`
 * filters on a market's end date (not on when it closed); `limit` above 500 is capped (100 on
 * /markets/keyset, 500 on /events/keyset), ids are digit strings. Without `order` rows come by id
 * ascending; with `order`, `ascending` defaults to false. The keyset variants answer
 * `{markets|events, next_cursor}`, take the cursor back as `after_cursor`, leave `next_cursor` out
 * on the last page and refuse `offset`.
 */

import { Router } from 'express';
import type { OrderBooks } from './books.js';
import {
  HttpError,
  boolParam,
  conditionIdsParam,
  dateParam,
  floatParam,
  intParam,
  listParam,
  paginate,
  stringParam,
  type Query,
} from './http-params.js';
import { marketFigures, updatedAtMicros } from './market-figures.js';
import { renderEvent, renderMarket, renderSeries, renderTag } from './render-gamma.js';
import type { SimulatorState } from './state.js';
import type { SimEvent, SimMarket } from './world-types.js';

const MAX_LIMIT = 500;
const MARKETS_KEYSET_MAX_LIMIT = 100;
const EVENTS_KEYSET_MAX_LIMIT = 500;
const MARKET_ORDER_FIELDS = [
  'updatedAt',
  'volume24hr',
  'volumeNum',
  'volume',
  'liquidityNum',
  'liquidity',
  'endDate',
  'startDate',
  'createdAt',
  'id',
] as const;
const EVENT_ORDER_FIELDS = ['updatedAt', 'volume24hr', 'volume', 'liquidity', 'endDate', 'startDate', 'createdAt', 'id'] as const;
const DIGITS = /^\d+$/;

type SortKey = (index: number) => number;

export function gammaRouter(state: SimulatorState, books: OrderBooks): Router {
  const router = Router();
  const market = (m: SimMarket) => renderMarket(state, books, m, { withEvent: true });
  const event = (e: SimEvent) => renderEvent(state, books, e, { withMarkets: true, withTags: true });

  const marketKey = (field: string): SortKey => {
    switch (field) {
      case 'updatedAt':
        return (i) => updatedAtMicros(state, state.world.markets[i] as SimMarket);
      case 'volume24hr':
        return (i) => state.volume24hr(i);
      case 'volumeNum':
      case 'volume':
        return (i) => state.totalVolume(i);
      case 'liquidityNum':
      case 'liquidity':
        return (i) => marketFigures(state, books, state.world.markets[i] as SimMarket).liquidityNum ?? 0;
      case 'endDate':
        return (i) => (state.world.markets[i] as SimMarket).endDateMs;
      case 'startDate':
        return (i) => (state.world.markets[i] as SimMarket).startDateMicros;
      case 'createdAt':
        return (i) => (state.world.markets[i] as SimMarket).createdAtMicros;
      default:
        return (i) => Number((state.world.markets[i] as SimMarket).id);
    }
  };

  router.get('/markets', (req, res) => {
    const query = req.query as Query;
    const page = pageParams(query);
    const ordered = orderedIndexes(state.world.markets, marketFilter(state, books, query), query, MARKET_ORDER_FIELDS, marketKey);
    res.json(paginate(ordered, page.offset, page.limit).map((i) => market(state.world.markets[i] as SimMarket)));
  });

  router.get('/markets/keyset', (req, res) => {
    const query = req.query as Query;
    const page = keysetPage(
      query,
      state.world.markets,
      marketFilter(state, books, query),
      MARKET_ORDER_FIELDS,
      marketKey,
      MARKETS_KEYSET_MAX_LIMIT,
    );
    res.json({ markets: page.indexes.map((i) => market(state.world.markets[i] as SimMarket)), ...page.next });
  });

  router.get('/markets/slug/:slug', (req, res) => {
    const found = state.marketBySlug.get(req.params.slug);
    if (!found) throw new HttpError(404, 'market not found');
    res.json(market(found));
  });

  router.get('/markets/:id', (req, res) => {
    if (!DIGITS.test(req.params.id)) throw new HttpError(400, 'id must be a number');
    const found = state.marketById.get(req.params.id);
    if (!found) throw new HttpError(404, 'market not found');
    res.json(market(found));
  });

  const sumOver = (e: SimEvent, pick: (marketIndex: number) => number) => e.marketIndexes.reduce((sum, i) => sum + pick(i), 0);
  const eventKey = (field: string): SortKey => {
    const byEvent =
      (pick: (e: SimEvent) => number): SortKey =>
      (i) =>
        pick(state.world.events[i] as SimEvent);
    switch (field) {
      case 'updatedAt':
        return byEvent((e) => Math.max(...e.marketIndexes.map((i) => updatedAtMicros(state, state.world.markets[i] as SimMarket))));
      case 'volume24hr':
        return byEvent((e) => sumOver(e, (i) => state.volume24hr(i)));
      case 'volume':
        return byEvent((e) => sumOver(e, (i) => state.totalVolume(i)));
      case 'liquidity':
        return byEvent((e) => sumOver(e, (i) => books.liquidity(state.world.markets[i] as SimMarket)));
      case 'endDate':
        return byEvent((e) => e.endDateMs);
      case 'startDate':
        return byEvent((e) => e.startDateMicros);
      case 'createdAt':
        return byEvent((e) => e.createdAtMicros);
      default:
        return byEvent((e) => Number(e.id));
    }
  };

  router.get('/events', (req, res) => {
    const query = req.query as Query;
    const page = pageParams(query);
    const ordered = orderedIndexes(state.world.events, eventFilter(state, query), query, EVENT_ORDER_FIELDS, eventKey);
    res.json(paginate(ordered, page.offset, page.limit).map((i) => event(state.world.events[i] as SimEvent)));
  });

  router.get('/events/keyset', (req, res) => {
    const query = req.query as Query;
    const page = keysetPage(query, state.world.events, eventFilter(state, query), EVENT_ORDER_FIELDS, eventKey, EVENTS_KEYSET_MAX_LIMIT);
    res.json({ events: page.indexes.map((i) => event(state.world.events[i] as SimEvent)), ...page.next });
  });

  router.get('/events/slug/:slug', (req, res) => {
    const found = state.eventBySlug.get(req.params.slug);
    if (!found) throw new HttpError(404, 'event not found');
    res.json(event(found));
  });

  router.get('/events/:id', (req, res) => {
    if (!DIGITS.test(req.params.id)) throw new HttpError(400, 'id must be a number');
    const found = state.eventById.get(req.params.id);
    if (!found) throw new HttpError(404, 'event not found');
    res.json(event(found));
  });

  router.get('/series', (req, res) => {
    const query = req.query as Query;
    const page = pageParams(query);
    const slugs = new Set(listParam(query, 'slug'));
    const closed = boolParam(query, 'closed');
    const rows = state.world.series
      .map((series) => renderSeries(state, books, series, { withEvents: true }))
      .filter((row) => (slugs.size === 0 || slugs.has(String(row.slug))) && (closed === undefined || row.closed === closed));
    res.json(paginate(rows, page.offset, page.limit));
  });

  router.get('/series/:id', (req, res) => {
    const found = state.seriesById.get(req.params.id);
    if (!found) throw new HttpError(404, 'series not found');
    res.json(renderSeries(state, books, found, { withEvents: true }));
  });

  router.get('/tags', (req, res) => {
    const query = req.query as Query;
    const limit = intParam(query, 'limit', { defaultValue: 100, min: 0, max: 1000, aboveMax: 'clamp' });
    const offset = intParam(query, 'offset', { defaultValue: 0, min: 0, max: Number.MAX_SAFE_INTEGER, aboveMax: 'clamp' });
    res.json(paginate(state.world.tags, offset, limit).map(renderTag));
  });

  return router;
}

function pageParams(query: Query): { limit: number; offset: number } {
  return {
    limit: intParam(query, 'limit', { defaultValue: 20, min: 0, max: MAX_LIMIT, aboveMax: 'clamp' }),
    offset: intParam(query, 'offset', { defaultValue: 0, min: 0, max: Number.MAX_SAFE_INTEGER, aboveMax: 'clamp' }),
  };
}

function digitList(query: Query, name: string): Set<string> {
  const values = listParam(query, name, { commaSeparated: true });
  for (const value of values) if (!DIGITS.test(value)) throw new HttpError(400, `${name} must be numeric`);
  return new Set(values);
}

function marketFilter(state: SimulatorState, books: OrderBooks, query: Query): (market: SimMarket) => boolean {
  const closed = boolParam(query, 'closed') ?? false;
  const active = boolParam(query, 'active');
  const archived = boolParam(query, 'archived');
  const ids = digitList(query, 'id');
  const slugs = new Set(listParam(query, 'slug'));
  const conditionIds = new Set(conditionIdsParam(query, 'condition_ids'));
  const tokenIds = new Set(listParam(query, 'clob_token_ids', { commaSeparated: true }));
  const tagIds = digitList(query, 'tag_id');
  const endMin = dateParam(query, 'end_date_min');
  const endMax = dateParam(query, 'end_date_max');
  const startMin = dateParam(query, 'start_date_min');
  const startMax = dateParam(query, 'start_date_max');
  const volumeMin = floatParam(query, 'volume_num_min');
  const volumeMax = floatParam(query, 'volume_num_max');
  const liquidityMin = floatParam(query, 'liquidity_num_min');
  const liquidityMax = floatParam(query, 'liquidity_num_max');
  return (market) => {
    const event = state.world.events[market.eventIndex] as SimEvent;
    const startMs = market.startDateMicros / 1000;
    const volume = state.totalVolume(market.index);
    return (
      (state.status[market.index]?.closed ?? false) === closed &&
      (active === undefined || !market.placeholder === active) &&
      (archived ?? false) === market.archived &&
      (ids.size === 0 || ids.has(market.id)) &&
      (slugs.size === 0 || slugs.has(market.slug)) &&
      (conditionIds.size === 0 || conditionIds.has(market.conditionId)) &&
      (tokenIds.size === 0 || market.tokenIds.some((token) => tokenIds.has(token))) &&
      (tagIds.size === 0 || event.tagIds.some((id) => tagIds.has(id))) &&
      (endMin === undefined || market.endDateMs >= endMin) &&
      (endMax === undefined || market.endDateMs <= endMax) &&
      (startMin === undefined || startMs >= startMin) &&
      (startMax === undefined || startMs <= startMax) &&
      (volumeMin === undefined || volume >= volumeMin) &&
      (volumeMax === undefined || volume <= volumeMax) &&
      withinRange(liquidityMin, liquidityMax, () => books.liquidity(market))
    );
  };
}

/** Range check that only computes the value (a book, for liquidity) when a bound is given. */
function withinRange(min: number | undefined, max: number | undefined, value: () => number): boolean {
  if (min === undefined && max === undefined) return true;
  const actual = value();
  return (min === undefined || actual >= min) && (max === undefined || actual <= max);
}

function eventFilter(state: SimulatorState, query: Query): (event: SimEvent) => boolean {
  const closed = boolParam(query, 'closed') ?? false;
  const active = boolParam(query, 'active');
  const archived = boolParam(query, 'archived');
  const ids = digitList(query, 'id');
  const slugs = new Set(listParam(query, 'slug'));
  const tagIds = digitList(query, 'tag_id');
  const tagSlug = stringParam(query, 'tag_slug');
  const seriesIds = digitList(query, 'series_id');
  const tagIdForSlug = tagSlug === undefined ? undefined : (state.world.tags.find((tag) => tag.slug === tagSlug)?.id ?? '-');
  return (event) => {
    const tradable = event.marketIndexes.filter((i) => !(state.world.markets[i] as SimMarket).placeholder);
    const eventClosed = tradable.length > 0 && tradable.every((i) => state.status[i]?.closed);
    const series = event.seriesIndex === null ? undefined : state.world.series[event.seriesIndex];
    return (
      eventClosed === closed &&
      (active === undefined || active) &&
      (archived ?? false) === event.archived &&
      (ids.size === 0 || ids.has(event.id)) &&
      (slugs.size === 0 || slugs.has(event.slug)) &&
      (tagIds.size === 0 || event.tagIds.some((id) => tagIds.has(id))) &&
      (tagIdForSlug === undefined || event.tagIds.includes(tagIdForSlug)) &&
      (seriesIds.size === 0 || (series !== undefined && seriesIds.has(series.id)))
    );
  };
}

/**
 * Indexes of the selected items in the requested order. Items are stored by id ascending (ids grow
 * with creation), so the default order needs no sort: that keeps paging a large catalog cheap.
 */
function orderedIndexes<T extends { index: number }>(
  items: readonly T[],
  keep: (item: T) => boolean,
  query: Query,
  allowed: readonly string[],
  keyFor: (field: string) => SortKey,
): number[] {
  const selected: number[] = [];
  for (const item of items) if (keep(item)) selected.push(item.index);
  const fields = listParam(query, 'order', { commaSeparated: true });
  const ascending = boolParam(query, 'ascending') ?? fields.length === 0;
  if ((fields.length === 0 || (fields.length === 1 && fields[0] === 'id')) && ascending) return selected;
  return sortByFields(selected, query, allowed, keyFor);
}

/** One keyset page: the cursor holds the last row's sort values and id, base64url JSON. */
function keysetPage<T extends { index: number; id: string }>(
  query: Query,
  items: readonly T[],
  keep: (item: T) => boolean,
  allowed: readonly string[],
  keyFor: (field: string) => SortKey,
  maxLimit: number,
): { indexes: number[]; next: { next_cursor?: string } } {
  if (stringParam(query, 'offset') !== undefined) throw new HttpError(400, 'offset is not supported on keyset endpoints; use after_cursor');
  const limit = intParam(query, 'limit', { defaultValue: 20, min: 1, max: maxLimit, aboveMax: 'clamp' });
  const fields = listParam(query, 'order', { commaSeparated: true });
  const keys = (fields.length ? fields : ['id']).map(keyFor);
  const ascending = boolParam(query, 'ascending') ?? fields.length === 0;
  const cursorText = stringParam(query, 'after_cursor');
  let after: number[] | null = null;
  if (cursorText !== undefined) {
    try {
      after = JSON.parse(Buffer.from(cursorText, 'base64url').toString('utf8')) as number[];
    } catch {
      throw new HttpError(400, 'after_cursor is not a cursor this endpoint issued');
    }
    if (!Array.isArray(after) || after.length !== keys.length + 1 || !after.every((v) => typeof v === 'number'))
      throw new HttpError(400, 'after_cursor is not a cursor this endpoint issued');
  }
  const idOf = (i: number) => Number((items[i] as T).id);
  const valuesOf = (i: number) => [...keys.map((key) => key(i)), idOf(i)];
  const direction = ascending ? 1 : -1;
  const isAfter = (i: number) => {
    if (!after) return true;
    const values = valuesOf(i);
    for (let k = 0; k < values.length - 1; k++) {
      const diff = ((values[k] as number) - (after[k] as number)) * direction;
      if (diff !== 0) return diff > 0;
    }
    // Ties are broken by id ascending, as in sortByFields.
    return (values[values.length - 1] as number) > (after[after.length - 1] as number);
  };
  const indexes: number[] = [];
  let more = false;
  if ((fields.length === 0 || (fields.length === 1 && fields[0] === 'id')) && ascending) {
    // Stored by id ascending: start right after the cursor's id and walk forward.
    let start = 0;
    if (after) {
      const afterId = after[after.length - 1] as number;
      let high = items.length;
      while (start < high) {
        const mid = (start + high) >> 1;
        if (idOf(mid) <= afterId) start = mid + 1;
        else high = mid;
      }
    }
    for (let i = start; i < items.length; i++) {
      if (!keep(items[i] as T)) continue;
      if (indexes.length === limit) {
        more = true;
        break;
      }
      indexes.push(i);
    }
  } else {
    const ordered = orderedIndexes(items, keep, query, allowed, keyFor).filter(isAfter);
    indexes.push(...ordered.slice(0, limit));
    more = ordered.length > limit;
  }
  const last = indexes[indexes.length - 1];
  const next = more && last !== undefined ? { next_cursor: Buffer.from(JSON.stringify(valuesOf(last))).toString('base64url') } : {};
  return { indexes, next };
}

/** Sort indexes by the comma-separated `order` fields (validated), ties broken by id ascending. */
function sortByFields(indexes: number[], query: Query, allowed: readonly string[], keyFor: (field: string) => SortKey): number[] {
  const fields = listParam(query, 'order', { commaSeparated: true });
  for (const field of fields) if (!allowed.includes(field)) throw new HttpError(400, `order must be one of ${allowed.join(', ')}`);
  const ascending = boolParam(query, 'ascending') ?? fields.length === 0;
  const keys = (fields.length ? fields : ['id']).map(keyFor);
  const idKey = keyFor('id');
  const values = new Map(indexes.map((i) => [i, keys.map((key) => key(i))]));
  const direction = ascending ? 1 : -1;
  return indexes.slice().sort((a, b) => {
    const va = values.get(a) as number[];
    const vb = values.get(b) as number[];
    for (let k = 0; k < va.length; k++) {
      const diff = (va[k] as number) - (vb[k] as number);
      if (diff !== 0) return diff * direction;
    }
    return idKey(a) - idKey(b);
  });
}
