/**
 * Exact decimal amounts as scaled bigints: money, shares and prices are integers of micro-units
 * (10^-6, the unit of USDC and of outcome shares on chain) and never pass through a float sum.
 * Parsing refuses more fractional digits than the scale holds instead of rounding them away;
 * products and quotients round explicitly (half up unless the caller names another rule).
 */
export const MICRO = 1_000_000n;
const MICRO_SCALE = 6;

export type Rounding = 'half-up' | 'floor' | 'ceil';

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** Parses a decimal string (or a JSON number, through its shortest round-trip text) to an integer at `scale`; null if not exact. */
export function parseScaled(input: string | number, scale = MICRO_SCALE): bigint | null {
  const text = typeof input === 'number' ? (Number.isFinite(input) ? String(input) : '') : input.trim();
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const [, sign, whole, fraction = '', exponentText] = match;
  const exponent = Number(exponentText ?? 0);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 100) return null;
  let digits = whole! + fraction;
  let point = whole!.length + exponent;
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  const integerPart = digits.slice(0, point) || '0';
  const fractionPart = digits.slice(point).replace(/0+$/, '');
  if (fractionPart.length > scale) return null;
  const value = BigInt(integerPart) * 10n ** BigInt(scale) + BigInt(fractionPart.padEnd(scale, '0') || '0');
  return sign ? -value : value;
}

/** Decimal text of a scaled integer, trailing fractional zeros trimmed ("12.5", "3", "-0.000001"). */
export function formatScaled(value: bigint, scale = MICRO_SCALE): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * The served form of an amount (api/openapi.yaml "Conventions"): a JSON number rounded to its unit,
 * 6 decimals, with no float noise. Exact micro-units (and stored decimal text, parsed exactly) convert
 * through their decimal text, whose nearest double prints back as that text; floats computed upstream
 * or in storage round half away from zero at the sixth decimal first. A double holds any 15
 * significant digits, so every amount below 10^9 is served to the exact micro-unit. Every money,
 * share and price field a response serves goes through here, so the rule has one place.
 */
export function servedAmount(value: bigint | number | string): number {
  if (typeof value === 'string') {
    const micros = parseScaled(value);
    if (micros === null) throw new RangeError(`not an amount of at most 6 decimals: ${value}`);
    return Number(formatScaled(micros));
  }
  if (typeof value === 'bigint') return Number(formatScaled(value));
  if (!Number.isFinite(value)) throw new RangeError(`not a finite amount: ${value}`);
  const micros = Math.round(Math.abs(value) * 1e6);
  return micros === 0 ? 0 : (Math.sign(value) * micros) / 1e6;
}

/** servedAmount of a nullable value. */
export const servedAmountOrNull = (value: bigint | number | string | null | undefined): number | null =>
  value === null || value === undefined ? null : servedAmount(value);

/** a x b / d, rounded. d must be positive. */
export function mulDiv(a: bigint, b: bigint, d: bigint, rounding: Rounding = 'half-up'): bigint {
  return divide(a * b, d, rounding);
}

export function divide(n: bigint, d: bigint, rounding: Rounding = 'half-up'): bigint {
  if (d <= 0n) throw new RangeError('divisor must be positive');
  const q = n / d;
  const r = n % d;
  if (r === 0n) return q;
  // bigint division truncates toward zero; adjust to the rule.
  const floor = n < 0n ? q - 1n : q;
  if (rounding === 'floor') return floor;
  if (rounding === 'ceil') return floor + 1n;
  const twice = 2n * (n - floor * d);
  return twice >= d ? floor + 1n : floor;
}

/** A float read from storage (prices and sizes in ClickHouse) to micro-units: exact for any value with at most 6 decimals. */
export function microsOf(value: number): bigint {
  return BigInt(Math.round(value * 1e6));
}

export const minBig = (a: bigint, b: bigint): bigint => (a < b ? a : b);
export const maxBig = (a: bigint, b: bigint): bigint => (a > b ? a : b);
