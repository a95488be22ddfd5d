/**
 * A reorg's block_retracted events void every chain_ledger row of (block hash, ledger group). Deleting
 * the rows is not enough: the candle views already added them, and an aggregate cannot take back a
 * high or a low. So the buckets those rows fed are rebuilt from chain_ledger without them, and so are
 * the markets' closes the trader reports read (rebuildMarketCloses; the same rebuild serves events an
 * interrupted insert stored without their views, rebuildViewsOf); then the rows are deleted. In that
 * order every step can run again after a crash (the batch is redelivered until its offsets commit):
 * while the voided rows exist the rebuild finds the same buckets and markets, and once they are gone
 * the rebuild was complete.
 *
 * No other writer touches those buckets meanwhile: a market's fills all travel on its ledger group's
 * partition, which one sink consumer handles one batch at a time.
 */
import type { ChainLedgerEvent } from '../../events/types.generated.js';
import type { AnalyticsStore, QueryParams } from '../../ports/analytics-store.js';
import { ONE_PER_TRADE } from './queries.js';

export const CHAIN_CANDLE_TABLES = { '5m': 'chain_candles_5m', '1h': 'chain_candles_1h', '1d': 'chain_candles_1d' } as const;

const BUCKET_OF = { '5m': 'toStartOfFiveMinutes', '1h': 'toStartOfHour', '1d': 'toStartOfDay' } as const;

// The candle views' filter (migration 0078).
const TAKER_FILLS = ONE_PER_TRADE;
const VOIDED = `concat(block_hash, '|', ledger_group) IN {voided:Array(String)}`;

export async function applyRetractions(store: AnalyticsStore, events: readonly ChainLedgerEvent[]): Promise<void> {
  const voided = [...new Set(events.filter((e) => e.kind === 'block_retracted').map((e) => `${e.block_hash}|${e.ledger_group}`))];
  if (voided.length === 0) return;
  await rebuildViews(store, `${TAKER_FILLS} AND ${VOIDED}`, { voided }, voided);
  await store.command(`ALTER TABLE chain_ledger DELETE WHERE kind != 'block_retracted' AND ${VOIDED} SETTINGS mutations_sync = 2`, {
    voided,
  });
}

/**
 * The views' rows fed by replayed events (read-model.ts `unseen`: stored by an insert whose views did
 * not all run): their candle buckets and their markets' closes rebuilt from chain_ledger, and the
 * coverage given their span again (a min and a max: adding it twice changes nothing).
 */
export async function rebuildViewsOf(store: AnalyticsStore, replayed: readonly ChainLedgerEvent[]): Promise<void> {
  if (replayed.length === 0) return;
  const times = replayed.map((e) => e.block_time_ms);
  const params = { ids: [...new Set(replayed.map((e) => e.event_id))], from: Math.min(...times), to: Math.max(...times) };
  const scope = `block_time BETWEEN fromUnixTimestamp64Milli({from:Int64}) AND fromUnixTimestamp64Milli({to:Int64}) AND event_id IN {ids:Array(String)}`;
  await rebuildViews(store, `${TAKER_FILLS} AND ${scope}`, params, []);
  await store.command(
    `INSERT INTO chain_coverage
     SELECT source, min(block_time), max(block_time), min(block_number), max(block_number) FROM chain_ledger WHERE ${scope} GROUP BY source
     SETTINGS insert_deduplicate = 0`,
    params,
  );
}

/**
 * The candle buckets and the markets' closes holding the chain_ledger rows `affected` selects, rebuilt
 * from chain_ledger without the voided rows.
 */
async function rebuildViews(store: AnalyticsStore, affected: string, params: QueryParams, voided: string[]): Promise<void> {
  for (const [interval, table] of Object.entries(CHAIN_CANDLE_TABLES) as Array<[keyof typeof BUCKET_OF, string]>) {
    const bucketOf = BUCKET_OF[interval];
    const buckets = await store.query<{ key: string }>(
      `SELECT DISTINCT concat(market_id, '|', toString(toUnixTimestamp(${bucketOf}(block_time)))) AS key FROM chain_ledger WHERE ${affected}`,
      params,
    );
    if (buckets.length === 0) continue;
    const keys = buckets.map((row) => row.key);
    const inBuckets = `concat(market_id, '|', toString(toUnixTimestamp(bucket))) IN {keys:Array(String)}`;
    // Deleted and inserted again in one turn of the engine: no read finds the buckets gone meanwhile.
    await store.serially(async () => {
      await store.command(`ALTER TABLE ${table} DELETE WHERE ${inBuckets} SETTINGS mutations_sync = 2`, { keys });
      // insert_deduplicate = 0: an identical rebuild after a crash must land again, not be taken for a retry.
      await store.command(
        `INSERT INTO ${table}
         SELECT market_id, ${bucketOf}(block_time) AS bucket,
                argMinState(yes_price, (block_number, log_index)), max(yes_price), min(yes_price),
                argMaxState(yes_price, (block_number, log_index)),
                sum(usdc_micro), sum(shares_micro), count()
           FROM chain_ledger
          WHERE ${TAKER_FILLS} AND NOT (${VOIDED})
            AND concat(market_id, '|', toString(toUnixTimestamp(${bucketOf}(block_time)))) IN {keys:Array(String)}
          GROUP BY market_id, bucket
         SETTINGS insert_deduplicate = 0`,
        { keys, voided },
      );
    });
  }
  const markets = await store.query<{ market_id: string }>(`SELECT DISTINCT market_id FROM chain_ledger WHERE ${affected}`, params);
  await rebuildMarketCloses(
    store,
    markets.map((row) => row.market_id),
    voided,
  );
}

/**
 * The trader reports' closes (market_closes, positions migration 0055) of the markets whose taker fills
 * the reorg voided: deleted and summed again from chain_ledger without the voided fills and from the
 * Data API's trades, as the views sum them. A Data API trade landing meanwhile can be counted twice
 * (its view row after the delete, and the sum), which only raises the market's count. The count can
 * also fall (the voided fills are no longer counted), so a stored PnL curve holding such a market
 * could meet its old count again after later fills: the stored curves that hold one are deleted, after
 * the rebuild, and the next report or valuation pass values them anew (trader-stats/stored-curve.ts).
 */
export async function rebuildMarketCloses(store: AnalyticsStore, markets: string[], voided: string[]): Promise<void> {
  if (markets.length === 0) return;
  // Deleted and summed again in one turn of the engine: no read finds the markets' closes gone meanwhile.
  await store.serially(async () => {
    await store.command('ALTER TABLE market_closes DELETE WHERE market_id IN {markets:Array(String)} SETTINGS mutations_sync = 2', {
      markets,
    });
    await store.command(
      `INSERT INTO market_closes (market_id, day, close, inputs)
       SELECT market_id, day, argMaxState(yes, key), count() FROM (
         SELECT market_id, toDate(block_time, 'UTC') AS day, yes_price AS yes,
                (toDate(block_time, 'UTC'), toUInt8(1), block_number, toInt64(log_index)) AS key
           FROM chain_ledger WHERE ${TAKER_FILLS} AND NOT (${VOIDED}) AND market_id IN {markets:Array(String)}
         UNION ALL
         SELECT market_id, toDate(ts, 'UTC') AS day, yes_price AS yes,
                (toDate(ts, 'UTC'), toUInt8(0), toUInt64(toUnixTimestamp64Milli(ts)), toInt64(bitShiftRight(cityHash64(trade_id), 1))) AS key
           FROM trades WHERE market_id IN {markets:Array(String)})
       GROUP BY GROUPING SETS ((market_id, day), (market_id))
       SETTINGS insert_deduplicate = 0`,
      { markets, voided },
    );
  });
  // The delete is a mutation no view sees, and a market left without any close inserts nothing above;
  // a marks refresh run between the retraction's own insert and the delete would keep the voided
  // close. So the marks refresher (marks/market-marks.ts) is told here, after the rebuild.
  await store.command('INSERT INTO market_touches (market_id, touched_at) SELECT arrayJoin({markets:Array(String)}), now64(3)', {
    markets,
  });
  await store.command('ALTER TABLE trader_curve DELETE WHERE hasAny(markets, {markets:Array(String)}) SETTINGS mutations_sync = 2', {
    markets,
  });
}
