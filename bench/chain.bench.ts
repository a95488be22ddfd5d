/**
 * Chain benchmark. Writes bench/results/chain.json.
 *
 * 1. Throughput: settlement logs as the chain serves them (the simulator's ABI-encoded OrderFilled /
 *    OrdersMatched / CTF logs of its history) -> decode -> catalog -> Avro on the event log -> sink
 *    (dedup filter, insert with token, chain candle views) -> queryable in chain_ledger, in fills/s, as
 *    a ratio to a plain chDB insert of the same rows into the same table in the same run (goal >= 0.5):
 *    from the log (as bench:ingest measures) and from the raw logs (decoding included).
 * 2. Head-to-queryable latency: the chain source following the simulator's live chain (one block a
 *    second, 3 trades a second) with the service's defaults (CHAIN_CONFIRMATIONS 3, head polled every
 *    CHAIN_POLL_INTERVAL_MS): per block with fills, from the moment the block that confirms it
 *    (block + 3) is visible on the RPC to the moment its fills are returned by ClickHouse; p50/p99
 *    (goal p99 <= 1 s beyond the confirmation depth). Queryability is polled every 20 ms.
 *
 *   npm run bench:chain        (BENCH_CHAIN_TRADES=40000, BENCH_CHAIN_LATENCY_BLOCKS=60)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { openChdbStore } from '../services/analytics/clickhouse-store.js';
import { migrate } from '../services/analytics/migrate.js';
import { ChainCatalog } from '../services/chain/catalog.js';
import { startChainSource } from '../services/chain/chain-source.js';
import { ContractBook } from '../services/chain/contract-book.js';
import { NegRiskBook } from '../services/chain/neg-risk-book.js';
import { SettlementGate } from '../services/chain/settlement-gate.js';
import { interpretLogs } from '../services/chain/settlement-records.js';
import { loadConfig } from '../services/config.js';
import { EventPublisher } from '../services/events/publisher.js';
import { openFileEventLog } from '../services/eventlog/file-log.js';
import { SourceHealth } from '../services/ingest/source-health.js';
import { UpstreamClient } from '../services/ingest/upstream-client.js';
import type { ChainLog } from '../services/ports/chain-reader.js';
import { ledgerRow } from '../services/read-models/chain-ledger/rows.js';
import { allTopicSpecs } from '../services/read-models/registry.js';
import { startSink } from '../services/sink/sink-service.js';
import { SIM_GENESIS_BLOCK, SimulatedChain } from '../simulator/chain.js';
import { simulatorUpstreamEnv, startSimulator } from '../simulator/server.js';
import { SimulatorState } from '../simulator/state.js';
import { simulatorChainCatalog } from '../test/support/simulator-catalog.js';

const TRADES = Number(process.env.BENCH_CHAIN_TRADES ?? 40_000);
const LATENCY_BLOCKS = Number(process.env.BENCH_CHAIN_LATENCY_BLOCKS ?? 60);
const BATCH = 5_000;
const here = path.dirname(fileURLToPath(import.meta.url));
const silent = pino({ level: 'silent' });
const config = loadConfig({ LOG_LEVEL: 'silent' });
const book = new ContractBook(config.chain.contracts);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function fillCount(store: Awaited<ReturnType<typeof openChdbStore>>): Promise<number> {
  const [row] = await store.query<{ n: string }>("SELECT toString(count()) AS n FROM chain_ledger WHERE kind = 'fill'");
  return Number(row?.n ?? 0);
}

/** The same rows inserted straight into the same table (views included), in batches of the same size. */
async function baselineInsert(workDir: string, rows: ReturnType<typeof ledgerRow>[], fills: number, database: string): Promise<number> {
  const baseline = await openChdbStore({ path: path.join(workDir, 'chdb'), database });
  await migrate(baseline);
  const start = performance.now();
  for (let i = 0; i < rows.length; i += BATCH) await baseline.insert('chain_ledger', rows.slice(i, i + BATCH));
  const seconds = (performance.now() - start) / 1000;
  if ((await fillCount(baseline)) !== fills) throw new Error('baseline incomplete');
  await baseline.close();
  return seconds;
}

/** Recorded-shape logs: the simulator's history, encoded with the contracts' ABIs (the simulator itself is dropped after). */
function recordedLogs(): { logs: ChainLog[]; times: Map<number, number>; catalog: ChainCatalog } {
  const state = new SimulatorState({
    seed: 3,
    marketCount: 200,
    walletCount: 200,
    historyHours: 24,
    historicTrades: TRADES,
    tradesPerSecond: 0,
  });
  const chain = new SimulatedChain(state);
  const query = book.logQuery(chain.head());
  const encoded = chain.logs({
    fromBlock: SIM_GENESIS_BLOCK,
    toBlock: chain.head(),
    addresses: new Set(query.addresses),
    topics: [new Set(query.topics)],
  });
  const logs: ChainLog[] = encoded.map((l) => ({
    address: l.address,
    topics: l.topics,
    data: l.data,
    blockNumber: BigInt(l.blockNumber),
    blockHash: l.blockHash,
    transactionHash: l.transactionHash,
    logIndex: l.logIndex,
    removed: false,
  }));
  const times = new Map(encoded.map((l) => [l.blockNumber, chain.secondOfBlock(l.blockNumber) * 1000]));
  const catalog = simulatorChainCatalog(state);
  return { logs, times, catalog };
}

async function throughput(workDir: string) {
  const { logs, times, catalog } = recordedLogs();
  const context = {
    chainId: 137,
    source: 'simulator' as const,
    nowMs: Date.now(),
    negRiskAdapter: config.chain.contracts.negRiskAdapter.address,
  };
  // The rows the baseline inserts: the same events, decoded once outside the clock.
  const reference = new SettlementGate(
    catalog,
    new NegRiskBook(config.chain.contracts.negRiskAdapter.address),
    config.chain.holdMaxMs,
  ).admit(interpretLogs(logs, times, book).records, context).ledger;
  const fills = reference.filter((e) => e.kind === 'fill').length;
  console.log(`${logs.length} logs, ${fills} fills, ${reference.length} ledger events`);

  // The baseline runs before and after the pipeline (the machine is shared; the mean evens out drift).
  const baselineRows = reference.map((e) => ledgerRow(e));
  const baselineBefore = await baselineInsert(workDir, baselineRows, fills, 'bench_chain_baseline_1');
  const events = reference.length;
  // The benchmark's own copies are dropped before the pipeline runs, so its collector does not scan them.
  reference.length = 0;

  const store = await openChdbStore({ path: path.join(workDir, 'chdb'), database: 'bench_chain_pipeline' });
  await migrate(store);
  const log = await openFileEventLog({ directory: path.join(workDir, 'log') });
  await log.createTopics(allTopicSpecs());
  const publisher = new EventPublisher(log);
  // Stage 1: decode ranges of whole blocks, as the follower reads them (a transaction never spans two),
  // and publish to the log. Stage 2: the sink from the log until ClickHouse holds everything. Timed
  // one after the other, as the ingest benchmark does, so neither stage's garbage lands on the other.
  const decodeStart = performance.now();
  const gate = new SettlementGate(catalog, new NegRiskBook(config.chain.contracts.negRiskAdapter.address), config.chain.holdMaxMs);
  for (let start = 0; start < logs.length; ) {
    let end = Math.min(logs.length, start + BATCH * 2);
    while (end < logs.length && logs[end]!.blockNumber === logs[end - 1]!.blockNumber) end++;
    const released = gate.admit(interpretLogs(logs.slice(start, end), times, book).records, context);
    await publisher.publish('chainLedger', released.ledger);
    start = end;
  }
  const decodeSeconds = (performance.now() - decodeStart) / 1000;
  const sinkStart = performance.now();
  const sink = await startSink(log, store, silent, { groupId: 'bench-chain-sink' });
  // Done when the sink reports every event written (asking ClickHouse every 20 ms would compete with the inserts).
  while ((sink.stats.inserted.chain_ledger ?? 0) < events) await sleep(20);
  const sinkSeconds = (performance.now() - sinkStart) / 1000;
  if ((await fillCount(store)) !== fills) throw new Error('pipeline incomplete');
  await sink.stop();
  const [candles] = await store.query<{ n: string }>('SELECT toString(sum(trade_count)) AS n FROM chain_candles_5m');
  await log.close();
  await store.close();
  const baselineAfter = await baselineInsert(workDir, baselineRows, fills, 'bench_chain_baseline_2');
  const baselineSeconds = (baselineBefore + baselineAfter) / 2;
  const endToEnd = decodeSeconds + sinkSeconds;
  return {
    logs: logs.length,
    fills,
    baseline_plain_chdb_insert: {
      seconds: round(baselineSeconds),
      runs_seconds: [round(baselineBefore), round(baselineAfter)],
      fills_per_second: Math.round(fills / baselineSeconds),
    },
    decode_and_publish: { seconds: round(decodeSeconds), fills_per_second: Math.round(fills / decodeSeconds) },
    log_to_queryable: {
      seconds: round(sinkSeconds),
      fills_per_second: Math.round(fills / sinkSeconds),
      candle_matches: Number(candles?.n ?? 0),
    },
    logs_to_queryable: { seconds: round(endToEnd), fills_per_second: Math.round(fills / endToEnd) },
    ratio_log_to_queryable_to_baseline: round(baselineSeconds / sinkSeconds),
    ratio_logs_to_queryable_to_baseline: round(baselineSeconds / endToEnd),
  };
}

async function latency(workDir: string) {
  const sim = await startSimulator({
    port: 0,
    seed: 23,
    marketCount: 60,
    walletCount: 80,
    historyHours: 2,
    historicTrades: 500,
    tradesPerSecond: 3,
  });
  const dataDir = path.join(workDir, 'latency');
  const serviceConfig = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...simulatorUpstreamEnv(sim) });
  const store = await openChdbStore({ path: path.join(workDir, 'chdb'), database: 'bench_chain_latency' });
  await migrate(store);
  const log = await openFileEventLog({ directory: path.join(dataDir, 'log') });
  await log.createTopics(allTopicSpecs());
  const sink = await startSink(log, store, silent, { groupId: 'bench-chain-latency-sink' });
  const source = startChainSource({
    chain: serviceConfig.chain,
    gammaUrl: serviceConfig.upstream.gammaUrl,
    checkpointFile: path.join(dataDir, 'chain-checkpoint.json'),
    publisher: new EventPublisher(log),
    health: new SourceHealth(),
    logger: silent,
    catalog: simulatorChainCatalog(sim.state),
    gamma: new UpstreamClient({ name: 'gamma', baseUrl: sim.gammaUrl, budgetPer10s: 100, timeoutMs: 5_000 }),
  });
  if (!source) throw new Error('chain source did not start');
  await source.firstStep;
  const firstBlock = sim.chain.head() + 1;
  const seen = new Map<number, number>();
  const lastBlock = firstBlock + LATENCY_BLOCKS;
  while (sim.chain.head() < lastBlock + serviceConfig.chain.confirmations + 2) {
    const rows = await store.query<{ b: string }>(
      "SELECT DISTINCT toString(block_number) AS b FROM chain_ledger WHERE kind = 'fill' AND block_number >= {from:UInt64}",
      { from: firstBlock },
    );
    const at = Date.now();
    for (const row of rows) if (!seen.has(Number(row.b))) seen.set(Number(row.b), at);
    await sleep(20);
  }
  await source.stop();
  await sink.stop();
  await log.close();
  await store.close();
  await sim.close();
  const samples: number[] = [];
  for (let block = firstBlock; block <= lastBlock; block++) {
    const hasFills = sim.state.trades.some((t) => sim.chain.blockOfSecond(t.timestamp) === block);
    if (!hasFills) continue;
    const queryableAt = seen.get(block);
    if (queryableAt === undefined) throw new Error(`block ${block} never became queryable`);
    // Block n covers second s and is served once s has passed; its confirming block is n + confirmations.
    const visibleAt = (sim.chain.secondOfBlock(block + serviceConfig.chain.confirmations) + 1) * 1000;
    samples.push(queryableAt - visibleAt);
  }
  samples.sort((a, b) => a - b);
  const pct = (p: number) => samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))] ?? Number.NaN;
  return {
    blocks_with_fills: samples.length,
    confirmations: serviceConfig.chain.confirmations,
    poll_interval_ms: serviceConfig.chain.pollIntervalMs,
    beyond_confirmation_ms: { p50: pct(50), p90: pct(90), p99: pct(99), max: samples.at(-1) ?? Number.NaN },
    target_p99_ms: 1_000,
    ratio_p99_to_target: round(pct(99) / 1_000),
  };
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-chain-'));
const result = {
  benchmark: 'chain: settlement logs -> decode -> event log -> sink -> queryable; head-to-queryable latency',
  measured_at: new Date().toISOString(),
  machine: {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
  },
  throughput: await throughput(workDir),
  latency: await latency(workDir),
};
fs.rmSync(workDir, { recursive: true, force: true });
fs.mkdirSync(path.join(here, 'results'), { recursive: true });
fs.writeFileSync(path.join(here, 'results', 'chain.json'), `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
process.exit(0);
