/**
 * The wire formats Polymarket mixes (README §2): each helper reproduces one of them exactly, so the
 * simulator exercises every parser path the real upstream does.
 */

/** Gamma `createdAt`/`updatedAt`: ISO-8601 with 0-6 fraction digits, trailing zeros trimmed. */
export function isoMicros(rawMicros: number): string {
  const micros = Math.floor(rawMicros);
  const wholeMs = Math.floor(micros / 1000);
  const fraction = String(micros - Math.floor(micros / 1_000_000) * 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '');
  const base = new Date(wholeMs).toISOString().slice(0, 19);
  return fraction ? `${base}.${fraction}Z` : `${base}Z`;
}

/** Gamma `endDate` and CLOB `end_date_iso`: whole seconds, `Z`. */
export function isoSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** Gamma `closedTime` / `gameStartTime`: `YYYY-MM-DD HH:MM:SS+00`. */
export function spaceOffsetTime(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}+00`;
}

/** Gamma `endDateIso`, Data API `/positions` `endDate`: date only. */
export function dateOnly(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Decimal string without float noise or trailing zeros: 0.5 -> "0.5", 1 -> "1", 12.30 -> "12.3". */
export function decimalString(value: number, maxDecimals: number): string {
  const fixed = value.toFixed(maxDecimals);
  const trimmed = fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
  return trimmed === '-0' ? '0' : trimmed;
}

/** Round to n decimals and return a number (for JSON number fields). */
export function roundTo(value: number, decimals: number): number {
  return Number(decimalString(value, decimals));
}

/** Gamma encodes arrays as JSON inside a string, with ", " separators: "[\"Yes\", \"No\"]". */
export function jsonArrayString(items: readonly string[]): string {
  return `[${items.map((item) => JSON.stringify(item)).join(', ')}]`;
}

export function slugify(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/\$/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 90)
    .replace(/-+$/, '');
}
