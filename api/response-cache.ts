/**
 * A short-lived cache of shared read responses. Market data is the same for every caller, so one
 * computation serves everyone for `ttlMs` (well inside the freshness targets). Only operations the
 * API document marks `x-cache: shared` are cached (the operation is found the way Express routes the
 * URL, so no spelling of a private route can reach the cache). Hits skip request validation and the
 * query (a URL that produced a 200 validates the same way again) but never authentication, access,
 * rate limits or metering, which run on every request with the operation's rules stored alongside.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { operationOf, type AccessCheck, type OperationAccess } from './access.js';
import { credentialOf, type OwnerCache } from './auth.js';
import { failure } from './envelope.js';
import { ApiError } from './errors.js';
import type { OperationIndex } from './operations.js';

interface Entry {
  body: Buffer;
  operation: OperationAccess;
  expiresAt: number;
}

const MAX_ENTRIES = 5_000;

export class ReadCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    readonly ttlMs: number,
    private readonly operations: OperationIndex,
    private readonly clock: () => number = Date.now,
  ) {}

  cacheable(method: string | undefined, url: string): boolean {
    return this.ttlMs > 0 && method === 'GET' && this.operations.match(method, url)?.operation.cache === 'shared';
  }

  get(url: string): Entry | undefined {
    const entry = this.entries.get(url);
    return entry && entry.expiresAt > this.clock() ? entry : undefined;
  }

  set(url: string, body: Buffer, operation: OperationAccess): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(url, { body, operation, expiresAt: this.clock() + this.ttlMs });
  }
}

function send(response: ServerResponse, body: Buffer): void {
  response.setHeader('X-Cache', 'hit');
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  response.setHeader('Content-Length', body.length);
  response.end(body);
}

/** Express middleware: serves hits, and stores the 200 responses of misses. */
export function responseCache(cache: ReadCache, check: AccessCheck) {
  return async (request: Request, response: Response, next: NextFunction) => {
    if (!request.owner || !cache.cacheable(request.method, request.originalUrl)) return next();
    const hit = cache.get(request.originalUrl);
    if (hit) {
      try {
        await check(request, response, hit.operation);
      } catch (error) {
        return next(error);
      }
      return send(response, hit.body);
    }
    const json = response.json.bind(response);
    response.json = (body: unknown) => {
      const operation = operationOf(request);
      if (response.statusCode !== 200 || !operation) return json(body);
      const bytes = Buffer.from(JSON.stringify(body));
      cache.set(request.originalUrl, bytes, { 'x-access': operation['x-access'], 'x-metered': operation['x-metered'] });
      response.setHeader('X-Cache', 'miss');
      response.type('application/json');
      return response.send(bytes);
    };
    next();
  };
}

/**
 * The same hit path on bare node:http, ahead of Express: a cached URL requested with a key whose owner
 * is cached is answered without entering the framework. Returns false when it does not apply, and
 * the request goes through Express as usual (which will also answer it from the cache when it can).
 */
export function fastCachedReads(cache: ReadCache, owners: OwnerCache, check: AccessCheck) {
  return (request: IncomingMessage, response: ServerResponse): boolean => {
    const url = request.url ?? '';
    if (!cache.cacheable(request.method, url)) return false;
    const hit = cache.get(url);
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
      (error: unknown) => {
        const apiError = error instanceof ApiError ? error : new ApiError(500, 'INTERNAL_ERROR', 'internal error');
        response.statusCode = apiError.status;
        response.setHeader('Content-Type', 'application/json; charset=utf-8');
        response.end(JSON.stringify(failure(apiError.code, apiError.message)));
      },
    );
    return true;
  };
}
