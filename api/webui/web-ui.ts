/**
 * The developer web UI under /app (docs/WEBUI.md): one HTML shell for every /app/... page (the
 * client routes) and the bundle's assets from memory. The UI holds no data of its own and reaches
 * nothing but /v1, with the session cookie, under the same access rules as any client.
 *
 * Headers: a strict Content-Security-Policy (scripts, styles and connections from this origin only,
 * no inline script, no framing), no-store on the shell, immutable caching on hashed assets.
 */
import { Router, type Request, type Response } from 'express';
import type { Logger } from '../../services/logger.js';
import { authenticateKey, type AuthThrottle, clientAddress, type OwnerCache } from '../auth.js';
import { clearSessionCookie, cookieValue, SESSION_COOKIE } from '../session.js';
import { buildBundle, type Bundle } from './bundle.js';

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export interface ShellAuth {
  owners: OwnerCache;
  /** The /v1 failed-authentication throttle: a made-up cookie costs the same here as a made-up bearer key. */
  throttle: AuthThrottle;
  trustProxyHops: number;
}

export class WebUi {
  private built: Promise<Bundle> | undefined;

  constructor(private readonly logger: Logger) {}

  /** Builds the bundle once (again after a failure); the server calls it at start so the first visit is fast. */
  prepare(): Promise<Bundle> {
    if (!this.built) {
      this.built = buildBundle().then(
        (bundle) => {
          this.logger.info({ ms: bundle.builtInMs, script: bundle.entry.script }, 'web ui bundle built');
          return bundle;
        },
        (error: unknown) => {
          this.built = undefined;
          throw error;
        },
      );
    }
    return this.built;
  }

  routes(auth: ShellAuth): Router {
    const router = Router();
    router.get('/app/assets/:file', async (request, response) => {
      const bundle = await this.bundleOr503(response);
      if (!bundle) return;
      const asset = bundle.assets.get(String(request.params.file));
      if (!asset) {
        response.status(404).type('text/plain').send('no such asset');
        return;
      }
      const gzip = /\bgzip\b/.test(request.get('accept-encoding') ?? '');
      response.setHeader('Content-Type', asset.type);
      response.setHeader(
        'Cache-Control',
        request.params.file === 'favicon.svg' ? 'public, max-age=86400' : 'public, max-age=31536000, immutable',
      );
      response.setHeader('Vary', 'Accept-Encoding');
      response.setHeader('X-Content-Type-Options', 'nosniff');
      if (gzip) response.setHeader('Content-Encoding', 'gzip');
      response.end(gzip ? asset.gzip : asset.body);
    });
    router.get(/^\/app(\/.*)?$/, async (request, response) => {
      const bundle = await this.bundleOr503(response);
      if (!bundle) return;
      const signedIn = await this.sessionState(request, response, auth);
      response.setHeader('Content-Security-Policy', CSP);
      response.setHeader('Cache-Control', 'no-store');
      response.setHeader('X-Content-Type-Options', 'nosniff');
      response.setHeader('Referrer-Policy', 'no-referrer');
      response.type('html').send(shell(bundle, signedIn));
    });
    return router;
  }

  /**
   * Whether the request carries a live session cookie, so the page knows without a request that
   * would fail; a cookie whose key no longer works is cleared here. Unknown keys count as failed
   * authentications of the address, like a wrong bearer key; a valid key is verified whatever the
   * address's failures.
   */
  private async sessionState(request: Request, response: Response, auth: ShellAuth): Promise<boolean> {
    const apiKey = cookieValue(request.get('cookie'), SESSION_COOKIE);
    if (!apiKey) return false;
    const verified = await authenticateKey(auth.owners, auth.throttle, clientAddress(request, auth.trustProxyHops), apiKey);
    if ('owner' in verified) return true;
    clearSessionCookie(request, response);
    return false;
  }

  private async bundleOr503(response: Response): Promise<Bundle | null> {
    try {
      return await this.prepare();
    } catch (error) {
      this.logger.error({ err: error }, 'web ui bundle failed to build');
      response.status(503).type('text/plain').send('The web UI could not be built; see the service log.');
      return null;
    }
  }
}

function shell(bundle: Bundle, signedIn: boolean): string {
  const preload = bundle.entry.preload.map((name) => `<link rel="modulepreload" href="/app/assets/${name}">`).join('');
  const stylesheet = bundle.entry.stylesheet ? `<link rel="stylesheet" href="/app/assets/${bundle.entry.stylesheet}">` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="tapeline-session" content="${signedIn ? 'active' : 'none'}">
<title>tapeline</title>
<link rel="icon" href="/app/assets/favicon.svg" type="image/svg+xml">
${stylesheet}${preload}
<script type="module" src="/app/assets/${bundle.entry.script}"></script>
</head>
<body>
<div id="app"><noscript>The tapeline dashboard needs JavaScript. Every figure it shows is also available from the API under /v1 (see /api/docs).</noscript></div>
</body>
</html>
`;
}
