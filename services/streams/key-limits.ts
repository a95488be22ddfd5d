/**
 * Per-key caps of this API process: open stream connections (STREAM_CONNECTIONS_PER_KEY) and
 * subscriptions over all of them (STREAM_SUBSCRIPTIONS_PER_KEY). Each subscription reads the log for
 * itself, so these are what stop one key from taking every reader of the process.
 */
import { ApiError } from '../http/errors.js';

export class KeyLimits {
  private readonly connections = new Map<string, number>();
  private readonly subscriptions = new Map<string, number>();

  constructor(private readonly caps: { connectionsPerKey: number; subscriptionsPerKey: number }) {}

  /** Takes a connection slot for the key, or throws the 429 that refuses it. */
  openConnection(keyId: string): () => void {
    return this.take(
      this.connections,
      keyId,
      this.caps.connectionsPerKey,
      `this key has ${this.caps.connectionsPerKey} stream connections open (STREAM_CONNECTIONS_PER_KEY); close one first`,
    );
  }

  openSubscription(keyId: string): () => void {
    return this.take(
      this.subscriptions,
      keyId,
      this.caps.subscriptionsPerKey,
      `this key has ${this.caps.subscriptionsPerKey} stream subscriptions (STREAM_SUBSCRIPTIONS_PER_KEY); unsubscribe or close one first`,
    );
  }

  get totals(): { connections: number; subscriptions: number } {
    const sum = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
    return { connections: sum(this.connections), subscriptions: sum(this.subscriptions) };
  }

  private take(counts: Map<string, number>, keyId: string, cap: number, refusal: string): () => void {
    const held = counts.get(keyId) ?? 0;
    if (held >= cap) throw new ApiError(429, 'RATE_LIMITED', refusal, { reason: 'account_limit', retryAfterSeconds: 1 });
    counts.set(keyId, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (counts.get(keyId) ?? 1) - 1;
      if (left <= 0) counts.delete(keyId);
      else counts.set(keyId, left);
    };
  }
}
