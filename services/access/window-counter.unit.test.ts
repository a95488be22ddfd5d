/**
 * The sliding window of failed authentications: a burst at the end of one minute and another at the
 * start of the next is refused (a fixed window let both through), counts leave the window slot by
 * slot, Retry-After says when the count falls below the limit, and a key with nothing left is gone.
 */
import { WindowCounter } from './window-counter.js';

const MINUTE = 60_000;
const LIMIT = 10;

test('no span shorter than 55 s holds more than the limit: a burst across the minute boundary stays one limit', () => {
  let now = 10 * MINUTE + 59_000; // one second before a wall-clock minute ends
  const counter = new WindowCounter(MINUTE, 100, () => now);
  for (let i = 0; i < LIMIT; i++) counter.add('1.2.3.4');
  expect(counter.count('1.2.3.4')).toBe(LIMIT);
  now += 2_000; // the next wall-clock minute: a fixed window would count 0 here
  expect(counter.count('1.2.3.4')).toBe(LIMIT);
  // The burst's 5-s slot (10:55-11:00) leaves the window at 11:55, 56 s after the burst, not before.
  now = 11 * MINUTE + 54_000;
  expect(counter.count('1.2.3.4')).toBe(LIMIT);
  expect(counter.retryAfterSeconds('1.2.3.4', LIMIT)).toBe(1);
  now = 11 * MINUTE + 50_000;
  expect(counter.retryAfterSeconds('1.2.3.4', LIMIT)).toBe(5);
  now = 11 * MINUTE + 55_000;
  expect(counter.count('1.2.3.4')).toBe(0);
  // Other keys are their own.
  expect(counter.count('5.6.7.8')).toBe(0);
});

test('counts leave slot by slot; Retry-After is when the count falls below the limit', () => {
  let now = 0;
  const counter = new WindowCounter(MINUTE, 100, () => now);
  for (let second = 0; second < 50; second += 10) {
    now = second * 1_000;
    counter.add('a');
    counter.add('a');
  }
  // 2 at each of 0, 10, 20, 30, 40 s: 10 in the window at 40 s.
  expect(counter.count('a')).toBe(10);
  // Below 10 once the first slot (0-5 s) leaves at 60 s: 20 s from now.
  expect(counter.retryAfterSeconds('a', 10)).toBe(20);
  // Below 7 once the first two slots with events (0 s and 10 s) left: at 70 s.
  expect(counter.retryAfterSeconds('a', 7)).toBe(30);
  now = 60_000;
  expect(counter.count('a')).toBe(8);
  now = 100_000;
  expect(counter.count('a')).toBe(0);
  expect(counter.retryAfterSeconds('a', 10)).toBe(1);
});

test('keys are bounded: past maxKeys the least recently used start again from zero', () => {
  const counter = new WindowCounter(MINUTE, 2, () => 0);
  counter.add('a');
  counter.add('b');
  counter.add('c');
  expect(counter.size).toBe(2);
  expect(counter.count('a')).toBe(0);
  expect(counter.count('c')).toBe(1);
});
