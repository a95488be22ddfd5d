/**
 * Limits on self-registration (each registration creates an account with its own quota): per
 * client address and for the whole service, per hour, counted in the control store so every API
 * process shares them. A refused attempt still counts for its address, so retrying harder does not help.
 */
import type { ControlStore } from '../ports/control-store.js';
import { SharedWindowCounter } from './shared-counter.js';

export interface RegistrationRefusal {
  reason: string;
  retryAfterSeconds: number;
}

export class RegistrationLimits {
  private readonly counter: SharedWindowCounter;

  constructor(
    store: ControlStore,
    private readonly limits: { perIpPerHour: number; perHour: number },
    clock: () => number = Date.now,
  ) {
    this.counter = new SharedWindowCounter(store, 3_600_000, clock);
  }

  /** Counts one attempt from `ip`; returns why it is refused, or null to go ahead. */
  async admit(ip: string): Promise<RegistrationRefusal | null> {
    const fromIp = await this.counter.add(`register:ip:${ip}`);
    if (fromIp.count > this.limits.perIpPerHour) {
      return {
        reason: `at most ${this.limits.perIpPerHour} registrations per hour from one address; use the key you have`,
        retryAfterSeconds: fromIp.retryAfterSeconds,
      };
    }
    const total = await this.counter.add('register:all');
    if (total.count > this.limits.perHour) {
      return { reason: 'registration is at its hourly capacity; retry later', retryAfterSeconds: total.retryAfterSeconds };
    }
    return null;
  }
}
