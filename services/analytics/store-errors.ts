/**
 * What a failure of the analytics store means, so callers act on its kind rather than its text:
 * - `too_broad`: a read hit its row, byte or result limit: the request asks for too much (4xx);
 * - `too_slow`: a read hit its time or memory limit, or waited too long for the engine (503, retry);
 * - `busy`: the caller already has as many queries queued as allowed, or the queue is full (429/503);
 * - `unavailable`: the store cannot be reached (connection refused or reset, timeouts) (503);
 * - `data`: ClickHouse rejected the values of an insert (parse, type, enum, range): retrying the same
 *   rows fails the same way, so the sink isolates and dead-letters them;
 * - `other`: anything else (a bug: 500).
 * ClickHouse errors are recognised by shape (`code` digits and `type`), since chDB and the HTTP client
 * each bundle their own copy of the ClickHouseError class.
 */
export type StoreErrorKind = 'too_broad' | 'too_slow' | 'busy' | 'unavailable' | 'data' | 'other';

/** Thrown by the query scheduler before the engine is touched. */
export class AnalyticsBusyError extends Error {
  override readonly name = 'AnalyticsBusyError';
  constructor(
    /** caller_gone: the request was closed before its statement ran (no one reads the answer). */
    readonly reason: 'lane_full' | 'queue_full' | 'queue_timeout' | 'caller_gone',
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** Thrown for a statement sent after the store began closing (the service is stopping). */
export class AnalyticsClosedError extends Error {
  override readonly name = 'AnalyticsClosedError';
  constructor() {
    super('the analytics store is closing');
  }
}

// https://github.com/ClickHouse/ClickHouse/blob/master/src/Common/ErrorCodes.cpp
const TOO_BROAD = new Set(['158', '307', '396']); // TOO_MANY_ROWS, TOO_MANY_BYTES, TOO_MANY_ROWS_OR_BYTES
const TOO_SLOW = new Set(['159', '160', '241', '394']); // TIMEOUT_EXCEEDED, TOO_SLOW, MEMORY_LIMIT_EXCEEDED, QUERY_WAS_CANCELLED
const UNAVAILABLE = new Set(['202', '209', '210', '242', '252', '319', '425']); // too many queries, socket/network, read-only, too many parts, unknown insert status, system error
/** The engine refused the values themselves: parse, type, conversion, range, enum, NULL into a plain column. */
const DATA = new Set(['6', '26', '27', '38', '41', '53', '69', '70', '72', '117', '131', '349', '691']);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);
/** PostgreSQL (the control store) going away: shutdown, crash, cannot connect (SQLSTATE classes 57P and 08). */
const POSTGRES_UNAVAILABLE = /^(57P0[1-3]|08\d{3})$/;

interface ClickHouseErrorShape {
  code: string;
  type?: string;
  message: string;
}

function clickHouseErrorOf(error: unknown): ClickHouseErrorShape | null {
  const e = error as { code?: unknown; type?: unknown; message?: unknown } | null;
  return e && typeof e.code === 'string' && /^\d+$/.test(e.code) && typeof e.message === 'string'
    ? { code: e.code, type: typeof e.type === 'string' ? e.type : undefined, message: e.message }
    : null;
}

export function storeErrorKind(error: unknown): StoreErrorKind {
  if (error instanceof AnalyticsBusyError) return error.reason === 'queue_timeout' ? 'too_slow' : 'busy';
  if (error instanceof AnalyticsClosedError) return 'unavailable';
  const clickhouse = clickHouseErrorOf(error);
  if (clickhouse) {
    if (TOO_BROAD.has(clickhouse.code)) return 'too_broad';
    if (TOO_SLOW.has(clickhouse.code)) return 'too_slow';
    if (UNAVAILABLE.has(clickhouse.code)) return 'unavailable';
    if (DATA.has(clickhouse.code)) return 'data';
    return 'other';
  }
  const e = error as { code?: unknown; message?: unknown; cause?: unknown } | null;
  if (e && typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || POSTGRES_UNAVAILABLE.test(e.code))) return 'unavailable';
  const message = typeof e?.message === 'string' ? e.message : '';
  // @clickhouse/client's own request timeout, a server that went away mid-response, pg losing its connection.
  if (/^Timeout error|socket hang up|other side closed|ECONNREFUSED|ECONNRESET|Connection terminated/i.test(message)) return 'unavailable';
  if (e?.cause && e.cause !== error) return storeErrorKind(e.cause) === 'unavailable' ? 'unavailable' : 'other';
  return 'other';
}
