/**
 * /session: turns an API key into the web UI's session cookie (POST), says who the session is and
 * hands out its CSRF token (GET), and ends it (DELETE). See api/session.ts for the cookie's rules.
 */
import { Router, type Request } from 'express';
import type { Meter } from '../../services/access/meter.js';
import { tierName, type TierThresholds } from '../../services/access/tiers.js';
import type { Accounts, KeyOwner } from '../../services/control/accounts.js';
import { apiKeyHint } from '../../services/control/api-keys.js';
import { authenticateKey, type AuthThrottle, clientAddress, type OwnerCache } from '../auth.js';
import { success } from '../../services/http/envelope.js';
import { ApiError } from '../../services/http/errors.js';
import { clearSessionCookie, crossSiteProblem, csrfTokenFor, setSessionCookie } from '../session.js';

export interface SessionRouteOptions {
  accounts: Accounts;
  owners: OwnerCache;
  meter: Meter;
  thresholds: TierThresholds;
  maxAgeSeconds: number;
  /** Failed authentications per address: a wrong key here counts like a wrong bearer key. */
  throttle: AuthThrottle;
  trustProxyHops: number;
}

export function sessionRoutes(options: SessionRouteOptions): Router {
  const router = Router();

  const describe = async (owner: KeyOwner, apiKey: string, via: 'bearer' | 'cookie') => {
    const record = await options.accounts.record(owner.account_id);
    if (!record) throw ApiError.unauthorized('invalid API key');
    const standing = await options.meter.standing(owner.account_id);
    return {
      account_id: record.account_id,
      name: record.name,
      kind: record.kind,
      email: record.email,
      tier: tierName(standing, options.thresholds),
      key_hint: apiKeyHint(apiKey),
      authenticated_by: via,
      csrf_token: csrfTokenFor(apiKey),
    };
  };

  // Keyless (the key is in the body); refused from other sites, like every cookie request.
  router.post('/session', async (request: Request, response) => {
    const apiKey = String(request.body?.api_key ?? '');
    // Logging a victim's browser into someone else's account is a CSRF attack too.
    const problem = crossSiteProblem(request);
    if (problem) throw new ApiError(403, 'FORBIDDEN', problem);
    // This keyless route takes a key, so guessing keys through it is limited like the bearer header.
    const verified = await authenticateKey(options.owners, options.throttle, clientAddress(request, options.trustProxyHops), apiKey);
    if ('error' in verified) throw verified.error;
    const { owner } = verified;
    setSessionCookie(request, response, apiKey, options.maxAgeSeconds);
    response.status(201).json(success({ ...(await describe(owner, apiKey, 'cookie')), expires_in_seconds: options.maxAgeSeconds }));
  });

  router.get('/session', async (request, response) => {
    const credential = request.credential!;
    response.json(success(await describe(request.owner!, credential.apiKey, credential.via)));
  });

  router.delete('/session', (request, response) => {
    clearSessionCookie(request, response);
    response.json(success({ signed_out: true as const }));
  });

  return router;
}
