/** GET /usage (quota and usage) and GET /pricing/access (what this key has, and what it lacks). */
import { Router } from 'express';
import type { Meter } from '../../services/access/meter.js';
import { decide, tierName, type TierName, type TierThresholds } from '../../services/access/tiers.js';
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
      .map((op) => {
        const decision = decide(op.access as Exclude<Operation['access'], 'public'>, standing, options.thresholds);
        return {
          method: op.method,
          path: op.path,
          requires: op.access,
          metered: op.metered,
          allowed: decision.allowed,
          status_if_called: decision.allowed ? 200 : decision.status,
          reason: decision.allowed ? null : decision.reason,
        };
      });
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
