/** POST /agents/register: self-serve sandbox agents, no key needed. */
import { Router } from 'express';
import type { Accounts } from '../../services/control/accounts.js';
import { success } from '../envelope.js';
import { ApiError } from '../errors.js';

export function agentRoutes(accounts: Accounts): Router {
  const router = Router();
  router.post('/agents/register', async (request, response) => {
    const name = typeof request.body?.name === 'string' ? request.body.name.trim() : '';
    if (!name) throw ApiError.badRequest('name: must be a non-empty string');
    const issued = await accounts.registerAgent(name);
    response.status(201).json(
      success({ agent_id: issued.account_id, name: issued.name, api_key: issued.api_key, tier: issued.tier, created_at: issued.created_at }),
    );
  });
  return router;
}
