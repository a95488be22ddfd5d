/**
 * Retries a kafkajs call on a broker error kafkajs marks retriable but does not retry itself.
 * Its admin `fetchTopicOffsets` retries only an unknown topic and bails on everything else, so a
 * partition whose leadership is still settling on its broker (NOT_LEADER_FOR_PARTITION or
 * LEADER_NOT_AVAILABLE, just after the topic was created or the broker restarted) rejected the
 * caller's read although the next attempt would answer.
 */
import { type BackoffPolicy, backoffMs } from '../../shared/backoff.js';

function isRetriableKafkaError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { retriable?: unknown }).retriable === true;
}

/** Runs `call` until it resolves, a non-retriable error, `attempts` tries, or `stopped()`. */
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
      if (!isRetriableKafkaError(error) || attempt >= attempts || stopped()) throw error;
      await sleep(backoffMs(policy, attempt));
    }
  }
}
