/**
 * A short-lived cache of shared read responses. Market data is the same for every caller, so one
 * computation serves everyone for `ttlMs` (well inside the freshness targets).
 * - What may be cached comes from the matched operation: only operations the API document marks
 *   `x-cache: shared`, found the way Express routes the URL (case-insensitive), so no spelling of a
 *   private route (`/v1/USAGE`) can reach the cache.
 * - The key is the operation plus its path parameters and its query canonicalised by the declared
 *   parameter types (decoded, numbers in one spelling, sorted), so `?status=al%6C&limit=500` and
 *   `?limit=0500&status=all` share one entry. A query with an undeclared or repeated parameter, or a
 *   value its type cannot hold, has no key: it is validated (and refused) as usual, never stored.
 *   Only 200 responses, which passed validation, are stored.
 * - The cache is a bounded LRU (entries and bytes; expired entries swept), so no stream of distinct
 *   URLs grows memory; concurrent misses of one key wait for the first instead of all querying.
 * Hits skip request validation and the query but never authentication, access, rate limits or
 * metering, which run on every request with the operation's rules stored alongside.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import querystring from 'node:querystring';
import type { NextFunction, Request, Response } from 'express';
import { BoundedLru, type LruStats } from '../services/shared/lru.js';
import type { AccessCheck, OperationAccess } from './access.js';
import { credentialOf, type OwnerCache } from './auth.js';
import { sendError } from './error-renderer.js';
import type { MatchedOperation, Operation, OperationIndex } from './operations.js';

interface Entry {
  body: Buffer;
  operation: OperationAccess;
}

export interface ReadCacheOptions {
  ttlMs: number;
  maxEntries: number;
  maxBytes: number;
  clock?: () => number;
}

/** Numbers as the validator coerces them (JavaScript's Number), so every spelling of one value agrees. */
const NUMERIC = /^\s*-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

export class ReadCache {
  private readonly entries: BoundedLru<string, Entry>;
  /** Misses being computed: later requests for the same key wait for the first. */
  private readonly pending = new Map<string, Promise<void>>();

  constructor(
    private readonly options: ReadCacheOptions,
    private readonly operations: OperationIndex,
  ) {
    this.entries = new BoundedLru({
      maxEntries: options.maxEntries,
      maxBytes: options.maxBytes,
      sweepIntervalMs: Math.max(options.ttlMs, 100),
      clock: options.clock,
    });
  }

  stats(): LruStats {
    return this.entries.stats();
  }

  /** The cache key of a shared read, or null when the request is not cacheable. */
  keyOf(method: string | undefined, url: string): string | null {
    if (this.options.ttlMs <= 0 || method !== 'GET') return null;
    const matched = this.operations.match(method, url);
    if (matched?.operation.cache !== 'shared') return null;
    const query = canonicalQuery(matched.operation, url);
    if (query === null) return null;
    const params = matched.params.map((value) => safeDecode(value));
    if (params.some((value) => value === null)) return null;
    return `${matched.operation.method} ${matched.operation.path}|${params.join('|')}|${query}`;
  }

  get(key: string): Entry | undefined {
    return this.entries.get(key);
  }

  set(key: string, body: Buffer, operation: OperationAccess): void {
    this.entries.set(key, { body, operation }, this.options.ttlMs, body.length + key.length);
  }

  /** Runs a miss for `key`, or waits for the one already running; resolves when it finished. */
  pendingFor(key: string): Promise<void> | undefined {
    return this.pending.get(key);
  }

  begin(key: string): () => void {
    let done!: () => void;
    this.pending.set(
      key,
      new Promise<void>((resolve) => {
        done = resolve;
      }),
    );
    return () => {
      this.pending.delete(key);
      done();
    };
  }

  matched(method: string | undefined, url: string): MatchedOperation | undefined {
    return this.operations.match(method, url);
  }
}

/** The query's declared parameters, decoded as Express decodes them and coerced by type, sorted; null when not canonical. */
function canonicalQuery(operation: Operation, url: string): string | null {
  const at = url.indexOf('?');
  if (at < 0) return '';
  // The same parser as Express's 'simple' query parser, so the values are the ones validation sees.
  const parsed = querystring.parse(url.slice(at + 1));
  const pairs: string[] = [];
  for (const [name, raw] of Object.entries(parsed)) {
    const type = operation.queryParameters.get(name);
    if (type === undefined || typeof raw !== 'string') return null;
    let value: string;
    if (type === 'integer' || type === 'number') {
      if (!NUMERIC.test(raw)) return null;
      value = String(Number(raw));
    } else if (type === 'boolean') {
      if (raw !== 'true' && raw !== 'false') return null;
      value = raw;
    } else value = raw;
    pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  }
  return pairs.sort().join('&');
}

function safeDecode(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

function send(response: ServerResponse, body: Buffer): void {
  response.setHeader('X-Cache', 'hit');
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  response.setHeader('Content-Length', body.length);
  response.end(body);
}

function accessOf(operation: Operation): OperationAccess {
  return { 'x-access': operation.access === 'public' ? 'any' : operation.access, 'x-metered': operation.metered };
}

/** Express middleware: serves hits, lets concurrent misses of one key wait for the first, stores 200s. */
export function responseCache(cache: ReadCache, check: AccessCheck) {
  return async (request: Request, response: Response, next: NextFunction) => {
    if (!request.owner) return next();
    const key = cache.keyOf(request.method, request.originalUrl);
    if (key === null) return next();
    const waitFor = cache.pendingFor(key);
    if (waitFor) await waitFor;
    const hit = cache.get(key);
    if (hit) {
      try {
        await check(request, response, hit.operation);
      } catch (error) {
        return next(error);
      }
      return send(response, hit.body);
    }
    const operation = cache.matched(request.method, request.originalUrl)!.operation;
    const finish = cache.begin(key);
    response.once('close', finish);
    const json = response.json.bind(response);
    response.json = (body: unknown) => {
      if (response.statusCode !== 200) return json(body);
      const bytes = Buffer.from(JSON.stringify(body));
      cache.set(key, bytes, accessOf(operation));
      finish();
      response.setHeader('X-Cache', 'miss');
      response.type('application/json');
      return response.send(bytes);
    };
    next();
  };
}

/**
 * The same hit path on bare node:http, ahead of Express: a cached key requested with a key whose owner
 * is cached is answered without entering the framework. Returns false when it does not apply, and
 * the request goes through Express as usual (which will also answer it from the cache when it can).
 */
export function fastCachedReads(cache: ReadCache, owners: OwnerCache, check: AccessCheck) {
  return (request: IncomingMessage, response: ServerResponse): boolean => {
    const key = cache.keyOf(request.method, request.url ?? '');
    if (key === null) return false;
    const hit = cache.get(key);
    if (!hit) return false;
    // A cookie-authenticated read goes through Express, which also checks its Origin.
    const credential = credentialOf(request.headers);
    if (!credential || credential === 'malformed' || credential.via !== 'bearer') return false;
    const owner = owners.peek(credential.apiKey);
    if (!owner) return false;
    const req = request as IncomingMessage & { owner?: typeof owner };
    req.owner = owner;
    check(req as unknown as Request, response as unknown as Response, hit.operation).then(
      () => send(response, hit.body),
      (error: unknown) => sendError(response, error, undefined, request.url ?? ''),
    );
    return true;
  };
}
