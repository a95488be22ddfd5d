/**
 * Parsers for the traps in Polymarket's responses: JSON arrays inside strings, decimal strings,
 * and four timestamp formats (ISO with 0-6 fraction digits, "YYYY-MM-DD HH:MM:SS+00", date only,
 * epoch seconds or milliseconds as number or string).
 */
export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

export const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
export const fail = <T = never>(reason: string): Parsed<T> => ({ ok: false, reason });

/** Gamma's `"[\"Yes\", \"No\"]"`, or an already-decoded array (websocket, newer shapes). */
export function parseStringArray(raw: unknown, field: string): Parsed<string[]> {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      return fail(`${field} is not a JSON array string`);
    }
  }
  if (!Array.isArray(value)) return fail(`${field} is not an array`);
  if (!value.every((item) => typeof item === 'string' || typeof item === 'number')) return fail(`${field} has non-scalar items`);
  return ok(value.map(String));
}

/** A finite number from a JSON number or a decimal string; null/absent stays null. */
export function parseOptionalNumber(raw: unknown): number | null {
  if (raw === null || raw === undefined || raw === '') return null;
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw) : NaN;
  return Number.isFinite(value) ? value : null;
}

export function parseNumber(raw: unknown, field: string): Parsed<number> {
  const value = parseOptionalNumber(raw);
  return value === null ? fail(`${field} is not a number: ${JSON.stringify(raw)}`) : ok(value);
}

const SPACE_OFFSET = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}(?:\.\d+)?)([+-]\d{2})(?::?(\d{2}))?$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;
// Epoch values below this are seconds: 1e11 s is the year 5138, 1e11 ms is 1973.
const SECONDS_LIMIT = 100_000_000_000;

/** Milliseconds since epoch, or null when absent or unparseable. */
export function parseTimestampMs(raw: unknown): number | null {
  if (raw === null || raw === undefined || raw === '') return null;
  if (typeof raw === 'number' || (typeof raw === 'string' && /^\d+(\.\d+)?$/.test(raw))) {
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) return null;
    return Math.round(n < SECONDS_LIMIT ? n * 1000 : n);
  }
  if (typeof raw !== 'string') return null;
  let text = raw.trim();
  const spaced = SPACE_OFFSET.exec(text);
  if (spaced) text = `${spaced[1]}T${spaced[2]}${spaced[3]}:${spaced[4] ?? '00'}`;
  else if (DATE_ONLY.test(text)) text = `${text}T00:00:00Z`;
  else if (!ISO.test(text)) return null;
  // Date.parse keeps milliseconds and drops finer fractions, which is the precision we store.
  const withZone = /(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`;
  const ms = Date.parse(withZone.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isFinite(ms) ? ms : null;
}

/**
 * One outcome token id: a uint256 kept as a decimal string. A JSON number is accepted only while it
 * is exact (at most 2^53 - 1); a larger one has already lost digits in the JSON parser (a 78-digit
 * id reads as 5.13e+76), so it is refused with that reason rather than stored wrong.
 */
export function parseTokenId(raw: unknown, field: string): Parsed<string> {
  if (typeof raw === 'string') return /^\d{1,78}$/.test(raw) ? ok(raw) : fail(`${field} is not a token id: ${JSON.stringify(raw)}`);
  if (typeof raw === 'number') {
    if (Number.isSafeInteger(raw) && raw >= 0) return ok(String(raw));
    return fail(`${field} arrived as a JSON number (${String(raw)}) beyond 2^53 and lost precision; token ids must be strings`);
  }
  return fail(`${field} is not a token id: ${JSON.stringify(raw)}`);
}

/** A list of token ids, possibly JSON inside a string (Gamma's clobTokenIds); each id as parseTokenId. */
export function parseTokenIds(raw: unknown, field: string): Parsed<string[]> {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      return fail(`${field} is not a JSON array string`);
    }
  }
  if (!Array.isArray(value)) return fail(`${field} is not an array`);
  const ids: string[] = [];
  for (const item of value) {
    const id = parseTokenId(item, field);
    if (!id.ok) return id;
    ids.push(id.value);
  }
  return ok(ids);
}

/**
 * Gamma's best bid/ask of a market, with its empty-book markers turned into null: an empty bid side
 * is printed as bestBid 0 and an empty ask side as bestAsk 1 (no order can rest at 0 or at 1).
 */
export function parseBookTop(bestBid: unknown, bestAsk: unknown): { bid: number | null; ask: number | null } {
  const bid = parseOptionalNumber(bestBid);
  const ask = parseOptionalNumber(bestAsk);
  return { bid: bid === null || bid <= 0 || bid >= 1 ? null : bid, ask: ask === null || ask >= 1 || ask <= 0 ? null : ask };
}
