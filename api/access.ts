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

export interface OperationAccess {
  'x-access'?: Access;
  'x-metered'?: boolean;
}

export function operationOf(request: Request): OperationAccess | undefined {
  return (request as Request & { openapi?: { schema?: OperationAccess } }).openapi?.schema;
}

export type AccessCheck = (request: Request, response: Response, operation: OperationAccess) => Promise<void>;

/** Rate limit, tier rule and metering for one call; throws the ApiError that refuses it. */
export function accessCheck(meter: Meter, limiter: RateLimiter, policy: AccessPolicy): AccessCheck {
  return async (request, response, operation) => {
    const owner = request.owner;
    if (!owner) return;
    const standing = await meter.standing(owner.account_id);
    const tier = tierName(standing, policy.thresholds);
    const perSecond = policy.ratePerSecond[tier];
    const rate = limiter.take(owner.account_id, { perSecond, burst: Math.ceil(perSecond * policy.rateBurstFactor) });
    response.setHeader('RateLimit-Limit', String(rate.limit));
    response.setHeader('RateLimit-Remaining', String(rate.remaining));
    response.setHeader('RateLimit-Reset', String(rate.resetSeconds));
    if (!rate.allowed) {
      response.setHeader('Retry-After', String(rate.resetSeconds));
      throw new ApiError(
        429,
        'RATE_LIMITED',
        `rate limit of ${perSecond} requests/s (burst ${rate.limit}) for tier ${tier} exceeded; retry after ${rate.resetSeconds} s`,
      );
    }
    const decision = decide(operation['x-access'] ?? 'tier1', standing, policy.thresholds);
    if (!decision.allowed) throw new ApiError(decision.status, decision.status === 402 ? 'PAYMENT_REQUIRED' : 'FORBIDDEN', decision.reason);
    if (operation['x-metered'] !== false) {
      const charge = await meter.charge(owner.account_id);
      if (!charge.ok) throw new ApiError(402, 'PAYMENT_REQUIRED', charge.reason);
    }
  };
}

export function accessControl(check: AccessCheck) {
  return async (request: Request, response: Response, next: NextFunction) => {
    const operation = operationOf(request);
    if (!request.owner || !operation) return next();
    try {
      await check(request, response, operation);
      next();
    } catch (error) {
      next(error);
    }
  };
}
