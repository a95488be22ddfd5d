/**
 * Time formatting in one place. Epoch milliseconds travel as numbers (events: `<name>_ms`; queries
 * select `toUnixTimestamp64Milli(col) AS <col>_ms`); every timestamp the API serves is ISO 8601 UTC
 * with milliseconds. ClickHouse may hand 64-bit integers over as strings, hence Number().
 */
export function iso(ms: number | string): string {
  return new Date(Number(ms)).toISOString();
}

export function isoOrNull(ms: number | string | null | undefined): string | null {
  return ms === null || ms === undefined ? null : iso(ms);
}

export const DAY_MS = 86_400_000;

export const startOfUtcDay = (ms: number): number => Math.floor(ms / DAY_MS) * DAY_MS;
export const HOUR_MS = 3_600_000;
