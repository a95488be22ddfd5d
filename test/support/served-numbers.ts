/**
 * The Conventions' check over a real response body (api/openapi.yaml info.description): no served
 * number has more than 6 decimals (float noise such as 0.30000000000000004 has more) and no value is a
 * numeric string, save ids, hashes and the exact-integer and exact-decimal fields the document names.
 */

/** Strings that may hold digits: ids, hashes, token ids and the document's exact-integer / exact-decimal fields. */
const TEXT_FIELD =
  /(^id$|_id$|_ids$|_micro$|_base_units$|^hash$|_hash$|^amount$|^price_usdc$|^token_balance$|^cursor$|^next_cursor$|_key$|^epoch$)/;
const NUMERIC_TEXT = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

export interface Breach {
  path: string;
  value: unknown;
}

/** Every number with more than 6 decimals and every numeric string outside TEXT_FIELD, by path. */
export function breaches(value: unknown, path = '$', field = ''): Breach[] {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return [{ path, value }];
    const text = String(value);
    const decimals = /e-/.test(text)
      ? Number(text.split('e-')[1]) + (text.split('e')[0]!.split('.')[1]?.length ?? 0)
      : (text.split('.')[1]?.length ?? 0);
    return decimals > 6 ? [{ path, value }] : [];
  }
  if (typeof value === 'string') return NUMERIC_TEXT.test(value) && !TEXT_FIELD.test(field) ? [{ path, value }] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => breaches(item, `${path}[${i}]`, field));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => breaches(item, `${path}.${key}`, key));
  return [];
}
