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
