/** Display formatting. The API's numbers are shown as served (prices 0..1 as cents-style decimals, USDC amounts grouped). */
const usd = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2, minimumFractionDigits: 2 });
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** The sign before the currency symbol: -$31.95, not $-31.95 (and no "-$0.00" for a loss that rounds away). */
const signedUsd = (value: number, format: Intl.NumberFormat): string => {
  const text = format.format(Math.abs(value));
  return value < 0 && /[1-9]/.test(text) ? `-$${text}` : `$${text}`;
};
export const formatUsd = (value: number | null | undefined): string =>
  value === null || value === undefined ? '—' : signedUsd(value, usd);
export const formatCompactUsd = (value: number | null | undefined): string =>
  value === null || value === undefined ? '—' : signedUsd(value, compact);
/** A USDC axis label: compact past 10,000 ($12.3K, -$1.2M), else to the cent. */
export const formatAxisUsd = (value: number): string => signedUsd(value, Math.abs(value) >= 10_000 ? compact : usd);
export const formatInteger = (value: number | null | undefined): string =>
  value === null || value === undefined ? '—' : integer.format(value);
export const formatShares = (value: number): string => new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }).format(value);
/** A price in 0..1, to 3 decimals (the CLOB tick is 0.001 at the extremes). */
export const formatPrice = (value: number | null | undefined): string => (value === null || value === undefined ? '—' : value.toFixed(3));
export const formatPct = (value: number | null | undefined): string =>
  value === null || value === undefined ? '—' : `${value.toFixed(1)}%`;

/** ISO timestamp as "2025-01-02 13:04:05 UTC" (the API's times are UTC; so is the display). */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

export function shortId(value: string, head = 6, tail = 4): string {
  return value.length <= head + tail + 1 ? value : `${value.slice(0, head)}…${value.slice(-tail)}`;
}
