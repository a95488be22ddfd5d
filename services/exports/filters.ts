/** An export's filters as given (the API's POST /exports body, the operator command's options) turned into the filters applied. */
import { ApiError } from '../http/errors.js';
import { timeParam } from '../http/time-params.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { marketFilter } from '../read-models/trades/routes.js';
import type { CandleInterval, DatasetName, ExportFilters } from './datasets.js';
import { DATASET_SCHEMAS, type FilterName } from './schemas.js';

const DAY_MS = 86_400_000;

/** A Gamma event id or slug as the event id the catalogue holds (404 naming the filter when none does). */
async function eventFilter(store: AnalyticsStore, idOrSlug: string): Promise<string> {
  const [found] = await store.query<{ event_id: string }>(
    `SELECT event_id FROM markets FINAL WHERE event_id != '' AND (event_id = {event:String} OR event_slug = {event:String}) LIMIT 1`,
    { event: idOrSlug },
  );
  if (!found) throw ApiError.notFound(`filters.event: no event with id or slug ${idOrSlug}`);
  return found.event_id;
}

/**
 * The given filters as applied: only those the dataset takes (another is a 400 naming it), from..to
 * exactly when it has time, spanning at most `maxDays` (null: no bound, for the operator command).
 */
export async function exportFilters(
  store: AnalyticsStore,
  request: { dataset: DatasetName; filters?: Partial<Record<FilterName, string>> },
  maxDays: number | null,
): Promise<ExportFilters> {
  const dataset = DATASET_SCHEMAS[request.dataset];
  const given = request.filters ?? {};
  for (const name of Object.keys(given) as FilterName[])
    if (!dataset.filters.includes(name))
      throw ApiError.badRequest(
        `filters.${name}: the ${request.dataset} dataset has no ${name} filter (its filters: ${dataset.filters.join(', ')})`,
      );
  const filters: ExportFilters = {};
  if (dataset.time !== null) {
    if (given.from === undefined) throw ApiError.badRequest(`filters.from: required for the ${request.dataset} dataset`);
    if (given.to === undefined) throw ApiError.badRequest(`filters.to: required for the ${request.dataset} dataset`);
    const from = timeParam('filters.from', given.from)!;
    const to = timeParam('filters.to', given.to)!;
    if (from >= to) throw ApiError.badRequest('filters.from: must be before filters.to');
    if (maxDays !== null && to - from > maxDays * DAY_MS)
      throw ApiError.badRequest(`filters.to: from..to spans at most ${maxDays} days (EXPORT_MAX_DAYS); split the export`);
    Object.assign(filters, { from, to });
  }
  const market = await marketFilter(store, given.market).catch((error: unknown) => {
    throw error instanceof ApiError && error.status === 404 ? ApiError.notFound(`filters.${error.message}`) : error;
  });
  if (market) filters.market = market;
  if (given.event) filters.event = await eventFilter(store, given.event);
  if (given.category) filters.category = given.category;
  if (given.wallet) filters.wallet = given.wallet.toLowerCase();
  if (dataset.filters.includes('interval')) filters.interval = (given.interval ?? '1h') as CandleInterval;
  return filters;
}
