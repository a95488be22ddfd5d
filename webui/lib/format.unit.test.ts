/** Money as the web UI shows it: the sign before the currency symbol, axis labels compact past 10,000. */
import { formatAxisUsd, formatCompactUsd, formatUsd } from './format.js';

test('a loss reads -$31.95, never $-31.95; a loss that rounds to nothing reads $0.00', () => {
  expect(formatUsd(-31.95)).toBe('-$31.95');
  expect(formatUsd(1234.5)).toBe('$1,234.50');
  expect(formatUsd(-0.001)).toBe('$0.00');
  expect(formatUsd(null)).toBe('—');
  expect(formatCompactUsd(-1_200)).toBe('-$1.2K');
  expect(formatCompactUsd(401_922.343444)).toBe('$401.9K');
});

test('a USDC axis label is compact past 10,000 and to the cent below', () => {
  expect(formatAxisUsd(1_000_000_000_000)).toBe('$1T');
  expect(formatAxisUsd(-25_000)).toBe('-$25K');
  expect(formatAxisUsd(12.5)).toBe('$12.50');
  expect(formatAxisUsd(0)).toBe('$0.00');
});
