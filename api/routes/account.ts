/** GET /usage (quota and usage) and GET /pricing/access (what this key has, and what it lacks). */
import { Router } from 'express';
import type { Meter } from '../../services/access/meter.js';
import { type Access, decide, type Standing, tierName, type TierName, type TierThresholds } from '../../services/access/tiers.js';
import { channelNamed } from '../../services/streams/channels.js';
import { success } from '../../services/http/envelope.js';
import type { Operation } from '../operations.js';

export interface AccountRouteOptions {
  meter: Meter;
  operations: Operation[];
  thresholds: TierThresholds;
  ratePerSecond: Record<TierName, number>;
  rateBurstFactor: number;
}

export function accountRoutes(options: AccountRouteOptions): Router {
  const router = Router();

  router.get('/usage', async (request, response) => {
    const usage = await options.meter.usage(request.owner!.account_id);
    const perSecond = options.ratePerSecond[usage.tier];
    response.json(
      success({ ...usage, rate_limit: { requests_per_second: perSecond, burst: Math.ceil(perSecond * options.rateBurstFactor) } }),
    );
  });

  router.get('/pricing/access', async (request, response) => {
    const owner = request.owner!;
    const standing = await options.meter.standing(owner.account_id);
    const tier = tierName(standing, options.thresholds);
    const endpoints = options.operations
      .filter((op) => op.access !== 'public')
      .map((op) => ({
        method: op.method,
        path: op.path,
        requires: op.access,
        metered: op.meteredPer !== null,
        metered_per: op.meteredPer,
        ...(op.channels.length > 0 ? { channels: op.channels.map((name) => channelAccess(name, standing, options.thresholds)) } : {}),
        ...verdict(op.access as Access, standing, options.thresholds),
      }));
    const lacking = endpoints.filter((e) => !e.allowed);
    response.json(
      success({
        tier,
        kind: owner.kind,
        token_balance: standing.tokenBalance,
        credits: standing.credits,
        thresholds: {
          tier2_tokens: options.thresholds.tier2Tokens,
          tier3_tokens: options.thresholds.tier3Tokens,
          tier2_credits: options.thresholds.tier2Credits,
        },
        rule:
          '402 PAYMENT_REQUIRED when tokens or credits would unlock the call; 403 FORBIDDEN when this kind of key can never reach it. ' +
          `A Tier 2 call that only credits unlock draws ${options.thresholds.tier2Credits} credit${options.thresholds.tier2Credits === 1 ? '' : 's'}.`,
        allowed_endpoints: endpoints.filter((e) => e.allowed).length,
        lacking,
        endpoints,
      }),
    );
  });

  return router;
}

function verdict(access: Access, standing: Standing, thresholds: TierThresholds) {
  const decision = decide(access, standing, thresholds);
  return {
    allowed: decision.allowed,
    status_if_called: decision.allowed ? 200 : decision.status,
    reason: decision.allowed ? null : decision.reason,
  };
}

/** A stream channel's tier as the channel itself declares it (services/streams/), so the listing is what a subscribe meets. */
function channelAccess(name: string, standing: Standing, thresholds: TierThresholds) {
  const channel = channelNamed(name);
  if (!channel) throw new Error(`api/openapi.yaml x-channels names ${name}, which services/streams/channels.ts does not define`);
  return { channel: channel.name, requires: channel.access, ...verdict(channel.access, standing, thresholds) };
}
