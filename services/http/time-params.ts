/**
 * Time query parameters: the OpenAPI document checks the date-time format; this bounds the value to
 * what the stores hold (DateTime64 in ClickHouse spans 1900..2299; we accept 2000..2100), so a year-43
 * or year-9999 timestamp is a 400 naming the parameter rather than an engine error.
 */
import { ApiError } from './errors.js';

const EARLIEST = Date.UTC(2000, 0, 1);
const LATEST = Date.UTC(2100, 0, 1);

export function timeParam(name: string, raw: unknown): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const ms = Date.parse(String(raw));
  if (!Number.isFinite(ms) || ms < EARLIEST || ms > LATEST)
    throw ApiError.badRequest(`${name}: must be a time between 2000-01-01 and 2100-01-01`);
  return ms;
}

/** An instant given as ISO 8601 or as unix seconds (digits, optionally with a fraction down to milliseconds). */
export function instantParam(name: string, raw: unknown): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const text = String(raw);
  if (/^\d{1,12}(\.\d{1,3})?$/.test(text)) {
    const ms = Math.round(Number(text) * 1000);
    if (ms < EARLIEST || ms > LATEST) throw ApiError.badRequest(`${name}: must be a time between 2000-01-01 and 2100-01-01`);
    return ms;
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) throw ApiError.badRequest(`${name}: must be an ISO 8601 time or unix seconds`);
  return timeParam(name, text);
}
