/** Reads of the chain read model shared by the trades and candle routes and by health. */
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { chainLedger } from './streams.js';

/**
 * The one record of each trade: a match's taker fill, or a legacy AMM trade (role amm, whose pool is no
 * wallet). What candles, closes, the trades feed's default and the reconciliation with the Data API count.
 */
export const ONE_PER_TRADE = `kind = 'fill' AND role IN ('taker', 'amm')`;

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
 * event, whichever partitions the sink has written so far. Where the source states what it read
 * without a hole (chain_contiguous), the span starts no earlier than that statement: a history fill
 * reading backwards publishes a range's first events before its last ones (and to every partition),
 * so the first event written says nothing yet about the rest of its range. What the routes serve
 * (candles and the trades feed take a bucket or a trade from the chain only inside this span).
 */
export async function chainCoverage(store: AnalyticsStore): Promise<ChainCoverage | null> {
  // Every page of the trades feed and every candle request asks; one answer serves for half a second.
  const cached = coverageCache.get(store);
  if (cached && cached.expiresAt > Date.now()) return cached.coverage;
  const [published, contiguous] = await Promise.all([readCoverage(store), contiguousCoverage(store)]);
  const coverage = published && contiguous ? withinStatement(published, contiguous) : published;
  coverageCache.set(store, { coverage, expiresAt: Date.now() + COVERAGE_TTL_MS });
  return coverage;
}

/** The published span from no earlier than the stated contiguous range's first block; null when nothing is left. */
export function withinStatement(published: ChainCoverage, contiguous: ContiguousCoverage): ChainCoverage | null {
  if (contiguous.fromBlock <= published.firstBlock) return published;
  const clamped = { ...published, firstBlock: contiguous.fromBlock, firstMs: Math.max(published.firstMs, contiguous.fromMs) };
  return clamped.firstBlock <= clamped.lastBlock && clamped.firstMs <= clamped.lastMs ? clamped : null;
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

/** The follower's stated contiguous coverage (chain_contiguous): every block from fromBlock to toBlock is read, without a hole. */
export interface ContiguousCoverage {
  fromBlock: number;
  fromMs: number;
  toBlock: number;
  toMs: number;
  /** Where the configured contracts' history starts: the coverage is whole from there. */
  historyStartBlock: number;
}

/**
 * The block range the chain source states it has read without a hole, up to the lowest partition's
 * latest statement; null until every partition of the ledger topic has one (a chain source that
 * never ran, or ran before statements existed). The first block is the highest any partition states
 * (they agree but for a partition the sink has not caught up on).
 */
export async function contiguousCoverage(store: AnalyticsStore): Promise<ContiguousCoverage | null> {
  const cached = contiguousCache.get(store);
  if (cached && cached.expiresAt > Date.now()) return cached.coverage;
  const [row] = await store.query<{
    from_block: string;
    from_ms: string;
    to_block: string;
    to_ms: string;
    history_start: string;
    partitions: string;
  }>(
    `SELECT toString(max(f)) AS from_block, toUnixTimestamp64Milli(argMax(ft, f)) AS from_ms, toString(min(l)) AS to_block,
            toUnixTimestamp64Milli(min(lt)) AS to_ms, toString(max(h)) AS history_start, toString(count()) AS partitions
       FROM (SELECT ledger_group, argMax(from_block, last_block) AS f, argMax(from_time, last_block) AS ft,
                    argMax(history_start_block, last_block) AS h, max(last_block) AS l, max(last_time) AS lt
               FROM chain_contiguous GROUP BY ledger_group)`,
  );
  const coverage =
    !row || Number(row.partitions) < chainLedger.partitions
      ? null
      : {
          fromBlock: Number(row.from_block),
          fromMs: Number(row.from_ms),
          toBlock: Number(row.to_block),
          toMs: Number(row.to_ms),
          historyStartBlock: Number(row.history_start),
        };
  contiguousCache.set(store, { coverage, expiresAt: Date.now() + COVERAGE_TTL_MS });
  return coverage;
}

const contiguousCache = new WeakMap<AnalyticsStore, { coverage: ContiguousCoverage | null; expiresAt: number }>();

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
