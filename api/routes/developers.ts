/**
 * POST /developers/register: self-serve developer sign-up (no key needed). A Tier 1 developer account
 * and its first key, shown once in the response; no mail is sent, so nothing waits on an inbox.
 */
import { Router } from 'express';
import type { Accounts } from '../../services/control/accounts.js';
import { success } from '../envelope.js';
import { ApiError } from '../errors.js';
import { displayName } from './agents.js';

// A pragmatic address shape (one @, a dot in the domain, no spaces): the address is never mailed,
// so anything stricter would only refuse real addresses.
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;

export function developerRoutes(accounts: Accounts): Router {
  const router = Router();
  router.post('/developers/register', async (request, response) => {
    const name = displayName(request.body?.name);
    const email = typeof request.body?.email === 'string' ? request.body.email.trim() : '';
    if (!EMAIL.test(email) || email.length > 254) throw ApiError.badRequest('email: must be an email address (name@example.com)');
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
