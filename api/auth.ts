/**
 * Key authentication: every /v1 route except the keyless ones (registration, sign-up, session
 * creation) needs a live key, as a bearer header or the web UI's session cookie (api/session.ts).
 * - Owners of keys are cached for a short time (bounded LRU), and so are keys that matched nothing
 *   (a negative cache): a made-up key with a valid checksum costs one database lookup, not one per
 *   request.
 * - Failed authentications are counted per client address and in total per minute; past either
 *   limit, requests whose key is not already known get 429 before any lookup, so guessing keys or
 *   flooding with bad ones is cheap to refuse. Known keys keep working throughout.
 */
import type { NextFunction, Request, Response } from 'express';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { WindowCounter } from '../services/access/window-counter.js';
import type { Accounts, KeyOwner } from '../services/control/accounts.js';
import { BoundedLru } from '../services/shared/lru.js';
import { runInRequestContext } from '../services/shared/request-context.js';
import { ApiError } from './errors.js';
import { cookieRequestProblem, cookieValue, SESSION_COOKIE } from './session.js';

declare module 'express-serve-static-core' {
  interface Request {
    owner?: KeyOwner;
    /** How the key came: the bearer header or the session cookie. */
    credential?: Credential;
  }
}

export interface OwnerCacheOptions {
  ttlMs: number;
  negativeTtlMs: number;
  /** Live owners remembered (default 10,000). */
  maxKeys?: number;
  /** Unknown keys remembered (default 50,000; each about 150 bytes). */
  maxUnknownKeys?: number;
  clock?: () => number;
}

/** Key owners looked up recently, and keys known to match nothing; revocations show after at most `ttlMs`. */
export class OwnerCache {
  private readonly known: BoundedLru<string, KeyOwner>;
  private readonly unknown: BoundedLru<string, true>;
  private lookups = 0;

  constructor(
    private readonly accounts: Accounts,
    private readonly options: OwnerCacheOptions,
  ) {
    this.known = new BoundedLru({ maxEntries: options.maxKeys ?? 10_000, clock: options.clock });
    this.unknown = new BoundedLru({ maxEntries: options.maxUnknownKeys ?? 50_000, clock: options.clock });
  }

  /** The cached owner of a key, without any lookup (the fast read path). */
  peek(apiKey: string): KeyOwner | undefined {
    return this.known.get(apiKey);
  }

  /** Database lookups made so far (each cache miss of a well-formed key). */
  get lookupCount(): number {
    return this.lookups;
  }

  async lookup(apiKey: string): Promise<KeyOwner | null> {
    const cached = this.known.get(apiKey);
    if (cached) return cached;
    if (this.unknown.get(apiKey)) return null;
    const wellFormed = this.accounts.isWellFormed(apiKey);
    if (wellFormed) this.lookups++;
    const owner = wellFormed ? await this.accounts.authenticate(apiKey) : null;
    // A rotated key in its grace period is remembered no longer than it lives.
    const ttlMs = Math.min(this.options.ttlMs, (owner?.expires_at_ms ?? Number.POSITIVE_INFINITY) - (this.options.clock ?? Date.now)());
    if (owner && ttlMs > 0) this.known.set(apiKey, owner, ttlMs);
    // Malformed keys are refused by their checksum alone; only lookups that found nothing are remembered.
    if (!owner && wellFormed && this.options.negativeTtlMs > 0) this.unknown.set(apiKey, true, this.options.negativeTtlMs);
    return owner;
  }

  /** Forgets every cached lookup of these keys (after a revocation in this process). */
  forgetKeys(keyIds: readonly string[]): void {
    const ids = new Set(keyIds);
    this.known.deleteWhere((owner) => ids.has(owner.key_id));
  }
}

export interface AuthThrottleOptions {
  failuresPerIpPerMinute: number;
  /** All failures per minute across clients (default 20 x the per-address limit). */
  failuresPerMinute?: number;
  clock?: () => number;
}

/** Per-address and total limits on failed authentications. */
export class AuthThrottle {
  private readonly perIp: WindowCounter;
  private readonly total: WindowCounter;
  private readonly totalLimit: number;

  constructor(private readonly options: AuthThrottleOptions) {
    this.perIp = new WindowCounter(60_000, 100_000, options.clock);
    this.total = new WindowCounter(60_000, 1, options.clock);
    this.totalLimit = options.failuresPerMinute ?? options.failuresPerIpPerMinute * 20;
  }

  /** The refusal for an address whose failures (or everyone's) are over the limit, else null. */
  refusal(ip: string): ApiError | null {
    if (this.perIp.count(ip) >= this.options.failuresPerIpPerMinute) {
      return ApiError.rateLimited(
        `too many failed authentications from this address (${this.options.failuresPerIpPerMinute} per minute); check the API key`,
        this.perIp.retryAfterSeconds(ip),
      );
    }
    if (this.total.count('all') >= this.totalLimit) {
      return ApiError.rateLimited('too many failed authentications; retry shortly', this.total.retryAfterSeconds('all'));
    }
    return null;
  }

  failed(ip: string): void {
    this.perIp.add(ip);
    this.total.add('all');
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

/**
 * The client's address: the socket's peer, or with `trustedHops` proxies in front, the address the
 * outermost trusted proxy saw (X-Forwarded-For read from the right, never a client-supplied left end).
 */
export function clientAddress(request: IncomingMessage, trustedHops: number): string {
  const peer = request.socket.remoteAddress ?? 'unknown';
  if (trustedHops <= 0) return peer;
  const header = request.headers['x-forwarded-for'];
  const chain = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  return chain[chain.length - trustedHops] ?? chain[0] ?? peer;
}

export function requireApiKey(owners: OwnerCache, throttle: AuthThrottle, trustedHops: number) {
  return async (request: Request, _response: Response, next: NextFunction) => {
    const credential = credentialOf(request.headers);
    const apiKey = credential && credential !== 'malformed' ? credential.apiKey : null;
    const known = apiKey ? owners.peek(apiKey) : undefined;
    const ip = clientAddress(request, trustedHops);
    if (!known) {
      const refusal = throttle.refusal(ip);
      if (refusal) return next(refusal);
    }
    if (!credential || credential === 'malformed') {
      throttle.failed(ip);
      return next(
        ApiError.unauthorized(
          credential ? 'malformed Authorization header: expected Bearer <key>' : 'missing API key: send Authorization: Bearer <key>',
        ),
      );
    }
    try {
      const owner = known ?? (await owners.lookup(credential.apiKey));
      if (!owner) {
        throttle.failed(ip);
        return next(ApiError.unauthorized('invalid API key'));
      }
      if (credential.via === 'cookie') {
        const problem = cookieRequestProblem(request, credential.apiKey);
        if (problem) return next(new ApiError(403, 'FORBIDDEN', problem));
      }
      request.owner = owner;
      request.credential = credential;
      // Everything after this runs on behalf of the account (the analytics store queues its queries in the account's lane).
      runInRequestContext({ lane: `account:${owner.account_id}` }, () => next());
    } catch (error) {
      next(error);
    }
  };
}
