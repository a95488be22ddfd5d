/**
 * GET /markets/:id/ohlcv (candles of the YES price) and /volume/timeseries (platform volume per UTC
 * day). A bucket comes from one source: the chain candles (on-chain taker fills) when the chain
 * source's coverage holds the whole bucket, else the Data API candles (docs/CHAIN.md), so each match
 * is counted once whichever sources run.
 */
import { queryOf } from '../../http/query.js';
import { Router } from 'express';
import { success } from '../../http/envelope.js';
import { ApiError } from '../../http/errors.js';
import { timeParam } from '../../http/time-params.js';
import type { Candle, VolumePoint } from '../../http/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { DAY_MS, iso } from '../../shared/time.js';
import { chainCoverage } from '../chain-ledger/queries.js';
import { CHAIN_CANDLE_TABLES } from '../chain-ledger/retraction.js';
import { requireMarket } from '../markets/queries.js';
import { servedAmount } from '../../shared/decimal.js';

export const INTERVAL_TABLES = { '5m': 'candles_5m', '1h': 'candles_1h', '1d': 'candles_1d' } as const;
export const INTERVAL_SECONDS = { '5m': 300, '1h': 3600, '1d': 86_400 } as const;

/** Buckets inside [covered_from, covered_to]: starting at or after the first published block, ending at or before the last. */
export const CHAIN_BUCKET = `(toUnixTimestamp(bucket) * 1000 >= {covered_from:Int64} AND (toUnixTimestamp(bucket) + {seconds:UInt32}) * 1000 <= {covered_to:Int64})`;

export function candleRoutes(store: AnalyticsStore): Router {
  const router = Router();

  router.get('/markets/:id/ohlcv', async (request, response) => {
    const market = await requireMarket(store, request);
    const query = queryOf(request, 'getMarketOhlcv');
    const interval = query.interval;
    const limit = query.limit;
    const from = timeParam('from', query.from) ?? null;
    const to = timeParam('to', query.to) ?? null;
    if (from !== null && to !== null && from >= to) throw ApiError.badRequest('from: must be before to');
    const coverage = await chainCoverage(store);
    const range = `${from !== null ? 'AND bucket >= toDateTime({from:Int64} / 1000)' : ''} ${to !== null ? 'AND bucket < toDateTime({to:Int64} / 1000)' : ''}`;
    const chain = coverage
      ? `SELECT toUnixTimestamp(bucket) * 1000 AS bucket_ms, argMinMerge(open) AS open, max(high) AS high, min(low) AS low,
                argMaxMerge(close) AS close, sum(volume_usdc_micro) / 1e6 AS volume_usdc, sum(volume_shares_micro) / 1e6 AS volume_shares,
                sum(trade_count) AS trade_count, 'chain' AS origin
           FROM ${CHAIN_CANDLE_TABLES[interval]}
          WHERE market_id = {id:String} AND ${CHAIN_BUCKET} ${range}
          GROUP BY bucket ORDER BY bucket DESC LIMIT {limit:UInt32}`
      : null;
    const dataApi = `SELECT toUnixTimestamp(bucket) * 1000 AS bucket_ms, argMinMerge(open) AS open, max(high) AS high, min(low) AS low,
                argMaxMerge(close) AS close, sum(volume_usdc) AS volume_usdc, sum(volume_shares) AS volume_shares,
                sum(trade_count) AS trade_count, 'data_api' AS origin
           FROM ${INTERVAL_TABLES[interval]}
          WHERE market_id = {id:String} ${coverage ? `AND NOT ${CHAIN_BUCKET}` : ''} ${range}
          GROUP BY bucket ORDER BY bucket DESC LIMIT {limit:UInt32}`;
    const rows = await store.query<{
      bucket_ms: number;
      open: number;
      high: number;
      low: number;
      close: number;
      volume_usdc: number;
      volume_shares: number;
      trade_count: number;
      origin: 'chain' | 'data_api';
    }>(
      `SELECT * FROM (
         SELECT * FROM (${[chain, dataApi]
           .filter((q): q is string => q !== null)
           .map((q) => `(${q})`)
           .join(' UNION ALL ')})
         ORDER BY bucket_ms DESC LIMIT {limit:UInt32}
       ) ORDER BY bucket_ms ASC`,
      {
        id: market.market_id,
        limit,
        from: from ?? undefined,
        to: to ?? undefined,
        covered_from: coverage?.firstMs,
        covered_to: coverage?.lastMs,
        seconds: INTERVAL_SECONDS[interval],
      },
    );
    const candles: Candle[] = rows.map((r) => ({
      bucket_start: iso(r.bucket_ms),
      interval,
      open: servedAmount(r.open),
      high: servedAmount(r.high),
      low: servedAmount(r.low),
      close: servedAmount(r.close),
      volume_usdc: servedAmount(r.volume_usdc),
      volume_shares: servedAmount(r.volume_shares),
      trade_count: Number(r.trade_count),
      origin: r.origin,
    }));
    response.json(success(candles));
  });

  router.get('/volume/timeseries', async (request, response) => {
    const days = queryOf(request, 'getVolumeTimeseries').range_days;
    const coverage = await chainCoverage(store);
    // UTC days whatever the server's time zone: now() and toDate() would follow the server's.
    const window = "bucket >= toStartOfDay(now('UTC')) - toIntervalDay({days:UInt32} - 1)";
    const rows = await store.query<{ day: string; volume_usdc: number; trade_count: number }>(
      `SELECT day, sum(volume_usdc) AS volume_usdc, sum(trade_count) AS trade_count FROM (
         ${
           coverage
             ? `SELECT toString(toDate(bucket, 'UTC')) AS day, sum(volume_usdc_micro) / 1e6 AS volume_usdc, sum(trade_count) AS trade_count
                  FROM chain_candles_1d WHERE ${window} AND ${CHAIN_BUCKET} GROUP BY day
                UNION ALL`
             : ''
         }
         SELECT toString(toDate(bucket, 'UTC')) AS day, sum(volume_usdc) AS volume_usdc, sum(trade_count) AS trade_count
           FROM candles_1d WHERE ${window} ${coverage ? `AND NOT ${CHAIN_BUCKET}` : ''} GROUP BY day
       ) GROUP BY day`,
      { days, covered_from: coverage?.firstMs, covered_to: coverage?.lastMs, seconds: INTERVAL_SECONDS['1d'] },
    );
    const byDay = new Map(rows.map((r) => [r.day, r]));
    const today = Date.parse(new Date().toISOString().slice(0, 10));
    const points: VolumePoint[] = Array.from({ length: days }, (_, i) => {
      const day = iso(today - (days - 1 - i) * DAY_MS).slice(0, 10);
      const row = byDay.get(day);
      return { date: day, volume_usdc: row ? servedAmount(row.volume_usdc) : 0, trade_count: row ? Number(row.trade_count) : 0 };
    });
    response.json(success(points));
  });

  return router;
}
