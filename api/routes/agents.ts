/** POST /agents/register (self-serve sandbox agents, no key needed) and GET /agents/me. */
import { Router } from 'express';
import type { Meter } from '../../services/access/meter.js';
import { tierName, type TierThresholds } from '../../services/access/tiers.js';
import type { Accounts } from '../../services/control/accounts.js';
import { success } from '../envelope.js';
import { ApiError } from '../errors.js';

/** A display name from a request body: non-empty once trimmed, without control characters. */
export function displayName(value: unknown): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (!name) throw ApiError.badRequest('name: must be a non-empty string');
  // PostgreSQL text cannot hold NUL, and control characters have no place in a display name.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
  if (/[\u0000-\u001f\u007f]/.test(name)) throw ApiError.badRequest('name: must not contain control characters');
  return name;
}

export function agentRoutes(accounts: Accounts, meter: Meter, thresholds: TierThresholds): Router {
  const router = Router();
  router.post('/agents/register', async (request, response) => {
    const name = displayName(request.body?.name);
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
