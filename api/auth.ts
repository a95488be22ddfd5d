/**
 * Key authentication: every /v1 route except the keyless ones (registration, sign-up, session
 * creation) needs a live key, as a bearer header or the web UI's session cookie (api/session.ts).
 * - Owners of keys are cached for a short time (bounded LRU), and so are keys that matched nothing
 *   (a negative cache): a made-up key with a valid checksum costs one database lookup, not one per
 *   request.
 * - Failed authentications are counted per client address and per network (/24, /64) over a sliding
 *   minute (window-counter.ts: no burst across a minute's end gets twice the limit through); past
 *   either limit a failure is answered 429 with Retry-After instead of 401. A valid key is
 *   verified before any limit applies, so no one's failures can lock a valid key out; there is no
 *   service-wide failure limit for the same reason.
 */
import type { NextFunction, Request, Response } from 'express';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { canonicalAddress, networkPrefix } from '../services/access/network-prefix.js';
import { WindowCounter } from '../services/access/window-counter.js';
import type { Accounts, KeyOwner } from '../services/control/accounts.js';
import { BoundedLru } from '../services/shared/lru.js';
import { runInRequestContext } from '../services/shared/request-context.js';
import { ApiError } from '../services/http/errors.js';
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
  /** Lookups under way, by key: at most one per key at a time. */
  private readonly pending = new Map<string, Promise<KeyOwner | null>>();
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
    // A burst with a key not cached yet (1,000 WebSockets opened at once) waits for one lookup, not 1,000.
    const pending = this.pending.get(apiKey);
    if (pending) return pending;
    const lookup = this.lookUp(apiKey).finally(() => this.pending.delete(apiKey));
    this.pending.set(apiKey, lookup);
    return lookup;
  }

  private async lookUp(apiKey: string): Promise<KeyOwner | null> {
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
  /** Failures per minute from one network (/24 IPv4, /64 IPv6); default 10 x the per-address limit. */
  failuresPerPrefixPerMinute?: number;
  /** Addresses and networks tracked at once (bounded tables; an evicted one starts again from zero). */
  maxTracked?: number;
  clock?: () => number;
}

/**
 * Limits on failed authentications per client address and per network (so a host cannot escape the
 * limit by walking its /64 or its /24). There is no service-wide limit: it would let anyone lock
 * every key out by failing often enough. The limits only turn a failure into a 429; a valid key is
 * always verified first and served (authenticateKey).
 */
export class AuthThrottle {
  private readonly perIp: WindowCounter;
  private readonly perPrefix: WindowCounter;
  readonly prefixLimit: number;

  constructor(private readonly options: AuthThrottleOptions) {
    const maxTracked = options.maxTracked ?? 100_000;
    this.perIp = new WindowCounter(60_000, maxTracked, options.clock);
    this.perPrefix = new WindowCounter(60_000, maxTracked, options.clock);
    this.prefixLimit = options.failuresPerPrefixPerMinute ?? options.failuresPerIpPerMinute * 10;
  }

  /** The refusal for an address whose failures (or its network's) are over the limit, else null. */
  refusal(ip: string): ApiError | null {
    const address = canonicalAddress(ip);
    if (this.perIp.count(address) >= this.options.failuresPerIpPerMinute) {
      return ApiError.rateLimited(
        `too many failed authentications from this address (AUTH_FAILURES_PER_IP_PER_MINUTE: ${this.options.failuresPerIpPerMinute}); check the API key`,
        this.perIp.retryAfterSeconds(address, this.options.failuresPerIpPerMinute),
      );
    }
    const prefix = networkPrefix(ip);
    if (this.perPrefix.count(prefix) >= this.prefixLimit) {
      return ApiError.rateLimited(
        `too many failed authentications from this network (AUTH_FAILURES_PER_PREFIX_PER_MINUTE: ${this.prefixLimit} per /24 or /64); check the API key`,
        this.perPrefix.retryAfterSeconds(prefix, this.prefixLimit),
      );
    }
    return null;
  }

  /** Counts a failure; the answer is its refusal when the address or network is now over its limit, else the plain 401. */
  failed(ip: string, unauthorized: ApiError): ApiError {
    const refusal = this.refusal(ip);
    if (refusal) return refusal;
    this.perIp.add(canonicalAddress(ip));
    this.perPrefix.add(networkPrefix(ip));
    return unauthorized;
  }

  /** Addresses and networks tracked now (both tables are bounded by `maxTracked`). */
  get tracked(): { addresses: number; networks: number } {
    return { addresses: this.perIp.size, networks: this.perPrefix.size };
  }
}

/**
 * Verifies a key and answers its owner, or the error to send: 401 for a key that matches nothing,
 * 429 once the address or its network is over its failure limit. A valid key is verified before the
 * limits are consulted, so no one else's failures can refuse it; an unknown key costs one lookup and
 * is then remembered (OwnerCache's negative cache), so a flood of one made-up key costs nothing more.
 */
export async function authenticateKey(
  owners: OwnerCache,
  throttle: AuthThrottle,
  ip: string,
  apiKey: string,
): Promise<{ owner: KeyOwner } | { error: ApiError }> {
  const owner = owners.peek(apiKey) ?? (await owners.lookup(apiKey));
  if (owner) return { owner };
  return { error: throttle.failed(ip, ApiError.unauthorized('invalid API key')) };
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
  return async (request: Request, response: Response, next: NextFunction) => {
    const credential = credentialOf(request.headers);
    const ip = clientAddress(request, trustedHops);
    if (!credential || credential === 'malformed') {
      return next(
        throttle.failed(
          ip,
          ApiError.unauthorized(
            credential ? 'malformed Authorization header: expected Bearer <key>' : 'missing API key: send Authorization: Bearer <key>',
          ),
        ),
      );
    }
    try {
      const verified = await authenticateKey(owners, throttle, ip, credential.apiKey);
      if ('error' in verified) return next(verified.error);
      const { owner } = verified;
      if (credential.via === 'cookie') {
        const problem = cookieRequestProblem(request, credential.apiKey);
        if (problem) return next(new ApiError(403, 'FORBIDDEN', problem));
      }
      request.owner = owner;
      request.credential = credential;
      // Everything after this runs on behalf of the account (the analytics store queues its queries in the account's lane).
      // Once the answer is sent (or the caller has gone), a statement of this request still waiting
      // for the engine is for no one: a handler that failed on one of two statements run at once
      // left the other queued, holding a place in the account's lane (QUERY_QUEUE_PER_KEY) its
      // next calls were refused for.
      const answered = new AbortController();
      response.once('close', () => answered.abort());
      runInRequestContext({ lane: `account:${owner.account_id}`, signal: answered.signal }, () => next());
    } catch (error) {
      next(error);
    }
  };
}
