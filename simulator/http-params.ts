/**
 * Query-string parsing shared by the three routers. Unknown parameters are ignored (as upstream does);
 * a parameter that is present but malformed or out of range is a 400 with {error}, so an ingestion
 * bug shows up as a failed request instead of silently wrong data.
 */

import type { ErrorRequestHandler, RequestHandler } from 'express';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export type Query = Record<string, unknown>;

/** Every value of a parameter, whether repeated (?id=1&id=2) and/or comma-separated (?market=a,b). */
export function listParam(query: Query, name: string, options: { commaSeparated?: boolean } = {}): string[] {
  const raw = query[name];
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
  const split = options.commaSeparated ? values.flatMap((value) => value.split(',')) : values;
  return split.map((value) => value.trim()).filter((value) => value !== '');
}

/** A single-valued parameter; when repeated, the last value wins. */
export function stringParam(query: Query, name: string): string | undefined {
  const values = listParam(query, name);
  return values[values.length - 1];
}

export function intParam(
  query: Query,
  name: string,
  options: { defaultValue: number; min: number; max: number; aboveMax: 'clamp' | 'reject' },
): number {
  const text = stringParam(query, name);
  if (text === undefined) return options.defaultValue;
  if (!/^-?\d+$/.test(text)) throw new HttpError(400, `${name} must be an integer`);
  const value = Number(text);
  if (value < options.min) throw new HttpError(400, `${name} must be >= ${options.min}`);
  if (value > options.max) {
    if (options.aboveMax === 'reject') throw new HttpError(400, `${name} must be <= ${options.max}`);
    return options.max;
  }
  return value;
}

export function optionalIntParam(query: Query, name: string): number | undefined {
  const text = stringParam(query, name);
  if (text === undefined) return undefined;
  if (!/^-?\d+$/.test(text)) throw new HttpError(400, `${name} must be an integer`);
  return Number(text);
}

export function floatParam(query: Query, name: string): number | undefined {
  const text = stringParam(query, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new HttpError(400, `${name} must be a number`);
  return value;
}

export function boolParam(query: Query, name: string): boolean | undefined {
  const text = stringParam(query, name)?.toLowerCase();
  if (text === undefined) return undefined;
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw new HttpError(400, `${name} must be true or false`);
}

export function enumParam<T extends string>(query: Query, name: string, allowed: readonly T[]): T | undefined {
  const text = stringParam(query, name);
  if (text === undefined) return undefined;
  const match = allowed.find((value) => value.toLowerCase() === text.toLowerCase());
  if (!match) throw new HttpError(400, `${name} must be one of ${allowed.join(', ')}`);
  return match;
}

/** ISO date or datetime -> epoch ms. */
export function dateParam(query: Query, name: string): number | undefined {
  const text = stringParam(query, name);
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new HttpError(400, `${name} must be an ISO date`);
  return ms;
}

const CONDITION_ID = /^0x[0-9a-fA-F]{64}$/;
export const WALLET_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export function conditionIdsParam(query: Query, name: string): string[] {
  const ids = listParam(query, name, { commaSeparated: true });
  for (const id of ids) if (!CONDITION_ID.test(id)) throw new HttpError(400, `${name} must hold condition ids (0x + 64 hex)`);
  return ids.map((id) => id.toLowerCase());
}

export function walletParam(query: Query, name: string): string | undefined {
  const address = stringParam(query, name);
  if (address === undefined) return undefined;
  if (!WALLET_ADDRESS.test(address)) throw new HttpError(400, `${name} must be a wallet address (0x + 40 hex)`);
  return address.toLowerCase();
}

export function paginate<T>(items: readonly T[], offset: number, limit: number): T[] {
  return items.slice(offset, offset + limit);
}

export const notFoundHandler: RequestHandler = (_req, res) => {
  res.status(404).json({ error: 'not found' });
};

export const errorHandler: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
  if (error instanceof HttpError) {
    res.status(error.status).json({ error: error.message });
    return;
  }
  // express.json() reports unparsable bodies with a status of 400.
  const status = typeof error === 'object' && error !== null && 'status' in error ? Number(error.status) : 500;
  res.status(status >= 400 && status < 600 ? status : 500).json({ error: status === 400 ? 'Invalid payload' : 'Internal Server Error' });
};
