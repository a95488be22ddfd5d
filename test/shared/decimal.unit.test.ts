/** Exact decimal amounts: parsing refuses what it cannot hold exactly; rounding is explicit. */
import { divide, formatScaled, mulDiv, parseScaled, servedAmount, servedAmountOrNull } from '../../services/shared/decimal.js';

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

test('serves amounts as numbers rounded to 6 decimals that print without float noise', () => {
  // Exact micro-units and stored decimal text serve as the number whose text is that decimal.
  expect(servedAmount(9_870_126_800n)).toBe(9870.1268);
  expect(String(servedAmount(-6_428_571n))).toBe('-6.428571');
  expect(servedAmount('123.571429')).toBe(123.571429);
  expect(() => servedAmount('1.0000001')).toThrow(RangeError);
  // Floats computed upstream or in storage are rounded at the sixth decimal.
  expect(servedAmount(401922.3434441496)).toBe(401922.343444);
  expect(String(servedAmount(0.57 * 3.3))).toBe('1.881');
  expect(String(servedAmount(1 - 0.37))).toBe('0.63');
  expect(servedAmount(-0.0000004)).toBe(0);
  expect(Object.is(servedAmount(-0.0000004), -0)).toBe(false);
  expect(() => servedAmount(Number.NaN)).toThrow(RangeError);
  expect(servedAmountOrNull(null)).toBeNull();
  // A double keeps any 15 significant digits: every amount below 10^9 survives to the micro-unit.
  for (const micros of [1n, 999_999n, 123_456_789_012_345n, 999_999_999_999_999n])
    expect(String(servedAmount(micros))).toBe(formatScaled(micros));
});
