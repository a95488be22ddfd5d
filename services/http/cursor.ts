/**
 * Opaque keyset cursors: base64url(JSON) of the last row's sort key plus a fingerprint of the query
 * that produced it, so a cursor replayed against a different query is refused instead of silently
 * skipping rows. A cursor comes back from the client, so every part of the key is checked against
 * what the query binds it to (a millisecond time, a row id, a rank) and an edited one is a 400,
 * never a value the stores would fail on.
 */
import crypto from 'node:crypto';
import { ApiError } from './errors.js';

export type CursorKey = Array<string | number>;

/**
 * - `string`: text up to 512 characters; `number`: a finite number;
 * - `ms`: integer milliseconds within 2000..2100 (the time range the API accepts);
 * - `int`: a non-negative safe integer (ranks); `id`: a decimal row id of 1 to 18 digits (a string);
 * - `signed`: an exact amount that can be negative (micro-units of a PnL), as text: an optional minus and 1 to 20 digits.
 */
export type CursorPart = 'string' | 'number' | 'ms' | 'int' | 'id' | 'signed';

const EARLIEST_MS = Date.UTC(2000, 0, 1);
const LATEST_MS = Date.UTC(2100, 0, 1);

function partIsValid(value: unknown, part: CursorPart): boolean {
  switch (part) {
    case 'string':
      return typeof value === 'string' && value.length <= 512;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'ms':
      return Number.isSafeInteger(value) && (value as number) >= EARLIEST_MS && (value as number) <= LATEST_MS;
    case 'int':
      return Number.isSafeInteger(value) && (value as number) >= 0;
    case 'id':
      return typeof value === 'string' && /^\d{1,18}$/.test(value);
    case 'signed':
      return typeof value === 'string' && /^-?\d{1,20}$/.test(value);
  }
}

export function queryFingerprint(query: Record<string, unknown>): string {
  const canonical = Object.keys(query)
    .filter((k) => k !== 'cursor' && k !== 'limit' && query[k] !== undefined)
    .sort()
    .map((k) => `${k}=${String(query[k])}`)
    .join('&');
  return crypto.createHash('sha256').update(canonical).digest('base64url').slice(0, 10);
}

export function encodeCursor(key: CursorKey, fingerprint: string): string {
  return Buffer.from(JSON.stringify({ v: 1, k: key, q: fingerprint })).toString('base64url');
}

export function decodeCursor(cursor: string, fingerprint: string, shape: readonly CursorPart[]): CursorKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw ApiError.badRequest('cursor: not a cursor issued by this API');
  }
  const body = parsed as { v?: unknown; k?: unknown; q?: unknown };
  const key = body?.k;
  const valid =
    body?.v === 1 && Array.isArray(key) && key.length === shape.length && key.every((value, i) => partIsValid(value, shape[i]!));
  if (!valid) throw ApiError.badRequest('cursor: not a cursor issued by this API');
  if (body.q !== fingerprint) throw ApiError.badRequest('cursor: issued for a different query; repeat the original query parameters');
  return key as CursorKey;
}
