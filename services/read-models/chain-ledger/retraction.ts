/**
 * A reorg's block_retracted events void every chain_ledger row of (block hash, ledger group). Deleting
 * the rows is not enough: the candle views already added them, and an aggregate cannot take back a
 * high or a low. So the buckets those rows fed are rebuilt from chain_ledger without them, then the
 * rows are deleted. In that order every step can run again after a crash (the batch is redelivered
 * until its offsets commit): while the voided rows exist the rebuild finds the same buckets, and once
 * they are gone the rebuild was complete.
 *
 * No other writer touches those buckets meanwhile: a market's fills all travel on its ledger group's
 * partition, which one sink consumer handles one batch at a time.
 */
import type { ChainLedgerEvent } from '../../events/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';

export const CHAIN_CANDLE_TABLES = { '5m': 'chain_candles_5m', '1h': 'chain_candles_1h', '1d': 'chain_candles_1d' } as const;

const BUCKET_OF = { '5m': 'toStartOfFiveMinutes', '1h': 'toStartOfHour', '1d': 'toStartOfDay' } as const;

const TAKER_FILLS = `kind = 'fill' AND role = 'taker'`;
const VOIDED = `concat(block_hash, '|', ledger_group) IN {voided:Array(String)}`;

export async function applyRetractions(store: AnalyticsStore, events: readonly ChainLedgerEvent[]): Promise<void> {
  const voided = [...new Set(events.filter((e) => e.kind === 'block_retracted').map((e) => `${e.block_hash}|${e.ledger_group}`))];
  if (voided.length === 0) return;
  for (const [interval, table] of Object.entries(CHAIN_CANDLE_TABLES) as Array<[keyof typeof BUCKET_OF, string]>) {
    const bucketOf = BUCKET_OF[interval];
    const affected = await store.query<{ key: string }>(
      `SELECT DISTINCT concat(market_id, '|', toString(toUnixTimestamp(${bucketOf}(block_time)))) AS key
         FROM chain_ledger WHERE ${TAKER_FILLS} AND ${VOIDED}`,
      { voided },
    );
    if (affected.length === 0) continue;
    const keys = affected.map((row) => row.key);
    const inBuckets = `concat(market_id, '|', toString(toUnixTimestamp(bucket))) IN {keys:Array(String)}`;
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
  }
  await store.command(`ALTER TABLE chain_ledger DELETE WHERE kind != 'block_retracted' AND ${VOIDED} SETTINGS mutations_sync = 2`, {
    voided,
  });
}
