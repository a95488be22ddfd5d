/**
 * Per-call access control after the key is known and the request validated: rate limit, tier rule
 * (x-access on each operation of api/openapi.yaml), then metering (x-metered: false opts out; a call
 * that only credits unlock always draws them). Headers follow the widely used RateLimit-Limit /
 * -Remaining / -Reset trio and show what this process enforces: the tier's rate divided between the
 * API processes running (services/access/rate-limit.ts).
 */
import type { NextFunction, Request, Response } from 'express';
import type { Meter } from '../services/access/meter.js';
import type { RateLimiter } from '../services/access/rate-limit.js';
import { decide, tierName, unlockedByCredits, type Access, type TierName, type TierThresholds } from '../services/access/tiers.js';
import { ApiError } from './errors.js';

export interface AccessPolicy {
  thresholds: TierThresholds;
  ratePerSecond: Record<TierName, number>;
  rateBurstFactor: number;
}

/** The share of a tier's rate this process enforces: 1 / the number of API processes running. */
export type RateShare = () => number;

export interface OperationAccess {
  'x-access'?: Access;
  'x-metered'?: boolean;
}

export function operationOf(request: Request): OperationAccess | undefined {
  return (request as Request & { openapi?: { schema?: OperationAccess } }).openapi?.schema;
}

export type AccessCheck = (request: Request, response: Response, operation: OperationAccess) => Promise<void>;

/** Rate limit, tier rule and metering for one call; throws the ApiError that refuses it. */
export function accessCheck(meter: Meter, limiter: RateLimiter, policy: AccessPolicy, share: RateShare = () => 1): AccessCheck {
  return async (request, response, operation) => {
    const owner = request.owner;
    if (!owner) return;
    meter.touchKey(owner.key_id);
    const standing = await meter.standing(owner.account_id);
    const tier = tierName(standing, policy.thresholds);
    const split = Math.max(1, share());
    const perSecond = policy.ratePerSecond[tier] / split;
    const rate = limiter.take(owner.account_id, { perSecond, burst: Math.max(1, Math.ceil(perSecond * policy.rateBurstFactor)) });
    response.setHeader('RateLimit-Limit', String(rate.limit));
    response.setHeader('RateLimit-Remaining', String(rate.remaining));
    response.setHeader('RateLimit-Reset', String(rate.resetSeconds));
    if (!rate.allowed) {
      throw ApiError.rateLimited(
        `rate limit of ${policy.ratePerSecond[tier]} requests/s for tier ${tier} exceeded` +
          `${split > 1 ? ` (${split} API processes share it: ${round(perSecond)}/s and burst ${rate.limit} here)` : ` (burst ${rate.limit})`}; ` +
          `retry after ${rate.resetSeconds} s`,
        rate.resetSeconds,
      );
    }
    const access = operation['x-access'] ?? 'tier1';
    const decision = decide(access, standing, policy.thresholds);
    if (!decision.allowed) throw new ApiError(decision.status, decision.status === 402 ? 'PAYMENT_REQUIRED' : 'FORBIDDEN', decision.reason);
    if (operation['x-metered'] !== false || unlockedByCredits(access, standing, policy.thresholds)) {
      const charge = await meter.charge(owner.account_id, access);
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

const round = (value: number) => Math.round(value * 100) / 100;
