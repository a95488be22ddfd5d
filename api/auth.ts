/** Bearer-key authentication: every route except registration and the API document needs a live key. */
import type { NextFunction, Request, Response } from 'express';
import type { Accounts, KeyOwner } from '../services/control/accounts.js';
import { ApiError } from './errors.js';

declare module 'express-serve-static-core' {
  interface Request {
    owner?: KeyOwner;
  }
}

// Bounds the cache so a flood of distinct keys cannot grow memory without limit.
const MAX_CACHED_KEYS = 10_000;

/** Key owners looked up recently; revocations and new keys show after at most `ttlMs`. */
export class OwnerCache {
  private readonly entries = new Map<string, { owner: KeyOwner; expiresAt: number }>();

  constructor(
    private readonly accounts: Accounts,
    private readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The cached owner of a key, without any lookup (the fast read path). */
  peek(apiKey: string): KeyOwner | undefined {
    const cached = this.entries.get(apiKey);
    return cached && cached.expiresAt > this.clock() ? cached.owner : undefined;
  }

  async lookup(apiKey: string): Promise<KeyOwner | null> {
    const cached = this.peek(apiKey);
    if (cached) return cached;
    const owner = await this.accounts.authenticate(apiKey);
    if (owner && this.ttlMs > 0) {
      if (this.entries.size >= MAX_CACHED_KEYS) this.entries.clear();
      this.entries.set(apiKey, { owner, expiresAt: this.clock() + this.ttlMs });
    }
    return owner;
  }
}

export function bearerKey(header: string | undefined): string | null {
  return header ? (/^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? null) : null;
}

export function requireApiKey(owners: OwnerCache) {
  return async (request: Request, _response: Response, next: NextFunction) => {
    const header = request.get('authorization');
    if (!header) return next(ApiError.unauthorized('missing API key: send Authorization: Bearer <key>'));
    const apiKey = bearerKey(header);
    if (!apiKey) return next(ApiError.unauthorized('malformed Authorization header: expected Bearer <key>'));
    try {
      const owner = await owners.lookup(apiKey);
      if (!owner) return next(ApiError.unauthorized('invalid API key'));
      request.owner = owner;
      next();
    } catch (error) {
      next(error);
    }
  };
}
