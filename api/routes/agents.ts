/** POST /agents/register (self-serve sandbox agents, no key needed) and GET /agents/me. */
import { Router } from 'express';
import type { Meter } from '../../services/access/meter.js';
import type { RegistrationLimits } from '../../services/access/registration-limits.js';
import { tierName, type TierThresholds } from '../../services/access/tiers.js';
import { agentTopics, setAgentTopics } from '../../services/briefing/briefing-service.js';
import type { Accounts } from '../../services/control/accounts.js';
import type { ControlStore } from '../../services/ports/control-store.js';
import { clientAddress } from '../auth.js';
import { success } from '../../services/http/envelope.js';
import { ApiError } from '../../services/http/errors.js';

/** A display name from a request body: non-empty once trimmed, without control characters. */
export function displayName(value: unknown): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (!name) throw ApiError.badRequest('name: must be a non-empty string');
  // PostgreSQL text cannot hold NUL, and control characters have no place in a display name.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
  if (/[\u0000-\u001f\u007f]/.test(name)) throw ApiError.badRequest('name: must not contain control characters');
  return name;
}

export interface AgentRouteOptions {
  accounts: Accounts;
  meter: Meter;
  thresholds: TierThresholds;
  /** Per-address and total registration limits (none: unlimited). */
  registrations?: RegistrationLimits;
  trustProxyHops: number;
  /** Agent topics (briefing filters) are stored here. */
  control: ControlStore;
}

export function agentRoutes({ accounts, meter, thresholds, registrations, trustProxyHops, control }: AgentRouteOptions): Router {
  const router = Router();
  router.post('/agents/register', async (request, response) => {
    const name = displayName(request.body?.name);
    const refusal = await registrations?.admit(clientAddress(request, trustProxyHops));
    if (refusal) throw ApiError.rateLimited(refusal.reason, refusal.retryAfterSeconds);
    const issued = await accounts.registerAgent(name);
    // Topics narrow briefing signals (validated against the document: at most 20 names).
    const topics = Array.isArray(request.body?.topics)
      ? await setAgentTopics(control, issued.account_id, request.body.topics as string[])
      : [];
    response.status(201).json(
      success({
        agent_id: issued.account_id,
        name: issued.name,
        api_key: issued.api_key,
        topics,
        tier: 'sandbox',
        created_at: issued.created_at,
      }),
    );
  });
  const present = async (accountId: string) => {
    const record = await accounts.record(accountId);
    if (!record) throw ApiError.notFound('agent not found');
    const standing = await meter.standing(record.account_id);
    return {
      agent_id: record.account_id,
      name: record.name,
      topics: await agentTopics(control, record.account_id),
      tier: tierName(standing, thresholds),
      token_balance: standing.tokenBalance,
      credits: standing.credits,
      created_at: record.created_at,
    };
  };
  router.get('/agents/me', async (request, response) => {
    response.json(success(await present(request.owner!.account_id)));
  });
  router.patch('/agents/me', async (request, response) => {
    await setAgentTopics(control, request.owner!.account_id, (request.body?.topics ?? []) as string[]);
    response.json(success(await present(request.owner!.account_id)));
  });
  return router;
}
