/** The retry policy's decisions, with a fixed random so jitter is exact. */
import { decide, retryAfterMs, withJitter, type RetryPolicy } from '../../services/webhooks/retry-policy.js';

const policy: RetryPolicy = {
  scheduleMs: [0, 5_000, 300_000, 1_800_000],
  jitter: 0.2,
  throttleMinDelayMs: 60_000,
  retryAfterMaxMs: 3_600_000,
};
const NOW = 1_800_000_000_000;
const mid = () => 0.5; // no jitter
const response = (status: number, retryAfter: string | null = null) => ({ kind: 'response' as const, status, retryAfter });

test('2xx only is success', () => {
  for (const status of [200, 201, 204, 299]) expect(decide(response(status), 1, policy, mid, NOW)).toEqual({ next: 'succeeded' });
  for (const status of [100, 301, 302, 400, 404, 500, 503]) expect(decide(response(status), 1, policy, mid, NOW).next).toBe('retry');
});

test('the schedule is followed, then the delivery fails', () => {
  expect(decide(response(500), 1, policy, mid, NOW)).toEqual({ next: 'retry', delayMs: 5_000, error: 'HTTP 500' });
  expect(decide(response(500), 2, policy, mid, NOW)).toMatchObject({ delayMs: 300_000 });
  expect(decide(response(500), 3, policy, mid, NOW)).toMatchObject({ delayMs: 1_800_000 });
  expect(decide(response(500), 4, policy, mid, NOW)).toEqual({
    next: 'failed',
    error: 'HTTP 500; gave up after 4 attempts',
    disableReason: null,
  });
});

test('jitter stays within +/-20%', () => {
  expect(withJitter(10_000, 0.2, () => 0)).toBe(8_000);
  expect(withJitter(10_000, 0.2, () => 0.999999)).toBe(12_000);
  expect(decide(response(500), 1, policy, () => 0, NOW)).toMatchObject({ delayMs: 4_000 });
});

test('redirects are failures, not followed', () => {
  expect(decide(response(302), 1, policy, mid, NOW)).toMatchObject({ next: 'retry', error: 'HTTP 302: redirects are not followed' });
});

test('410 Gone fails the delivery and disables the subscription with a reason', () => {
  const decision = decide(response(410), 1, policy, mid, NOW);
  expect(decision).toMatchObject({ next: 'failed', disableReason: expect.stringContaining('410 Gone') });
});

test('429 waits at least the throttle floor and honours Retry-After within bounds', () => {
  expect(decide(response(429), 1, policy, mid, NOW)).toMatchObject({ delayMs: 60_000 });
  expect(decide(response(429, '120'), 1, policy, mid, NOW)).toMatchObject({ delayMs: 120_000 });
  expect(decide(response(429, '999999'), 1, policy, mid, NOW)).toMatchObject({ delayMs: 3_600_000 });
  expect(decide(response(429, new Date(NOW + 90_000).toUTCString()), 1, policy, mid, NOW)).toMatchObject({ delayMs: 90_000 });
  // The schedule wins when it is longer than what the receiver asked for.
  expect(decide(response(429, '1'), 3, policy, mid, NOW)).toMatchObject({ delayMs: 1_800_000 });
});

test('timeouts wait at least the throttle floor; network errors follow the schedule', () => {
  expect(decide({ kind: 'timeout' }, 1, policy, mid, NOW)).toMatchObject({ delayMs: 60_000, error: 'timed out waiting for the receiver' });
  expect(decide({ kind: 'error', message: 'connection failed: ECONNREFUSED' }, 1, policy, mid, NOW)).toMatchObject({ delayMs: 5_000 });
});

test('Retry-After parsing', () => {
  expect(retryAfterMs(null, NOW)).toBeNull();
  expect(retryAfterMs('soon', NOW)).toBeNull();
  expect(retryAfterMs(' 3 ', NOW)).toBe(3_000);
  expect(retryAfterMs(new Date(NOW - 5_000).toUTCString(), NOW)).toBe(0);
});
