/**
 * Per-call access control after the key is known and the request validated: rate limit, tier rule
 * (x-access on each operation of api/openapi.yaml), then metering (x-metered: false opts out; a call
 * that only credits unlock always draws them). Headers follow the widely used RateLimit-Limit /
 * -Remaining / -Reset trio and show what this process enforces: the tier's rate divided between the
 * API processes running (services/access/rate-limit.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Charge, Meter } from '../services/access/meter.js';
import type { RateLimiter } from '../services/access/rate-limit.js';
import {
  decide,
  tierName,
  unlockedByCredits,
  type Access,
  type Standing,
  type TierName,
  type TierThresholds,
} from '../services/access/tiers.js';
import { ApiError } from '../services/http/errors.js';

export interface AccessPolicy {
  thresholds: TierThresholds;
  ratePerSecond: Record<TierName, number>;
  rateBurstFactor: number;
  /** What the free keys (Tier 1 and sandbox) of one client address share, per second. */
  freePerIpPerSecond: number;
}

/** The client address a request comes from (api/auth.ts clientAddress, with the trusted proxy hops). */
export type AddressOf = (request: IncomingMessage) => string;

/** The share of a tier's rate this process enforces: 1 / the number of API processes running. */
export type RateShare = () => number;

export interface OperationAccess {
  'x-access'?: Access;
  'x-metered'?: boolean;
}

function operationOf(request: Request): OperationAccess | undefined {
  return (request as Request & { openapi?: { schema?: OperationAccess } }).openapi?.schema;
}

export type AccessCheck = (request: Request, response: Response, operation: OperationAccess) => Promise<void>;

/** A rate as this process enforces it: split between the API processes, with the policy's burst factor. */
function splitBucket(ratePerSecond: number, policy: AccessPolicy, share: RateShare) {
  const split = Math.max(1, share());
  const perSecond = ratePerSecond / split;
  return { split, perSecond, burst: Math.max(1, Math.ceil(perSecond * policy.rateBurstFactor)) };
}

type Bucket = ReturnType<typeof splitBucket>;

/** The bucket this process applies to an account of `tier`: the tier's rate, split between the API processes. */
const bucketFor = (tier: TierName, policy: AccessPolicy, share: RateShare) => splitBucket(policy.ratePerSecond[tier], policy, share);

/**
 * Free keys are easy to collect, so those of one client address also share one bucket
 * (RATE_FREE_PER_IP_PER_SECOND), split between the API processes like a key's. Without it ten free
 * keys took ten times one key's rate of uncached 500-market pages: the cache-busting flood of the
 * abuse suite served 3,700-34,000 of them and took the process's whole core (README, "Access").
 */
const isFree = (tier: TierName) => tier === '1' || tier === 'sandbox';
const addressBucketKey = (address: string) => `address:${address}`;

const addressBucket = (policy: AccessPolicy, share: RateShare) => splitBucket(policy.freePerIpPerSecond, policy, share);

/** The 429 of an empty bucket: which limit (`what`, at `ratePerSecond`), this process's share of it, when to retry. */
function limited(what: string, ratePerSecond: number, bucket: Bucket, resetSeconds: number, hint = ''): ApiError {
  return ApiError.rateLimited(
    `rate limit of ${ratePerSecond} requests/s ${what} exceeded` +
      `${bucket.split > 1 ? ` (${bucket.split} API processes share it: ${round(bucket.perSecond)}/s and burst ${bucket.burst} here)` : ` (burst ${bucket.burst})`}; ` +
      `retry after ${resetSeconds} s${hint}`,
    resetSeconds,
    { 'RateLimit-Limit': String(bucket.burst), 'RateLimit-Remaining': '0', 'RateLimit-Reset': String(resetSeconds) },
  );
}

const addressLimited = (policy: AccessPolicy, bucket: Bucket, resetSeconds: number) =>
  limited(
    'shared by the free (Tier 1 and sandbox) keys of one client address',
    policy.freePerIpPerSecond,
    bucket,
    resetSeconds,
    ', or use a Tier 2 key',
  );

const rateLimited = (tier: TierName, policy: AccessPolicy, bucket: Bucket, resetSeconds: number) =>
  limited(`for tier ${tier}`, policy.ratePerSecond[tier], bucket, resetSeconds);

/**
 * The cheap refusal of a flood: for an account whose standing is in memory and whose bucket is
 * empty, the 429 (and the retry delay) without routing, validation or any store. Null when the
 * request may go on (the full check then runs as usual, and takes the token).
 */
export function fastRateRefusal(meter: Meter, limiter: RateLimiter, policy: AccessPolicy, share: RateShare = () => 1) {
  return (accountId: string, address: string): ApiError | null => {
    const standing = meter.peekStanding(accountId);
    if (!standing) return null;
    const tier = tierName(standing, policy.thresholds);
    const bucket = bucketFor(tier, policy, share);
    const waitSeconds = limiter.refusal(accountId, bucket);
    if (waitSeconds !== null) return rateLimited(tier, policy, bucket, waitSeconds);
    if (!isFree(tier)) return null;
    const shared = addressBucket(policy, share);
    const addressWait = limiter.refusal(addressBucketKey(address), shared);
    return addressWait === null ? null : addressLimited(policy, shared, addressWait);
  };
}

/** Rate limit, tier rule and metering for one call; throws the ApiError that refuses it. */
export function accessCheck(
  meter: Meter,
  limiter: RateLimiter,
  policy: AccessPolicy,
  addressOf: AddressOf,
  share: RateShare = () => 1,
): AccessCheck {
  return async (request, response, operation) => {
    const owner = request.owner;
    if (!owner) return;
    meter.touchKey(owner.key_id);
    const standing = await meter.standing(owner.account_id);
    const tier = tierName(standing, policy.thresholds);
    const bucket = bucketFor(tier, policy, share);
    const rate = limiter.take(owner.account_id, bucket);
    response.setHeader('RateLimit-Limit', String(rate.limit));
    response.setHeader('RateLimit-Remaining', String(rate.remaining));
    response.setHeader('RateLimit-Reset', String(rate.resetSeconds));
    if (!rate.allowed) throw rateLimited(tier, policy, bucket, rate.resetSeconds);
    if (isFree(tier)) {
      const shared = addressBucket(policy, share);
      const byAddress = limiter.take(addressBucketKey(addressOf(request)), shared);
      if (!byAddress.allowed) throw addressLimited(policy, shared, byAddress.resetSeconds);
    }
    const charged = await tierAndMeter(meter, policy.thresholds, owner.account_id, operation, standing);
    // A call the service charged and then did not serve is given back: the engine's lanes refused it
    // (429: this key has too many queries waiting) or it failed (5xx). The caller pays for answers.
    if (charged?.ok)
      response.once('finish', () => {
        if (response.statusCode === 429 || response.statusCode >= 500) void meter.refund(owner.account_id, charged).catch(() => undefined);
      });
  };
}

/**
 * The tier rule and metering of one call needing `operation`'s access (also, through openMetered,
 * each stream subscription's): throws the 402/403 that refuses it, else draws the call.
 */
async function tierAndMeter(
  meter: Meter,
  thresholds: TierThresholds,
  accountId: string,
  operation: OperationAccess,
  known?: Standing,
): Promise<Charge | undefined> {
  let standing = known ?? (await meter.standing(accountId));
  const access = operation['x-access'] ?? 'tier1';
  let decision = decide(access, standing, thresholds);
  if (!decision.allowed && decision.status === 402) {
    // Credits or tokens may have been added since the copy in memory was read.
    standing = await meter.refreshedStanding(accountId);
    decision = decide(access, standing, thresholds);
  }
  if (!decision.allowed) throw new ApiError(decision.status, decision.status === 402 ? 'PAYMENT_REQUIRED' : 'FORBIDDEN', decision.reason);
  if (operation['x-metered'] !== false || unlockedByCredits(access, standing, thresholds)) {
    const charge = await meter.charge(accountId, access);
    if (!charge.ok) throw new ApiError(402, 'PAYMENT_REQUIRED', charge.reason);
    return charge;
  }
  return undefined;
}

/**
 * A stream subscription's tier rule and metering around its opening (services/streams/): a
 * subscription is paid for once it opens. The charge is given back when the opening is refused after
 * it was counted for a reason that is not the caller's mistake (the key's connection or subscription
 * cap: 429; a cursor past retention: 410; a failure: 5xx) or when `open` finds the client gone
 * (returns undefined). A malformed cursor (400) counts, as a REST 400 does.
 */
export async function openMetered<T>(
  meter: Meter,
  thresholds: TierThresholds,
  accountId: string,
  access: OperationAccess['x-access'],
  open: () => Promise<T>,
): Promise<T> {
  const charged = await tierAndMeter(meter, thresholds, accountId, { 'x-access': access });
  const giveBack = () => {
    if (charged?.ok) void meter.refund(accountId, charged).catch(() => undefined);
  };
  let opened: T;
  try {
    opened = await open();
  } catch (error) {
    if (!(error instanceof ApiError) || error.status === 410 || error.status === 429 || error.status >= 500) giveBack();
    throw error;
  }
  if (opened === undefined) giveBack();
  return opened;
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
