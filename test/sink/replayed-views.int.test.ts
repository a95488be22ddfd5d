/**
 * A table insert and its views' inserts are not one transaction: a crash (or a failed view) between
 * them leaves rows stored that the candle and close views never counted, and the redelivered batch
 * finds them stored. The e2e chain test met it after a kill -9: chain_ledger held every fill and the
 * 5m candles of seven markets missed the ones of the insert the kill interrupted. Here the views'
 * rows are deleted after a first sink stored everything (what such a crash leaves), and a sink
 * reading the same records again (a fresh consumer group: the same records at the same positions, as
 * a redelivery has them) rebuilds them; the same events published again at new positions (a
 * re-publication) change nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { openChdbStore } from '../../services/analytics/clickhouse-store.js';
import { migrate } from '../../services/analytics/migrate.js';
import type { ChainLedgerEvent, TradeExecuted } from '../../services/events/types.generated.js';
import { EventPublisher } from '../../services/events/publisher.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { allTopicSpecs, STREAMS, topicSchemas } from '../../services/read-models/registry.js';
import { type SinkStats, sinkLag, startSink } from '../../services/sink/sink-service.js';
import { chainFill, conditionId, T0, tradeExecuted, txHash } from '../support/events.js';
import { waitFor } from '../support/http.js';

const silent = pino({ level: 'silent' });
let log: EventLog;
let store: AnalyticsStore;
let publisher: EventPublisher;

beforeAll(async () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-replayed-'));
  log = await openFileEventLog({ directory: path.join(directory, 'log'), schemas: topicSchemas(), fsync: false, pollIntervalMs: 20 });
  await log.createTopics(allTopicSpecs());
  store = await openChdbStore({ path: path.join(directory, 'chdb'), database: 'replayed' });
  await migrate(store);
  publisher = new EventPublisher(log);
}, 60_000);
afterAll(async () => {
  await log.close();
  await store.close();
});

const MINUTE = 60_000;
const markets = [conditionId(11), conditionId(12), conditionId(13)];

/** 30 taker fills (and their makers) over three markets and about 2.5 hours, at varied prices and sizes. */
const fills: ChainLedgerEvent[] = Array.from({ length: 30 }, (_, i) => {
  const market_id = markets[i % 3]!;
  const tx_hash = txHash(100 + i);
  const yes = 0.3 + (i % 7) * 0.05;
  const taker = chainFill({
    market_id,
    tx_hash,
    log_index: 1,
    block_number: 80_000_000 + i * 150,
    block_hash: `0x${(i + 1).toString(16).padStart(64, '0')}`,
    block_time_ms: T0 + i * 5 * MINUTE + (i % 4) * 17_000,
    fill: { yes_price: yes, price: yes, shares_micro: String((i + 1) * 1_000_000), usdc_micro: String(Math.round((i + 1) * yes * 1e6)) },
  });
  return [
    taker,
    { ...taker, event_id: `137:${tx_hash}:2`, log_index: 2, fill: { ...taker.fill!, role: 'maker' as const, side: 'sell' as const } },
  ];
}).flat();

const trades: TradeExecuted[] = Array.from({ length: 30 }, (_, i) =>
  tradeExecuted({
    event_id: `replayed-trade-${i}`,
    market_id: markets[i % 3]!,
    yes_price: 0.2 + (i % 5) * 0.1,
    price: 0.2 + (i % 5) * 0.1,
    size: i + 1,
    size_usdc: (i + 1) * (0.2 + (i % 5) * 0.1),
    timestamp_ms: T0 + i * 5 * MINUTE + 1_000,
  }),
);

const VIEW_TABLES = ['chain_candles_5m', 'chain_candles_1h', 'chain_candles_1d', 'candles_5m', 'candles_1h', 'candles_1d', 'market_closes'];

/** What every view holds, as text (so a changed figure shows in the diff). */
async function views(): Promise<Record<string, string[]>> {
  const read = async (sql: string) => (await store.query<{ r: string }>(sql)).map((row) => row.r);
  const candles = (table: string, usdc: string, shares: string) =>
    read(`SELECT concat(market_id, ' ', toString(bucket), ' o', toString(argMinMerge(open)), ' h', toString(max(high)), ' l', toString(min(low)),
                 ' c', toString(argMaxMerge(close)), ' v', toString(sum(${usdc})), ' s', toString(sum(${shares})), ' n', toString(sum(trade_count))) AS r
            FROM ${table} GROUP BY market_id, bucket ORDER BY market_id, bucket`);
  const out: Record<string, string[]> = {};
  for (const interval of ['5m', '1h', '1d']) {
    out[`chain_candles_${interval}`] = await candles(`chain_candles_${interval}`, 'volume_usdc_micro', 'volume_shares_micro');
    out[`candles_${interval}`] = await candles(`candles_${interval}`, 'volume_usdc', 'volume_shares');
  }
  out.market_closes = await read(
    `SELECT concat(market_id, ' ', toString(day), ' c', toString(argMaxMerge(close)), ' n', toString(sum(inputs))) AS r FROM market_closes GROUP BY market_id, day ORDER BY market_id, day`,
  );
  out.chain_coverage = await read(
    `SELECT concat(source, ' ', toString(min(first_time)), ' ', toString(max(last_time)), ' ', toString(min(first_block)), ' ', toString(max(last_block))) AS r FROM chain_coverage GROUP BY source`,
  );
  return out;
}

async function drain(group: string): Promise<SinkStats> {
  const sink = await startSink(log, store, silent, { groupId: group });
  try {
    await waitFor(
      async () => Object.values(await sinkLag(log, [STREAMS.chainLedger.topic, STREAMS.trades.topic], group)).every((lag) => lag === 0),
      60_000,
      `sink ${group} to drain the log`,
      50,
    );
    return sink.stats;
  } finally {
    await sink.stop();
  }
}

test('rows stored without their views are counted once the batch is read again; a re-publication changes nothing', async () => {
  await publisher.publish('chainLedger', fills);
  await publisher.publish('trades', trades);
  expect((await drain('first')).replayed).toMatchObject({ chain_ledger: 0, trades: 0 });
  const counted = await views();
  // The views hold every fill and trade once (each market's taker fills and Data API trades).
  expect(counted.chain_candles_1d!.reduce((n, r) => n + Number(r.split(' n')[1]), 0)).toBe(30);
  expect(counted.candles_1d!.reduce((n, r) => n + Number(r.split(' n')[1]), 0)).toBe(30);
  expect(counted.chain_coverage).toHaveLength(1);

  // What a crash between the table insert and its views leaves: the rows, none of the views' rows.
  for (const table of [...VIEW_TABLES, 'chain_coverage']) await store.command(`TRUNCATE TABLE ${table}`);
  // Every record is read again at its position: 60 ledger events and 30 trades replayed.
  expect((await drain('second')).replayed).toMatchObject({ chain_ledger: 60, trades: 30 });
  expect(await views()).toEqual(counted);

  // The same events again at new log positions: stored already, not replayed, counted once.
  await publisher.publish('chainLedger', fills);
  await publisher.publish('trades', trades);
  const again = await drain('second');
  expect(again.replayed).toMatchObject({ chain_ledger: 0, trades: 0 });
  expect(again.already_stored).toMatchObject({ chain_ledger: 60, trades: 30 });
  expect(await views()).toEqual(counted);
  const [rows] = await store.query<{ ledger: string; trades: string }>(
    'SELECT (SELECT toString(count()) FROM chain_ledger) AS ledger, (SELECT toString(count()) FROM trades) AS trades',
  );
  expect(rows).toEqual({ ledger: '60', trades: '30' });
}, 120_000);
