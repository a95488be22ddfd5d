/** Bearer-key authentication: every route except registration and the API document needs a live key. */
import type { NextFunction, Request, Response } from 'express';
import type { Accounts, KeyOwner } from '../services/control/accounts.js';
import { ApiError } from './errors.js';

declare module 'express-serve-static-core' {
  interface Request {
    owner?: KeyOwner;
  }
}

interface CachedOwner {
  owner: KeyOwner;
  expiresAt: number;
}

// Bounds the cache so a flood of distinct keys cannot grow memory without limit.
const MAX_CACHED_KEYS = 10_000;

export function requireApiKey(accounts: Accounts, cacheTtlMs = 0, clock: () => number = Date.now) {
  const cache = new Map<string, CachedOwner>();
  const lookup = async (apiKey: string): Promise<KeyOwner | null> => {
    const cached = cache.get(apiKey);
    if (cached && cached.expiresAt > clock()) return cached.owner;
    const owner = await accounts.authenticate(apiKey);
    if (owner && cacheTtlMs > 0) {
      if (cache.size >= MAX_CACHED_KEYS) cache.clear();
      cache.set(apiKey, { owner, expiresAt: clock() + cacheTtlMs });
    }
    return owner;
  };
  return async (request: Request, _response: Response, next: NextFunction) => {
    const header = request.get('authorization');
    if (!header) return next(ApiError.unauthorized('missing API key: send Authorization: Bearer <key>'));
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) return next(ApiError.unauthorized('malformed Authorization header: expected Bearer <key>'));
    try {
      const owner = await lookup(match[1]!);
      if (!owner) return next(ApiError.unauthorized('invalid API key'));
      request.owner = owner;
      next();
    } catch (error) {
      next(error);
    }
  };
}
