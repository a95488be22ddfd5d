/**
 * Per-key token buckets, in process memory. With N API processes a key gets up to N times the
 * rate; a shared limiter (in the control store or Redis) is the step for large deployments.
 */
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
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly clock: () => number = Date.now) {}

  take(key: string, policy: BucketPolicy): RateDecision {
    const now = this.clock();
    const bucket = this.buckets.get(key) ?? { tokens: policy.burst, updatedMs: now };
    bucket.tokens = Math.min(policy.burst, bucket.tokens + ((now - bucket.updatedMs) / 1000) * policy.perSecond);
    bucket.updatedMs = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return {
        allowed: true,
        limit: policy.burst,
        remaining: Math.floor(bucket.tokens),
        resetSeconds: Math.ceil((policy.burst - bucket.tokens) / policy.perSecond),
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
