/**
 * A record the analytics store refuses for its data no longer stalls its partition: after bounded
 * retries the sink splits the batch, dead-letters the refused record with its coordinates, inserts
 * the rest (once), counts it as poison, and moves on. An outage is never mistaken for poison.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { openChdbStore } from '../../services/analytics/clickhouse-store.js';
import { migrate } from '../../services/analytics/migrate.js';
import { EventPublisher } from '../../services/events/publisher.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { allTopicSpecs, STREAMS, topicSchemas } from '../../services/read-models/registry.js';
import { sinkLag, sinkMetrics, startSink } from '../../services/sink/sink-service.js';
import { tradeExecuted } from '../support/events.js';
import { waitFor } from '../support/http.js';
import { readAll } from '../eventlog/helpers.js';

const silent = pino({ level: 'silent' });
let log: EventLog;
let store: AnalyticsStore;

beforeAll(async () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-poison-'));
  log = await openFileEventLog({ directory: path.join(directory, 'log'), schemas: topicSchemas(), fsync: false, pollIntervalMs: 20 });
  await log.createTopics(allTopicSpecs());
  store = await openChdbStore({ path: path.join(directory, 'chdb'), database: 'poison' });
  await migrate(store);
}, 60_000);
afterAll(async () => {
  await log.close();
  await store.close();
});

test('a refused record is dead-lettered after bounded retries; the rest of its batch is inserted once', async () => {
  const publisher = new EventPublisher(log);
  // outcome_index is an Avro int (-1 is valid there) but a UInt8 column: ClickHouse refuses the row.
  await publisher.publish('trades', [
    tradeExecuted({ event_id: 'good-1', outcome_index: 0 }),
    tradeExecuted({ event_id: 'poison', outcome_index: -1 }),
    tradeExecuted({ event_id: 'good-2', outcome_index: 1, outcome: 'No' }),
  ]);
  const sink = await startSink(log, store, silent, { groupId: 'poison-sink', poisonAfterFailures: 2 });
  try {
    await waitFor(
      async () => Object.values(await sinkLag(log, [STREAMS.trades.topic], 'poison-sink')).every((lag) => lag === 0),
      30_000,
      'the partition to move on',
    );
    const rows = await store.query<{ trade_id: string; n: number }>(
      'SELECT trade_id, count() AS n FROM trades GROUP BY trade_id ORDER BY trade_id',
    );
    expect(rows.map((r) => [r.trade_id, Number(r.n)])).toEqual([
      ['good-1', 1],
      ['good-2', 1],
    ]);
    expect(sink.stats.poison_records).toBeGreaterThanOrEqual(1);
    const letters = (await readAll(log, STREAMS.deadLetters.topic)).map((m) => STREAMS.deadLetters.codec.decode(m.value));
    const poison = letters.filter((l) => /refused by trades/.test(l.reason));
    expect(poison).toHaveLength(1);
    expect(poison[0]).toMatchObject({ stage: 'sink', origin: expect.stringMatching(/^tapeline\.trades\.v1\/\d+\/\d+$/) });
    expect(STREAMS.trades.codec.decode(Buffer.from(poison[0]!.raw, 'base64'))).toMatchObject({ event_id: 'poison' });
    const metrics = sinkMetrics(sink.stats);
    expect(metrics.find((f) => f.name === 'tapeline_sink_poison_records_total')!.samples[0]!.value).toBe(sink.stats.poison_records);
  } finally {
    await sink.stop();
  }
});

test('an outage is retried until it ends and never dead-lettered, however long it lasts', async () => {
  const publisher = new EventPublisher(log);
  await publisher.publish('trades', [tradeExecuted({ event_id: 'during-outage-1' }), tradeExecuted({ event_id: 'during-outage-2' })]);
  let failures = 8;
  const flaky: AnalyticsStore = {
    database: store.database,
    command: (sql, params) => store.command(sql, params),
    query: (sql, params, options) => store.query(sql, params, options),
    queryText: (sql, params, options) => store.queryText(sql, params, options),
    exportTo: (select, params, format, file) => store.exportTo(select, params, format, file),
    serially: (work) => store.serially(work),
    insert: (table, rows, options) => {
      if (failures > 0) {
        failures--;
        return Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' }));
      }
      return store.insert(table, rows, options);
    },
    insertJsonLines: (table, lines, options) => {
      if (failures > 0) {
        failures--;
        return Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' }));
      }
      return store.insertJsonLines(table, lines, options);
    },
    close: async () => undefined,
  };
  const before = (await readAll(log, STREAMS.deadLetters.topic)).length;
  const sink = await startSink(log, flaky, silent, { groupId: 'outage-sink', poisonAfterFailures: 2 });
  try {
    await waitFor(
      async () => Object.values(await sinkLag(log, [STREAMS.trades.topic], 'outage-sink')).every((lag) => lag === 0),
      60_000,
      'the outage to end',
    );
    expect(failures).toBe(0);
    // This sink's group reads the log from the start, so it meets the first test's poison record too:
    // that one (and only that one) is dead-lettered again; nothing the outage touched is.
    const added = (await readAll(log, STREAMS.deadLetters.topic))
      .slice(before)
      .map((m) => STREAMS.trades.codec.decode(Buffer.from(STREAMS.deadLetters.codec.decode(m.value).raw, 'base64')).event_id);
    expect(added).toEqual(['poison']);
    expect(sink.stats.poison_records).toBe(1);
    const [row] = await store.query<{ n: number }>("SELECT count() AS n FROM trades FINAL WHERE trade_id LIKE 'during-outage-%'");
    expect(Number(row!.n)).toBe(2);
  } finally {
    await sink.stop();
  }
}, 90_000);
