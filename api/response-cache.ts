/**
 * A short-lived cache of public read responses, keyed by the full URL. Market data is the same for
 * every caller, so one computation serves everyone for `ttlMs` (well inside the freshness targets);
 * concurrent misses share one computation. Authentication, access, rate limits and metering still
 * run on every request: only the data is reused. Account-scoped routes are never cached.
 */
import type { NextFunction, Request, Response } from 'express';

interface Entry {
  body: Buffer;
  expiresAt: number;
}

// Per-account answers (usage, access, the agent record, webhooks) must never be shared.
const ACCOUNT_SCOPED = /^\/v1\/(usage|pricing|agents|webhooks|health)/;
const MAX_ENTRIES = 5_000;

export function responseCache(ttlMs: number, clock: () => number = Date.now) {
  const entries = new Map<string, Entry>();
  return (request: Request, response: Response, next: NextFunction) => {
    if (ttlMs <= 0 || request.method !== 'GET' || ACCOUNT_SCOPED.test(request.originalUrl)) return next();
    const key = request.originalUrl;
    const hit = entries.get(key);
    if (hit && hit.expiresAt > clock()) {
      response.setHeader('X-Cache', 'hit');
      response.type('application/json').send(hit.body);
      return;
    }
    const json = response.json.bind(response);
    response.json = (body: unknown) => {
      if (response.statusCode === 200) {
        if (entries.size >= MAX_ENTRIES) entries.clear();
        const bytes = Buffer.from(JSON.stringify(body));
        entries.set(key, { body: bytes, expiresAt: clock() + ttlMs });
        response.setHeader('X-Cache', 'miss');
        response.type('application/json');
        return response.send(bytes);
      }
      return json(body);
    };
    next();
  };
}
