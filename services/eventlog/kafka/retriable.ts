/**
 * Retries a kafkajs call while a partition's leadership is settling. kafkajs's admin
 * `fetchTopicOffsets` retries only an unknown topic and bails on everything else, so a partition
 * whose leader is not yet in place on its broker (NOT_LEADER_FOR_PARTITION or LEADER_NOT_AVAILABLE,
 * just after the topic was created or the broker restarted) rejected the caller's read although
 * the next attempt would answer. Other errors (a broker that cannot be reached, which the client's
 * connection already retries for about a minute) reject at once, so a reader such as /v1/health's
 * lag is not held longer.
 */
import { type BackoffPolicy, backoffMs } from '../../shared/backoff.js';

const SETTLING = new Set(['NOT_LEADER_FOR_PARTITION', 'LEADER_NOT_AVAILABLE']);

function leadershipSettling(error: unknown): boolean {
  return typeof error === 'object' && error !== null && SETTLING.has(String((error as { type?: unknown }).type));
}

/** Runs `call` until it resolves, an error other than a settling leader, `attempts` tries, or `stopped()`. */
export async function whileRetriable<T>(
  call: () => Promise<T>,
  policy: BackoffPolicy,
  attempts: number,
  stopped: () => boolean = () => false,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!leadershipSettling(error) || attempt >= attempts || stopped()) throw error;
      await sleep(backoffMs(policy, attempt));
    }
  }
}
