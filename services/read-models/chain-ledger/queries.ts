/** Reads of the chain read model shared by the trades and candle routes and by health. */
import type { AnalyticsStore } from '../../ports/analytics-store.js';

/** The block-time span the chain source has published; null before it published anything. */
export interface ChainCoverage {
  firstMs: number;
  lastMs: number;
  firstBlock: number;
  lastBlock: number;
}

export async function chainCoverage(store: AnalyticsStore): Promise<ChainCoverage | null> {
  const [row] = await store.query<{ first_ms: string; last_ms: string; first_block: string; last_block: string; n: string }>(
    `SELECT toUnixTimestamp64Milli(min(first_time)) AS first_ms, toUnixTimestamp64Milli(max(last_time)) AS last_ms,
            toString(min(first_block)) AS first_block, toString(max(last_block)) AS last_block, toString(count()) AS n
       FROM chain_coverage`,
  );
  if (!row || Number(row.n) === 0) return null;
  return {
    firstMs: Number(row.first_ms),
    lastMs: Number(row.last_ms),
    firstBlock: Number(row.first_block),
    lastBlock: Number(row.last_block),
  };
}

export interface ReconciliationHour {
  hour: string;
  data_api: number;
  matched: number;
  unmatched: number;
  chain_only: number;
}

/** The newest `hours` reconciled hours, newest first. */
export async function reconciliationHours(store: AnalyticsStore, hours = 24): Promise<ReconciliationHour[]> {
  const rows = await store.query<{ hour_ms: string; data_api: string; matched: string; unmatched: string; chain_only: string }>(
    `SELECT toUnixTimestamp(hour) * 1000 AS hour_ms, data_api, matched, unmatched, chain_only
       FROM trade_reconciliation FINAL ORDER BY hour DESC LIMIT {hours:UInt32}`,
    { hours },
  );
  return rows.map((r) => ({
    hour: new Date(Number(r.hour_ms)).toISOString(),
    data_api: Number(r.data_api),
    matched: Number(r.matched),
    unmatched: Number(r.unmatched),
    chain_only: Number(r.chain_only),
  }));
}
