/**
 * Limits on self-registration (each registration creates an account with its own quota): per
 * client, per network and for the whole service, per hour, counted in the control store so every API
 * process shares them. A refused attempt still counts for its address, so retrying harder does not
 * help. Once an address (or the service) is over its limit, this process remembers it until the
 * window ends and refuses further attempts without asking the store: a flood of registrations costs
 * memory lookups, not database writes.
 *
 * A client is an IPv4 address or an IPv6 /64: one host is handed a whole /64, so counting IPv6 by
 * address would let it register without limit. A network is an IPv4 /24 (or the /64 again), allowed
 * PREFIX_MULTIPLE clients' worth, so a few dozen addresses of one network cannot use up the
 * service-wide cap for everyone.
 */
import type { ControlStore } from '../ports/control-store.js';
import { BoundedLru } from '../shared/lru.js';
import { canonicalAddress, networkPrefix } from './network-prefix.js';
import { SharedWindowCounter } from './shared-counter.js';

/** Registrations a network (IPv4 /24) may make per hour, in multiples of the per-client limit. */
export const PREFIX_MULTIPLE = 5;

/** The client a registration counts for: the IPv4 address, or the IPv6 /64 it is in. */
function registrationClient(address: string): string {
  const canonical = canonicalAddress(address);
  return canonical.includes(':') ? networkPrefix(canonical) : canonical;
}

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
  async admit(address: string): Promise<RegistrationRefusal | null> {
    const client = registrationClient(address);
    const network = networkPrefix(address);
    const known = this.refused.get(`ip:${client}`) ?? this.refused.get(`net:${network}`) ?? this.refused.get('all');
    if (known) return { reason: known.reason, retryAfterSeconds: Math.max(1, Math.ceil((known.untilMs - this.clock()) / 1000)) };
    const fromClient = await this.counter.add(`register:ip:${client}`);
    if (fromClient.count > this.limits.perIpPerHour) {
      return this.remember(`ip:${client}`, {
        reason: `at most ${this.limits.perIpPerHour} registrations per hour from one address (an IPv6 /64 counts as one); use the key you have`,
        retryAfterSeconds: fromClient.retryAfterSeconds,
      });
    }
    if (network !== client) {
      const fromNetwork = await this.counter.add(`register:net:${network}`);
      const networkLimit = this.limits.perIpPerHour * PREFIX_MULTIPLE;
      if (fromNetwork.count > networkLimit) {
        return this.remember(`net:${network}`, {
          reason: `at most ${networkLimit} registrations per hour from one network (/24); use the keys you have`,
          retryAfterSeconds: fromNetwork.retryAfterSeconds,
        });
      }
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
