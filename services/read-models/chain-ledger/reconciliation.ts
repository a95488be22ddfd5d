/**
 * Every Data API trade should be an on-chain taker fill: same transaction, wallet, token and size
 * (shares in micro-units). Per UTC hour inside the chain's coverage this job counts the Data API trades
 * that match (`matched`), those that do not (`unmatched`: a Data API trade the chain does not have,
 * or has with other numbers) and the chain taker fills the Data API never listed (`chain_only`: its
 * feed missed them). Hours are recomputed while they can still change (the last few hours of
 * coverage) and served by /v1/health and /metrics.
 */
import type { Logger } from '../../logger.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { runPeriodically } from '../../shared/periodic.js';
import { HOUR_MS } from '../../shared/time.js';
import type { RunningJob } from '../read-model.js';
import { chainCoverage, ONE_PER_TRADE } from './queries.js';

/** Hours recomputed each run: the Data API indexes late and a backfill can fill an hour later. */
const RECOMPUTED_HOURS = 6;

export async function reconcileHours(store: AnalyticsStore, nowMs: number = Date.now()): Promise<number> {
  const coverage = await chainCoverage(store);
  if (!coverage) return 0;
  // Only whole hours the chain covers completely.
  const firstHour = Math.ceil(coverage.firstMs / HOUR_MS) * HOUR_MS;
  const endHour = Math.floor((coverage.lastMs + 1) / HOUR_MS) * HOUR_MS;
  const fromHour = Math.max(firstHour, endHour - RECOMPUTED_HOURS * HOUR_MS);
  if (endHour <= fromHour) return 0;
  const rows = await store.query<{ hour: string; data_api: string; matched: string; chain_only: string }>(
    `WITH
       api AS (SELECT DISTINCT toStartOfHour(ts) AS hour, tx_hash, wallet, asset_id, toUInt64(round(size * 1000000)) AS shares
                 FROM trades WHERE ts >= fromUnixTimestamp64Milli({from:Int64}) AND ts < fromUnixTimestamp64Milli({to:Int64})),
       chain AS (SELECT DISTINCT toStartOfHour(block_time) AS hour, tx_hash, wallet, asset_id, shares_micro AS shares
                   FROM chain_ledger WHERE ${ONE_PER_TRADE}
                    AND block_time >= fromUnixTimestamp64Milli({from:Int64}) AND block_time < fromUnixTimestamp64Milli({to:Int64}))
     SELECT toString(hour) AS hour, toString(countIf(in_api)) AS data_api, toString(countIf(in_api AND in_chain)) AS matched,
            toString(countIf(in_chain AND NOT in_api)) AS chain_only
       FROM (SELECT hour, tx_hash, wallet, asset_id, shares, max(side = 'api') AS in_api, max(side = 'chain') AS in_chain
               FROM (SELECT *, 'api' AS side FROM api UNION ALL SELECT *, 'chain' AS side FROM chain)
              GROUP BY hour, tx_hash, wallet, asset_id, shares)
      GROUP BY hour`,
    { from: fromHour, to: endHour },
  );
  const byHour = new Map(rows.map((r) => [Date.parse(`${r.hour.replace(' ', 'T')}Z`), r]));
  const out = [];
  for (let hour = fromHour; hour < endHour; hour += HOUR_MS) {
    const r = byHour.get(hour);
    const dataApi = Number(r?.data_api ?? 0);
    const matched = Number(r?.matched ?? 0);
    out.push({
      hour: new Date(hour).toISOString(),
      data_api: dataApi,
      matched,
      unmatched: dataApi - matched,
      chain_only: Number(r?.chain_only ?? 0),
      computed_at: new Date(nowMs).toISOString(),
    });
  }
  await store.insert('trade_reconciliation', out);
  return out.length;
}

export function startReconciliation(store: AnalyticsStore, intervalMs: number, logger: Logger): RunningJob {
  return runPeriodically(
    async () => {
      await reconcileHours(store);
    },
    intervalMs,
    (error) => logger.warn({ err: error }, 'trade reconciliation failed; retried at the next run'),
  );
}
