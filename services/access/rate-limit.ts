/**
 * Per-key token buckets in process memory, split between the API processes that are running: with
 * N processes behind one balancer each enforces 1/N of the rate and burst (api-instances.ts counts
 * them through the control store), so a key gets its tier's rate in total, assuming the balancer
 * spreads a key's requests evenly. Buckets live in a bounded LRU and expire once they would be full
 * again (a full bucket and no bucket are the same), so idle keys cost nothing.
 */
import { BoundedLru } from '../shared/lru.js';

export interface BucketPolicy {
  perSecond: number;
  burst: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again (RateLimit-Reset), or until one token is back when refused. */
  resetSeconds: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export class RateLimiter {
  private readonly buckets: BoundedLru<string, Bucket>;

  constructor(
    private readonly clock: () => number = Date.now,
    maxKeys = 100_000,
  ) {
    this.buckets = new BoundedLru({ maxEntries: maxKeys, clock });
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Seconds until `key` has a token again when its bucket is empty now, else null (nothing is taken). */
  refusal(key: string, policy: BucketPolicy): number | null {
    const bucket = this.buckets.peek(key);
    if (!bucket) return null;
    const tokens = Math.min(policy.burst, bucket.tokens + ((this.clock() - bucket.updatedMs) / 1000) * policy.perSecond);
    return tokens >= 1 ? null : Math.max(1, Math.ceil((1 - tokens) / policy.perSecond));
  }

  take(key: string, policy: BucketPolicy): RateDecision {
    const now = this.clock();
    const bucket = this.buckets.get(key) ?? { tokens: policy.burst, updatedMs: now };
    bucket.tokens = Math.min(policy.burst, bucket.tokens + ((now - bucket.updatedMs) / 1000) * policy.perSecond);
    bucket.updatedMs = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    const refillMs = ((policy.burst - bucket.tokens) / policy.perSecond) * 1000;
    this.buckets.set(key, bucket, Math.max(1, refillMs));
    if (allowed) {
      return {
        allowed: true,
        limit: policy.burst,
        remaining: Math.floor(bucket.tokens),
        resetSeconds: Math.ceil(refillMs / 1000),
      };
    }
    return {
      allowed: false,
      limit: policy.burst,
      remaining: 0,
      resetSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / policy.perSecond)),
    };
  }
}
