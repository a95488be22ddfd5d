/** POST /agents/register (self-serve sandbox agents, no key needed) and GET /agents/me. */
import { Router } from 'express';
import type { Meter } from '../../services/access/meter.js';
import type { RegistrationLimits } from '../../services/access/registration-limits.js';
import { tierName, type TierThresholds } from '../../services/access/tiers.js';
import type { Accounts } from '../../services/control/accounts.js';
import { clientAddress } from '../auth.js';
import { success } from '../envelope.js';
import { ApiError } from '../errors.js';

export interface AgentRouteOptions {
  accounts: Accounts;
  meter: Meter;
  thresholds: TierThresholds;
  /** Per-address and total registration limits (none: unlimited). */
  registrations?: RegistrationLimits;
  trustProxyHops: number;
}

export function agentRoutes({ accounts, meter, thresholds, registrations, trustProxyHops }: AgentRouteOptions): Router {
  const router = Router();
  router.post('/agents/register', async (request, response) => {
    const name = typeof request.body?.name === 'string' ? request.body.name.trim() : '';
    if (!name) throw ApiError.badRequest('name: must be a non-empty string');
    // PostgreSQL text cannot hold NUL, and control characters have no place in a display name.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
    if (/[\u0000-\u001f\u007f]/.test(name)) throw ApiError.badRequest('name: must not contain control characters');
    const refusal = await registrations?.admit(clientAddress(request, trustProxyHops));
    if (refusal) throw ApiError.rateLimited(refusal.reason, refusal.retryAfterSeconds);
    const issued = await accounts.registerAgent(name);
    response.status(201).json(
      success({
        agent_id: issued.account_id,
        name: issued.name,
        api_key: issued.api_key,
        tier: 'sandbox',
        created_at: issued.created_at,
      }),
    );
  });
  router.get('/agents/me', async (request, response) => {
    const record = await accounts.record(request.owner!.account_id);
    if (!record) throw ApiError.notFound('agent not found');
    const standing = await meter.standing(record.account_id);
    response.json(
      success({
        agent_id: record.account_id,
        name: record.name,
        tier: tierName(standing, thresholds),
        token_balance: standing.tokenBalance,
        credits: standing.credits,
        created_at: record.created_at,
      }),
    );
  });
  return router;
}
