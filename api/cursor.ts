/**
 * Opaque keyset cursors: base64url(JSON) of the last row's sort key plus a fingerprint of the query
 * that produced it, so a cursor replayed against a different query is refused instead of silently
 * skipping rows.
 */
import crypto from 'node:crypto';
import { ApiError } from './errors.js';

export type CursorKey = Array<string | number>;

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

export function decodeCursor(cursor: string, fingerprint: string, shape: Array<'string' | 'number'>): CursorKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw ApiError.badRequest('cursor: not a cursor issued by this API');
  }
  const body = parsed as { v?: unknown; k?: unknown; q?: unknown };
  const key = body?.k;
  const valid =
    body?.v === 1 &&
    Array.isArray(key) &&
    key.length === shape.length &&
    key.every((value, i) => typeof value === shape[i] && (typeof value !== 'number' || Number.isFinite(value)));
  if (!valid) throw ApiError.badRequest('cursor: not a cursor issued by this API');
  if (body.q !== fingerprint) throw ApiError.badRequest('cursor: issued for a different query; repeat the original query parameters');
  return key as CursorKey;
}
