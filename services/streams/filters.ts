/**
 * The filters channels share, checked the same way everywhere: each refusal is a 400 naming
 * `${prefix}<filter>` ('' for SSE query parameters, 'filters.' in WebSocket messages), a 404 for an
 * unknown market slug.
 */
import { ApiError } from '../http/errors.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { marketFilter } from '../read-models/trades/routes.js';
import { parseScaled } from '../shared/decimal.js';
import { WALLET } from '../shared/ids.js';

const MAX_MIN_SIZE = 1_000_000_000_000;

export const badFilter = (prefix: string, name: string, message: string) => ApiError.badRequest(`${prefix}${name}: ${message}`);

/** Refuses a filter the channel does not have, naming it and listing the channel's. */
export function onlyFilters(input: Record<string, unknown>, prefix: string, channel: string, known: readonly string[]): void {
  for (const name of Object.keys(input)) {
    if (!known.includes(name)) throw badFilter(prefix, name, `unknown filter (${channel} filters: ${known.join(', ')})`);
  }
}

/** A condition id (any case) or a slug, as the condition id; 404 naming the filter for an unknown slug. */
export async function marketOf(value: unknown, prefix: string, store: AnalyticsStore): Promise<string | undefined> {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0 || value.length > 300)
    throw badFilter(prefix, 'market', 'a condition id or slug (1-300 characters)');
  try {
    return await marketFilter(store, value);
  } catch (error) {
    // The shared lookup names `market`; on a WebSocket the field is filters.market.
    if (error instanceof ApiError && prefix) throw new ApiError(error.status, error.code, `${prefix}${error.message}`);
    throw error;
  }
}

export function walletOf(value: unknown, prefix: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !WALLET.test(value)) throw badFilter(prefix, 'wallet', 'must be 0x + 40 hex');
  return value.toLowerCase();
}

export function oneOf<T extends string>(value: unknown, prefix: string, name: string, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly unknown[]).includes(value)) throw badFilter(prefix, name, `must be ${allowed.join(' or ')}`);
  return value as T;
}

/** `min_size` in micro-USDC (exact: at most 6 decimals). */
export function minSizeOf(value: unknown, prefix: string): bigint | undefined {
  if (value === undefined) return undefined;
  // SSE query values arrive as strings (validated as numbers by the API document), WebSocket ones as JSON.
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number < 0 || number > MAX_MIN_SIZE)
    throw badFilter(prefix, 'min_size', `must be a number from 0 to ${MAX_MIN_SIZE}`);
  const micro = parseScaled(number);
  if (micro === null) throw badFilter(prefix, 'min_size', 'at most 6 decimals');
  return micro;
}

/**
 * One or more of `allowed`: a comma-separated string (an SSE query parameter) or an array of strings
 * (a WebSocket message); undefined: all.
 */
export function someOf<T extends string>(value: unknown, prefix: string, name: string, allowed: readonly T[]): ReadonlySet<T> | undefined {
  if (value === undefined) return undefined;
  const names = typeof value === 'string' ? value.split(',') : value;
  const wrong = () => badFilter(prefix, name, `one or more of ${allowed.join(', ')} (comma-separated, or an array)`);
  if (!Array.isArray(names) || names.length === 0 || names.length > allowed.length) throw wrong();
  for (const one of names) if (!(allowed as readonly unknown[]).includes(one)) throw wrong();
  return new Set(names as T[]);
}

/** A positive integer id (a copy subscription's, a strategy's): a number, or its digits as an SSE query value. */
export function idOf(value: unknown, prefix: string, name: string): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 1) throw badFilter(prefix, name, 'a positive integer id');
  return number;
}
