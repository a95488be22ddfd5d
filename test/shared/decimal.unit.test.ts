/** Exact decimal amounts: parsing refuses what it cannot hold exactly; rounding is explicit. */
import { divide, formatScaled, mulDiv, parseScaled } from '../../services/shared/decimal.js';

test('parses decimal strings and JSON numbers exactly, refusing more digits than the scale', () => {
  expect(parseScaled('12.5')).toBe(12_500_000n);
  expect(parseScaled(0.58)).toBe(580_000n);
  expect(parseScaled(0.1 + 0.2)).toBeNull(); // 0.30000000000000004 is not a 6-decimal amount
  expect(parseScaled('0.0000001')).toBeNull();
  expect(parseScaled(1e-6)).toBe(1n);
  expect(parseScaled(1e21)).toBe(10n ** 27n);
  expect(parseScaled('-3')).toBe(-3_000_000n);
  expect(parseScaled('1.5e-3')).toBe(1_500n);
  expect(parseScaled('2.5', 18)).toBe(25n * 10n ** 17n);
  for (const bad of ['', '.5', '1.', 'abc', '1,5', '0x10']) expect(parseScaled(bad)).toBeNull();
  expect(parseScaled(Number.NaN)).toBeNull();
});

test('formats with trailing zeros trimmed', () => {
  expect(formatScaled(12_500_000n)).toBe('12.5');
  expect(formatScaled(3_000_000n)).toBe('3');
  expect(formatScaled(-1n)).toBe('-0.000001');
  expect(formatScaled(0n)).toBe('0');
  expect(formatScaled(2_500_000_000_000_000_000n, 18)).toBe('2.5');
});

test('rounds half up, down or up as asked, for either sign', () => {
  expect(divide(5n, 2n)).toBe(3n);
  expect(divide(-5n, 2n)).toBe(-2n); // half up: toward +infinity at exactly half
  expect(divide(7n, 3n, 'floor')).toBe(2n);
  expect(divide(-7n, 3n, 'floor')).toBe(-3n);
  expect(divide(7n, 3n, 'ceil')).toBe(3n);
  expect(divide(6n, 3n, 'ceil')).toBe(2n);
  // 173 x 100 / 350 = 49.428571428... -> 49.428571
  expect(formatScaled(mulDiv(173_000_000n, 100_000_000n, 350_000_000n))).toBe('49.428571');
  expect(() => divide(1n, 0n)).toThrow();
});
