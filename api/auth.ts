/**
 * Key authentication: every /v1 route except the keyless ones (registration, sign-up, session
 * creation) needs a live key, as a bearer header or the web UI's session cookie (api/session.ts).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Accounts, KeyOwner } from '../services/control/accounts.js';
import { ApiError } from './errors.js';
import { cookieRequestProblem, cookieValue, SESSION_COOKIE } from './session.js';

declare module 'express-serve-static-core' {
  interface Request {
    owner?: KeyOwner;
    /** How the key came: the bearer header or the session cookie. */
    credential?: Credential;
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

export interface Credential {
  apiKey: string;
  via: 'bearer' | 'cookie';
}

/** The key a request presents: the bearer header first, else the session cookie. */
export function credentialOf(headers: IncomingHttpHeaders): Credential | 'malformed' | null {
  if (headers.authorization !== undefined) {
    const apiKey = bearerKey(headers.authorization);
    return apiKey ? { apiKey, via: 'bearer' } : 'malformed';
  }
  const apiKey = cookieValue(headers.cookie, SESSION_COOKIE);
  return apiKey ? { apiKey, via: 'cookie' } : null;
}

export function requireApiKey(owners: OwnerCache) {
  return async (request: Request, _response: Response, next: NextFunction) => {
    const credential = credentialOf(request.headers);
    if (!credential) return next(ApiError.unauthorized('missing API key: send Authorization: Bearer <key>'));
    if (credential === 'malformed') return next(ApiError.unauthorized('malformed Authorization header: expected Bearer <key>'));
    try {
      const owner = await owners.lookup(credential.apiKey);
      if (!owner) return next(ApiError.unauthorized('invalid API key'));
      if (credential.via === 'cookie') {
        const problem = cookieRequestProblem(request, credential.apiKey);
        if (problem) return next(new ApiError(403, 'FORBIDDEN', problem));
      }
      request.owner = owner;
      request.credential = credential;
      next();
    } catch (error) {
      next(error);
    }
  };
}
