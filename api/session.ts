/**
 * Browser sessions: the API key in a cookie, as an alternative to the bearer header, so the web UI
 * (docs/WEBUI.md) calls the same /v1 operations with the same access rules as any client.
 *
 * - The cookie is HttpOnly (page scripts never see the key), SameSite=Strict (other sites' pages
 *   cannot make the browser send it) and Secure on HTTPS; it lives for `maxAgeSeconds`.
 * - State-changing requests authenticated by the cookie also need `X-CSRF-Token`: an HMAC of the
 *   key, so it is stateless (any API process can check it) and only someone who can read a
 *   same-origin response (GET /v1/session) learns it. A custom header also forces a CORS preflight,
 *   which this API never grants. A cross-site Origin header is refused outright.
 * - A bearer header wins over the cookie and needs no CSRF token (browsers never add it on their own).
 */
import crypto from 'node:crypto';
import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'tapeline_session';
const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The value of one cookie in a Cookie header, or null. */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || null;
  }
  return null;
}

/** The CSRF token of a session: HMAC-SHA256(key = the API key, "tapeline csrf v1"), base64url. */
export function csrfTokenFor(apiKey: string): string {
  return crypto.createHmac('sha256', apiKey).update('tapeline csrf v1').digest('base64url');
}

/**
 * Why a cookie-authenticated request must be refused (null when it may go ahead): a cross-site
 * Origin on any request, and a missing or wrong X-CSRF-Token on a state-changing one.
 */
export function cookieRequestProblem(request: Request, apiKey: string): string | null {
  const crossSite = crossSiteProblem(request);
  if (crossSite) return crossSite;
  if (SAFE_METHODS.has(request.method)) return null;
  const sent = request.get(CSRF_HEADER) ?? '';
  const expected = csrfTokenFor(apiKey);
  const matches = sent.length === expected.length && crypto.timingSafeEqual(Buffer.from(sent), Buffer.from(expected));
  return matches
    ? null
    : `missing or wrong ${CSRF_HEADER} header: send the csrf_token from GET /v1/session with every state-changing request`;
}

/** A request whose Origin header names another site (browsers send it on cross-site and on unsafe requests). */
export function crossSiteProblem(request: Request): string | null {
  const origin = request.get('origin');
  return origin !== undefined && !sameOrigin(origin, request) ? `cross-site request from ${origin.slice(0, 100)} refused` : null;
}

function sameOrigin(origin: string, request: Request): boolean {
  try {
    return new URL(origin).host === request.get('host');
  } catch {
    return false;
  }
}

export function setSessionCookie(request: Request, response: Response, apiKey: string, maxAgeSeconds: number): void {
  response.append('Set-Cookie', cookieString(request, apiKey, maxAgeSeconds));
}

export function clearSessionCookie(request: Request, response: Response): void {
  response.append('Set-Cookie', cookieString(request, '', 0));
}

function cookieString(request: Request, value: string, maxAgeSeconds: number): string {
  // Secure only over HTTPS: on plain-HTTP loopback a Secure cookie would never be sent back.
  const secure = request.secure ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure}`;
}
