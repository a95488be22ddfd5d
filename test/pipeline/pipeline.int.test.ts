/**
 * Upstream simulator -> real ingest adapters over HTTP -> file log -> sink -> chDB, in one process.
 * The simulator's clock is frozen (it moves only by advance()), so its feed is the exact truth the
 * indexed tables must equal: every trade once, candle volumes equal to the feed's, nothing lost
 * when the upstream throttles, fails or serves malformed records.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { openChdbStore } from '../../services/analytics/clickhouse-store.js';
import { migrate } from '../../services/analytics/migrate.js';
import { loadConfig } from '../../services/config.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import { startIngest, type IngestService } from '../../services/ingest/ingest-service.js';
import { normalizeDataTrade } from '../../services/ingest/normalize-trade.js';
import type { AnalyticsStore } from '../../services/ports/analytics-store.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { STREAMS, topicSchemas } from '../../services/read-models/registry.js';
import { startSink, type SinkService } from '../../services/sink/sink-service.js';
import { simulatorUpstreamEnv, startSimulator, type RunningSimulator, type SimulatorOptions } from '../../simulator/server.js';
import { waitFor } from '../support/http.js';

const chdbFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-pipeline-chdb-'));
const FROZEN_NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const silent = pino({ level: 'silent' });
let databaseCounter = 0;

interface Pipeline {
  simulator: RunningSimulator;
  store: AnalyticsStore;
  log: EventLog;
  ingest: IngestService;
  sink: SinkService;
  stop(): Promise<void>;
}

async function startPipeline(simulatorOptions: SimulatorOptions): Promise<Pipeline> {
  let now = FROZEN_NOW;
  const simulator = await startSimulator({
    port: 0,
    seed: 5,
    marketCount: 40,
    walletCount: 30,
    historicTrades: 3000,
    historyHours: 24,
    clock: () => now,
    ...simulatorOptions,
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-pipeline-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    ...simulatorUpstreamEnv(simulator),
    MARKETS_POLL_INTERVAL_MS: '300',
    TRADES_POLL_INTERVAL_MS: '200',
    TRADES_BACKFILL_MARKETS: '0',
    LOG_LEVEL: 'silent',
  });
  const store = await openChdbStore({ path: chdbFolder, database: `pipeline_${databaseCounter++}` });
  await migrate(store);
  const log = await openFileEventLog({ directory: path.join(dataDir, 'log'), schemas: topicSchemas() });
  const ingest = await startIngest(config, log, silent);
  const sink = await startSink(log, store, silent);
  return {
    simulator,
    store,
    log,
    ingest,
    sink,
    async stop() {
      await ingest.stop();
      await sink.stop();
      await log.close();
      await store.close();
      await simulator.close();
      now = FROZEN_NOW;
    },
  };
}

/** The upstream feed as the ingestor's own normalizer sees it: the truth to compare against. */
async function upstreamTruth(dataUrl: string) {
  const rows: unknown[] = [];
  for (let offset = 0; ; offset += 500) {
    let page: unknown[] | undefined;
    for (let attempt = 0; attempt < 50 && !page; attempt++) {
      const response = await fetch(`${dataUrl}/trades?takerOnly=true&limit=500&offset=${offset}`);
      if (response.ok) page = (await response.json()) as unknown[];
    }
    rows.push(...page!);
    if (page!.length < 500) break;
  }
  const valid = new Map<string, number>();
  let malformed = 0;
  for (const row of rows) {
    const result = normalizeDataTrade(row, 'simulator', 0);
    if (result.ok) valid.set(result.value.event_id, result.value.size_usdc);
    else malformed += 1;
  }
  return { valid, malformed };
}

async function indexedTrades(store: AnalyticsStore) {
  const rows = await store.query<{ trade_id: string; n: number }>('SELECT trade_id, count() AS n FROM trades GROUP BY trade_id');
  return new Map(rows.map((r) => [r.trade_id, Number(r.n)]));
}

async function candleTotals(store: AnalyticsStore) {
  const [row] = await store.query<{ volume: number; trades: number }>(
    'SELECT sum(volume_usdc) AS volume, sum(trade_count) AS trades FROM candles_1h',
  );
  return { volume: Number(row?.volume ?? 0), trades: Number(row?.trades ?? 0) };
}

describe('pipeline from the simulator to ClickHouse', () => {
  let pipeline: Pipeline;
  afterEach(async () => {
    await pipeline?.stop();
  });

  test('every upstream trade is indexed exactly once and candles add up to the feed', async () => {
    pipeline = await startPipeline({});
    const truth = await upstreamTruth(pipeline.simulator.dataUrl);
    expect(truth.valid.size).toBeGreaterThan(2500);
    await waitFor(async () => (await indexedTrades(pipeline.store)).size === truth.valid.size, 30_000, 'all trades indexed');

    const indexed = await indexedTrades(pipeline.store);
    expect([...indexed.values()].every((n) => n === 1)).toBe(true);
    expect(new Set(indexed.keys())).toEqual(new Set(truth.valid.keys()));
    const candles = await candleTotals(pipeline.store);
    const feedVolume = [...truth.valid.values()].reduce((a, b) => a + b, 0);
    expect(candles.trades).toBe(truth.valid.size);
    expect(candles.volume).toBeCloseTo(feedVolume, 3);

    // Live trades after a minute of simulated time arrive too, still once each.
    pipeline.simulator.advance(60_000);
    const later = await upstreamTruth(pipeline.simulator.dataUrl);
    expect(later.valid.size).toBeGreaterThan(truth.valid.size);
    await waitFor(async () => (await indexedTrades(pipeline.store)).size === later.valid.size, 30_000, 'live trades indexed');
    expect((await candleTotals(pipeline.store)).trades).toBe(later.valid.size);

    // Markets: every simulated market, with the simulator's lifecycle.
    const [markets] = await pipeline.store.query<{ n: number; resolved: number }>(
      "SELECT uniqExact(market_id) AS n, uniqExactIf(market_id, status = 'resolved') AS resolved FROM markets FINAL",
    );
    const simMarkets = pipeline.simulator.state.world.markets.length;
    const simResolved = pipeline.simulator.state.status.filter((s) => s.resolved).length;
    expect(Number(markets!.n)).toBe(simMarkets);
    expect(Number(markets!.resolved)).toBe(simResolved);
    expect(pipeline.ingest.health.snapshot().every((s) => s.last_error === null)).toBe(true);
  });

  test('throttling, 5xx and malformed records: nothing lost, nothing doubled, bad rows dead-lettered', async () => {
    pipeline = await startPipeline({ faults: { http429Rate: 0.1, http500Rate: 0.1, malformedTradeRate: 0.05 } });
    const truth = await upstreamTruth(pipeline.simulator.dataUrl);
    expect(truth.malformed).toBeGreaterThan(10);
    await waitFor(async () => (await indexedTrades(pipeline.store)).size === truth.valid.size, 60_000, 'all valid trades indexed');
    const indexed = await indexedTrades(pipeline.store);
    expect(new Set(indexed.keys())).toEqual(new Set(truth.valid.keys()));
    expect([...indexed.values()].every((n) => n === 1)).toBe(true);

    // Each malformed row was dead-lettered with its reason and raw payload (once per poll that saw it).
    const trades = pipeline.ingest.health.snapshot().find((s) => s.source === 'data.trades')!;
    expect(trades.records_dead_lettered).toBeGreaterThanOrEqual(truth.malformed);
    const [dlq] = await pipeline.log.positions('inspect', STREAMS.deadLetters.topic);
    expect(dlq!.endOffset).toBeGreaterThanOrEqual(truth.malformed);
    const letters: string[] = [];
    const consumer = await pipeline.log.runConsumer({
      groupId: 'inspect',
      topics: [STREAMS.deadLetters.topic],
      handleBatch: async (batch) => {
        for (const m of batch.messages) letters.push(STREAMS.deadLetters.codec.decode(m.value).reason);
      },
    });
    await waitFor(async () => letters.length >= truth.malformed, 10_000, 'dead letters read');
    await consumer.stop();
    expect(letters.every((reason) => reason.length > 0)).toBe(true);
  });
});
