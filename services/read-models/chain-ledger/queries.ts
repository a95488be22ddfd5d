/** Reads of the chain read model shared by the trades and candle routes and by health. */
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { chainLedger } from './streams.js';

/** The block-time span the chain source has published; null before it published anything. */
export interface ChainCoverage {
  firstMs: number;
  lastMs: number;
  firstBlock: number;
  lastBlock: number;
}

/**
 * From the first event the chain source published to the block every partition of the ledger topic
 * has a watermark for (the lowest of the partitions' latest): inside it, chain_ledger holds every
 * event, whichever partitions the sink has written so far.
 */
export async function chainCoverage(store: AnalyticsStore): Promise<ChainCoverage | null> {
  // Every page of the trades feed and every candle request asks; one answer serves for half a second.
  const cached = coverageCache.get(store);
  if (cached && cached.expiresAt > Date.now()) return cached.coverage;
  const coverage = await readCoverage(store);
  coverageCache.set(store, { coverage, expiresAt: Date.now() + COVERAGE_TTL_MS });
  return coverage;
}

const COVERAGE_TTL_MS = 500;
const coverageCache = new WeakMap<AnalyticsStore, { coverage: ChainCoverage | null; expiresAt: number }>();

/** The coverage as stored now, not memoised (the position ledger must not fill the routes' memo with its own timing). */
export async function readCoverage(store: AnalyticsStore): Promise<ChainCoverage | null> {
  const [row] = await store.query<{
    first_ms: string;
    first_block: string;
    last_ms: string;
    last_block: string;
    events: string;
    partitions: string;
  }>(
    `SELECT toUnixTimestamp64Milli((SELECT min(first_time) FROM chain_coverage)) AS first_ms,
            toString((SELECT min(first_block) FROM chain_coverage)) AS first_block,
            toString((SELECT count() FROM chain_coverage)) AS events,
            toUnixTimestamp64Milli(min(last_time)) AS last_ms, toString(min(last_block)) AS last_block, toString(count()) AS partitions
       FROM (SELECT ledger_group, max(last_time) AS last_time, max(last_block) AS last_block FROM chain_watermarks GROUP BY ledger_group)`,
  );
  // Until every partition has a watermark, the lowest one says nothing about the others.
  if (!row || Number(row.events) === 0 || Number(row.partitions) < chainLedger.partitions) return null;
  const coverage = {
    firstMs: Number(row.first_ms),
    lastMs: Number(row.last_ms),
    firstBlock: Number(row.first_block),
    lastBlock: Number(row.last_block),
  };
  return coverage.lastMs >= coverage.firstMs ? coverage : null;
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
