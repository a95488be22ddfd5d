/**
 * A short-lived cache of public read responses, keyed by the full URL. Market data is the same for
 * every caller, so one computation serves everyone for `ttlMs` (well inside the freshness targets).
 * It sits before request validation: a URL that produced a 200 validates the same way again, so a hit
 * skips validation and the query, but never authentication, access, rate limits or metering, which
 * run on every request with the operation's rules stored alongside the body.
 * Account-scoped routes are never cached.
 */
import type { NextFunction, Request, Response } from 'express';
import { operationOf, type AccessCheck, type OperationAccess } from './access.js';

interface Entry {
  body: Buffer;
  operation: OperationAccess;
  expiresAt: number;
}

// Per-account answers (usage, access, the agent record, webhooks, health) must never be shared.
const ACCOUNT_SCOPED = /^\/v1\/(usage|pricing|agents|webhooks|health)/;
const MAX_ENTRIES = 5_000;

export function responseCache(ttlMs: number, check: AccessCheck, clock: () => number = Date.now) {
  const entries = new Map<string, Entry>();
  return async (request: Request, response: Response, next: NextFunction) => {
    if (ttlMs <= 0 || request.method !== 'GET' || !request.owner || ACCOUNT_SCOPED.test(request.originalUrl)) return next();
    const key = request.originalUrl;
    const hit = entries.get(key);
    if (hit && hit.expiresAt > clock()) {
      try {
        await check(request, response, hit.operation);
      } catch (error) {
        return next(error);
      }
      response.setHeader('X-Cache', 'hit');
      response.type('application/json').send(hit.body);
      return;
    }
    const json = response.json.bind(response);
    response.json = (body: unknown) => {
      const operation = operationOf(request);
      if (response.statusCode !== 200 || !operation) return json(body);
      if (entries.size >= MAX_ENTRIES) entries.clear();
      const bytes = Buffer.from(JSON.stringify(body));
      entries.set(key, { body: bytes, operation: { 'x-access': operation['x-access'], 'x-metered': operation['x-metered'] }, expiresAt: clock() + ttlMs });
      response.setHeader('X-Cache', 'miss');
      response.type('application/json');
      return response.send(bytes);
    };
    next();
  };
}
