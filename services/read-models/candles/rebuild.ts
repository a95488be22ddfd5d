/**
 * The Data API candles and closes fed by replayed trades (read-model.ts `unseen`: stored by an insert
 * whose views did not all run): their buckets rebuilt from the trades table as the views sum them, and
 * their markets' closes as a retraction rebuilds them. No other writer touches those buckets meanwhile:
 * a market's trades travel on one partition of the trades topic, which one sink consumer handles one
 * batch at a time.
 */
import type { TradeExecuted } from '../../events/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { rebuildMarketCloses } from '../chain-ledger/retraction.js';

const CANDLE_TABLES = { '5m': 'candles_5m', '1h': 'candles_1h', '1d': 'candles_1d' } as const;
const BUCKET_OF = { '5m': 'toStartOfFiveMinutes', '1h': 'toStartOfHour', '1d': 'toStartOfDay' } as const;

export async function rebuildTradeViewsOf(store: AnalyticsStore, replayed: readonly TradeExecuted[]): Promise<void> {
  if (replayed.length === 0) return;
  const times = replayed.map((t) => t.timestamp_ms);
  const params = { ids: [...new Set(replayed.map((t) => t.event_id))], from: Math.min(...times), to: Math.max(...times) };
  const scope = `ts BETWEEN fromUnixTimestamp64Milli({from:Int64}) AND fromUnixTimestamp64Milli({to:Int64}) AND trade_id IN {ids:Array(String)}`;
  for (const [interval, table] of Object.entries(CANDLE_TABLES) as Array<[keyof typeof BUCKET_OF, string]>) {
    const bucketOf = BUCKET_OF[interval];
    const key = (time: string) => `concat(market_id, '|', toString(toUnixTimestamp(${bucketOf}(${time}))))`;
    const keys = (await store.query<{ key: string }>(`SELECT DISTINCT ${key('ts')} AS key FROM trades WHERE ${scope}`, params)).map(
      (row) => row.key,
    );
    if (keys.length === 0) continue;
    // Deleted and inserted again in one turn of the engine: no read finds the buckets gone meanwhile.
    await store.serially(async () => {
      await store.command(
        `ALTER TABLE ${table} DELETE WHERE concat(market_id, '|', toString(toUnixTimestamp(bucket))) IN {keys:Array(String)} SETTINGS mutations_sync = 2`,
        { keys },
      );
      // insert_deduplicate = 0: an identical rebuild after a crash must land again, not be taken for a retry.
      await store.command(
        `INSERT INTO ${table}
         SELECT market_id, ${bucketOf}(ts) AS bucket, argMinState(yes_price, ts), max(yes_price), min(yes_price),
                argMaxState(yes_price, ts), sum(size_usdc), sum(size), count()
           FROM trades WHERE ${key('ts')} IN {keys:Array(String)}
          GROUP BY market_id, bucket
         SETTINGS insert_deduplicate = 0`,
        { keys },
      );
    });
  }
  const markets = await store.query<{ market_id: string }>(`SELECT DISTINCT market_id FROM trades WHERE ${scope}`, params);
  await rebuildMarketCloses(
    store,
    markets.map((row) => row.market_id),
    [],
  );
}
