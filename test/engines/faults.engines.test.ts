/**
 * Effectively-once under faults, on a real Kafka broker: after each fault, ClickHouse holds exactly
 * the source trades (row count, distinct ids, candle trade counts and candle volumes per bucket),
 * and a control run with the dedup token and known-id filter switched off shows duplicates, proving
 * the check can fail.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from '@clickhouse/client';
import { pino } from 'pino';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { STREAMS } from '../../services/read-models/registry.js';
import { SINK_GROUP_ID, startSink, type SinkService } from '../../services/sink/sink-service.js';
import { syntheticTrades } from '../../bench/synthetic-trades.js';
import { REPO_ROOT, startChild } from '../support/processes.js';
import { engineAddresses } from './engines.js';
import { allTopicSpecs, openPipelineLog, pipelineFixture, publishAll, sourceTotals, storedTotals, waitUntil } from './pipeline-fixture.js';

const quiet = pino({ level: 'silent' });
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function fullyCommitted(log: EventLog, groupId = SINK_GROUP_ID): Promise<boolean> {
  const positions = await log.positions(groupId, STREAMS.trades.topic);
  return positions.every((p) => p.committedOffset === p.endOffset);
}

async function setUp(brokers?: string) {
  const fixture = await pipelineFixture();
  cleanups.push(() => fixture.cleanup());
  const log = await openPipelineLog(fixture.namespace, brokers);
  cleanups.push(() => log.close());
  await log.createTopics(allTopicSpecs());
  const store = await fixture.openStore();
  cleanups.push(() => store.close());
  return { fixture, log, store };
}

async function runSink(log: EventLog, store: AnalyticsStore): Promise<SinkService> {
  const sink = await startSink(log, store, process.env.TAPELINE_TEST_DEBUG ? pino({ level: 'warn' }) : quiet);
  cleanups.push(() => sink.stop());
  return sink;
}

/**
 * Every safety net switched off: no dedup token, the known-id lookup finds nothing, and ClickHouse's
 * own block-hash deduplication is disabled (insert_deduplicate = 0), as on a table without
 * non_replicated_deduplication_window. A redelivered batch is then inserted again.
 */
function withoutDedup(store: AnalyticsStore, url: string): AnalyticsStore {
  const client = createClient({ url, database: store.database });
  return {
    database: store.database,
    command: (sql, params) => store.command(sql, params),
    serially: (work) => store.serially(work),
    close: async () => {
      await client.close();
      await store.close();
    },
    insert: async (table, rows) => {
      await client.insert({
        table,
        values: rows,
        format: 'JSONEachRow',
        clickhouse_settings: { insert_deduplicate: 0, date_time_input_format: 'best_effort' },
      });
    },
    insertJsonLines: async (table, lines) => {
      await client.command({
        query: `INSERT INTO ${table} FORMAT JSONEachRow\n${lines}`,
        clickhouse_settings: { insert_deduplicate: 0, date_time_input_format: 'best_effort' },
      });
    },
    query: async <Row>(sql: string, params?: Record<string, unknown>) =>
      // The known-id lookup (stored-events.ts) finds nothing.
      /log_offset FROM trades\b/.test(sql) ? [] : store.query<Row>(sql, params),
    queryText: (sql, params) => store.queryText(sql, params),
    exportTo: (select, params, format, file) => store.exportTo(select, params, format, file),
  };
}

async function expectExactlyTheSource(store: AnalyticsStore, trades: ReturnType<typeof syntheticTrades>) {
  const stored = await storedTotals(store);
  const source = sourceTotals(trades);
  expect({ rows: stored.rows, distinct: stored.distinct, candleTrades: stored.candleTrades }).toEqual({
    rows: source.rows,
    distinct: source.distinct,
    candleTrades: source.candleTrades,
  });
  expect(Object.fromEntries(stored.candleVolumes)).toEqual(Object.fromEntries(source.candleVolumes));
}

describe('ClickHouse inserts failing for a while', () => {
  test('failures before and after the rows landed: retried in place, nothing lost, nothing doubled', async () => {
    const { fixture, log, store } = await setUp();
    const trades = syntheticTrades(3_000, 40, 11);
    await publishAll(log, trades.slice(0, 2_000));
    // The next 4 inserts land and then report failure (a timeout's ambiguous outcome).
    await fixture.harness.failInserts(4, 'after');
    const sink = await runSink(log, store);
    await waitUntil('the first 2000 to be committed', () => fullyCommitted(log), 60_000);
    // Then 3 inserts fail outright while more trades arrive.
    await fixture.harness.failInserts(3, 'before');
    await publishAll(log, trades.slice(2_000));
    await waitUntil('everything to be committed', () => fullyCommitted(log), 60_000);
    expect((sink.stats.inserted.trades ?? 0) + (sink.stats.already_stored.trades ?? 0)).toBeGreaterThanOrEqual(trades.length);
    await expectExactlyTheSource(store, trades);
  }, 120_000);
});

/**
 * Publishes 4000 trades, runs the production sink in a child process that SIGKILLs itself right
 * after its second insert (rows landed, offsets not committed), publishes 1000 more (so the
 * redelivered batches differ from the crashed ones and ClickHouse's block-hash dedup cannot hide a
 * double insert), then lets an in-process sink on the same group finish.
 */
async function killSinkBetweenInsertAndCommit(wrap: (store: AnalyticsStore, clickhouseUrl: string) => AnalyticsStore) {
  const { fixture, log, store } = await setUp();
  const trades = syntheticTrades(5_000, 40, 13);
  await publishAll(log, trades.slice(0, 4_000));
  const { kafkaBrokers, schemaRegistryUrl } = engineAddresses();
  const child = startChild('test/engines/fixtures/crashing-sink.ts', {
    KAFKA_BROKERS: kafkaBrokers,
    SCHEMA_REGISTRY_URL: schemaRegistryUrl,
    KAFKA_NAMESPACE: fixture.namespace,
    CLICKHOUSE_URL: fixture.harness.url,
    CLICKHOUSE_DATABASE: fixture.database,
    CRASH_AFTER_INSERTS: '2',
  });
  cleanups.push(() => child.kill('SIGKILL'));
  await new Promise<void>((resolve) => child.process.once('exit', () => resolve()));
  expect(child.process.signalCode).toBe('SIGKILL');
  expect(child.output()).toContain('"crashing":true');

  // The crash window was hit: ClickHouse holds rows whose offsets were never committed.
  const committed = (await log.positions(SINK_GROUP_ID, STREAMS.trades.topic)).reduce((sum, p) => sum + p.committedOffset, 0);
  const landed = (await storedTotals(store)).rows;
  expect(landed).toBeGreaterThan(committed);

  await publishAll(log, trades.slice(4_000));
  const sink = await runSink(log, wrap(store, fixture.harness.url));
  await waitUntil(
    'the restarted sink to commit everything',
    async () => {
      if (process.env.TAPELINE_TEST_DEBUG)
        console.log(
          JSON.stringify({ stats: sink.stats, positions: await log.positions(SINK_GROUP_ID, STREAMS.trades.topic), landed, committed }),
        );
      return fullyCommitted(log);
    },
    90_000,
  );
  return { store, trades, sink };
}

test('the sink is killed after an insert and before its commit: the redelivered batch adds nothing', async () => {
  const { store, trades, sink } = await killSinkBetweenInsertAndCommit((store) => store);
  expect(sink.stats.already_stored.trades ?? 0).toBeGreaterThan(0);
  await expectExactlyTheSource(store, trades);
}, 150_000);

test('control: the same crash without the dedup token and known-id filter double-counts', async () => {
  const { store, trades } = await killSinkBetweenInsertAndCommit(withoutDedup);
  const stored = await storedTotals(store);
  expect(stored.distinct).toBe(trades.length);
  // The raw table is a ReplacingMergeTree keyed by trade id, so background merges may already have
  // collapsed its duplicate rows; the candle views sum every inserted row and cannot hide them.
  expect(stored.candleTrades).toBeGreaterThan(trades.length);
  expect(Object.fromEntries(stored.candleVolumes)).not.toEqual(Object.fromEntries(sourceTotals(trades).candleVolumes));
}, 150_000);

test('the broker is killed with -9 mid-stream and restarted: nothing lost, nothing doubled', async () => {
  // Its own broker, so killing it cannot disturb other suites sharing the run's broker.
  const infraDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-broker-kill-'));
  const kafka = (command: string) =>
    execFileSync('bash', [path.join(REPO_ROOT, 'infra/kafka.sh'), command], {
      env: { ...process.env, TAPELINE_INFRA_DIR: infraDir },
      encoding: 'utf8',
    }).trim();
  kafka('up');
  cleanups.push(async () => {
    kafka('down');
    fs.rmSync(infraDir, { recursive: true, force: true });
  });
  const brokers = kafka('url');
  const { log, store } = await setUp(brokers);
  const trades = syntheticTrades(4_000, 40, 14);
  await runSink(log, store);

  let killed = false;
  const retries = await publishAll(log, trades, 200, async (batch) => {
    if (batch === 6 && !killed) {
      killed = true;
      const pid = Number(fs.readFileSync(path.join(infraDir, 'kafka/pid'), 'utf8'));
      process.kill(pid, 'SIGKILL');
      await waitUntil('the broker to die', async () => !isAlive(pid), 10_000);
      kafka('up');
    }
  });
  expect(killed).toBe(true);
  console.log(`broker killed after batch 6; producer batches retried: ${retries}`);
  await waitUntil('everything to be committed after the restart', () => fullyCommitted(log), 120_000);
  await expectExactlyTheSource(store, trades);
}, 200_000);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
