/**
 * Per-call access control after the key is known and the request validated: rate limit, tier rule
 * (x-access on each operation of api/openapi.yaml), then metering (x-metered: false opts out).
 * Headers follow the widely used RateLimit-Limit / -Remaining / -Reset trio.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Meter } from '../services/access/meter.js';
import type { RateLimiter } from '../services/access/rate-limit.js';
import { decide, tierName, type Access, type TierName, type TierThresholds } from '../services/access/tiers.js';
import { ApiError } from './errors.js';

export interface AccessPolicy {
  thresholds: TierThresholds;
  ratePerSecond: Record<TierName, number>;
  rateBurstFactor: number;
}

interface OperationMetadata {
  schema?: { 'x-access'?: Access; 'x-metered'?: boolean };
}

export function accessControl(meter: Meter, limiter: RateLimiter, policy: AccessPolicy) {
  return async (request: Request, response: Response, next: NextFunction) => {
    const operation = (request as Request & { openapi?: OperationMetadata }).openapi?.schema;
    const owner = request.owner;
    if (!owner || !operation) return next();
    try {
      const standing = await meter.standing(owner.account_id);
      const tier = tierName(standing, policy.thresholds);
      const perSecond = policy.ratePerSecond[tier];
      const rate = limiter.take(owner.account_id, { perSecond, burst: Math.ceil(perSecond * policy.rateBurstFactor) });
      response.setHeader('RateLimit-Limit', String(rate.limit));
      response.setHeader('RateLimit-Remaining', String(rate.remaining));
      response.setHeader('RateLimit-Reset', String(rate.resetSeconds));
      if (!rate.allowed) {
        response.setHeader('Retry-After', String(rate.resetSeconds));
        throw new ApiError(429, 'RATE_LIMITED', `rate limit of ${perSecond} requests/s (burst ${rate.limit}) for tier ${tier} exceeded; retry after ${rate.resetSeconds} s`);
      }
      const decision = decide(operation['x-access'] ?? 'tier1', standing, policy.thresholds);
      if (!decision.allowed) throw new ApiError(decision.status, decision.status === 402 ? 'PAYMENT_REQUIRED' : 'FORBIDDEN', decision.reason);
      if (operation['x-metered'] !== false) {
        const charge = await meter.charge(owner.account_id);
        if (!charge.ok) throw new ApiError(402, 'PAYMENT_REQUIRED', charge.reason);
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}
