/**
 * POST /developers/register: self-serve developer sign-up (no key needed). A Tier 1 developer account
 * and its first key, shown once in the response; no mail is sent, so nothing waits on an inbox.
 * Sign-ups count against the same per-address and service-wide hourly limits as agent registration
 * (one RegistrationLimits, one pair of counters): either way an account with its own quota is
 * created, so a second door must not double what one address can take.
 */
import { Router } from 'express';
import type { RegistrationLimits } from '../../services/access/registration-limits.js';
import type { Accounts } from '../../services/control/accounts.js';
import { clientAddress } from '../auth.js';
import { success } from '../../services/http/envelope.js';
import { ApiError } from '../../services/http/errors.js';
import { displayName } from './agents.js';

// A pragmatic address shape (one @, a dot in the domain, no spaces): the address is never mailed,
// so anything stricter would only refuse real addresses.
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;

export interface DeveloperRouteOptions {
  accounts: Accounts;
  /** Per-address and total registration limits, shared with agent registration (none: unlimited). */
  registrations?: RegistrationLimits;
  trustProxyHops: number;
}

export function developerRoutes({ accounts, registrations, trustProxyHops }: DeveloperRouteOptions): Router {
  const router = Router();
  router.post('/developers/register', async (request, response) => {
    const name = displayName(request.body?.name);
    const email = typeof request.body?.email === 'string' ? request.body.email.trim() : '';
    if (!EMAIL.test(email) || email.length > 254) throw ApiError.badRequest('email: must be an email address (name@example.com)');
    // Counted only once the body is valid, like agent registration: a typo does not use up the hour.
    const refusal = await registrations?.admit(clientAddress(request, trustProxyHops));
    if (refusal) throw ApiError.rateLimited(refusal.reason, refusal.retryAfterSeconds);
    const issued = await accounts.registerDeveloper(name, email.toLowerCase());
    response.status(201).json(
      success({
        account_id: issued.account_id,
        name: issued.name,
        email: issued.email!,
        api_key: issued.api_key,
        tier: '1' as const,
        created_at: issued.created_at,
      }),
    );
  });
  return router;
}
