/**
 * Limits on self-registration (each registration creates an account with its own quota): per
 * client address and for the whole service, per hour, counted in the control store so every API
 * process shares them. A refused attempt still counts for its address, so retrying harder does not
 * help. Once an address (or the service) is over its limit, this process remembers it until the
 * window ends and refuses further attempts without asking the store: a flood of registrations costs
 * memory lookups, not database writes.
 */
import type { ControlStore } from '../ports/control-store.js';
import { BoundedLru } from '../shared/lru.js';
import { SharedWindowCounter } from './shared-counter.js';

export interface RegistrationRefusal {
  reason: string;
  retryAfterSeconds: number;
}

export class RegistrationLimits {
  private readonly counter: SharedWindowCounter;
  /** Scopes known to be over their limit, until their window ends. */
  private readonly refused = new BoundedLru<string, RegistrationRefusal & { untilMs: number }>({ maxEntries: 100_000 });

  constructor(
    store: ControlStore,
    private readonly limits: { perIpPerHour: number; perHour: number },
    private readonly clock: () => number = Date.now,
  ) {
    this.counter = new SharedWindowCounter(store, 3_600_000, clock);
  }

  /** Counts one attempt from `ip`; returns why it is refused, or null to go ahead. */
  async admit(ip: string): Promise<RegistrationRefusal | null> {
    const known = this.refused.get(`ip:${ip}`) ?? this.refused.get('all');
    if (known) return { reason: known.reason, retryAfterSeconds: Math.max(1, Math.ceil((known.untilMs - this.clock()) / 1000)) };
    const fromIp = await this.counter.add(`register:ip:${ip}`);
    if (fromIp.count > this.limits.perIpPerHour) {
      return this.remember(`ip:${ip}`, {
        reason: `at most ${this.limits.perIpPerHour} registrations per hour from one address; use the key you have`,
        retryAfterSeconds: fromIp.retryAfterSeconds,
      });
    }
    const total = await this.counter.add('register:all');
    if (total.count > this.limits.perHour) {
      return this.remember('all', {
        reason: 'registration is at its hourly capacity; retry later',
        retryAfterSeconds: total.retryAfterSeconds,
      });
    }
    return null;
  }

  private remember(scope: string, refusal: RegistrationRefusal): RegistrationRefusal {
    const ttlMs = refusal.retryAfterSeconds * 1000;
    this.refused.set(scope, { ...refusal, untilMs: this.clock() + ttlMs }, ttlMs);
    return refusal;
  }
}
