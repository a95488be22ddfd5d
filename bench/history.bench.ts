/**
 * History from files: raw Polygon logs in cryo `logs` + `blocks` Parquet -> `npm run import`'s path
 * (chDB reads and sorts the files, the chain source's decoder and gate, the event log) -> the sink ->
 * queryable chain_ledger rows, in logs per second, as a ratio to a plain chDB insert of the same ledger
 * rows into the same table in the same run (goal >= 0.3). Writes bench/results/history.json.
 *
 * The corpus: every log of a simulated day (the simulator's chain, ABI-encoded: fills of both exchange
 * versions, OrdersMatched, splits, merges, redemptions, resolutions, adapter transfers, and logs the
 * import leaves out), copied block range after block range by chDB until BENCH_HISTORY_LOGS rows (each
 * copy with its own block numbers, block hashes and transaction hashes, so every event is new), in cryo
 * files of BENCH_HISTORY_FILE_LOGS rows. The sink indexes while the import reads, as `npm run import` runs
 * them; the clock stops when chain_ledger holds every published event. Peak RSS is sampled every 100 ms during the import and the sink.
 * The projection for Polymarket's whole history divides an estimate of its settlement logs (HISTORY_ESTIMATE
 * below, with its source) by the measured rate.
 *
 *   npm run bench:history      (BENCH_HISTORY_LOGS=1000000 BENCH_HISTORY_FILE_LOGS=250000)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { openChdbStore } from '../services/analytics/clickhouse-store.js';
import { migrate } from '../services/analytics/migrate.js';
import { ContractBook } from '../services/chain/contract-book.js';
import { literal, openFileReader } from '../services/chain/log-files.js';
import { importLogFiles } from '../services/chain/log-import.js';
import { NegRiskBook } from '../services/chain/neg-risk-book.js';
import { loadConfig } from '../services/config.js';
import { EventPublisher } from '../services/events/publisher.js';
import { openFileEventLog } from '../services/eventlog/file-log.js';
import type { ChainLog } from '../services/ports/chain-reader.js';
import { allTopicSpecs } from '../services/read-models/registry.js';
import { startSink } from '../services/sink/sink-service.js';
import { SIM_GENESIS_BLOCK, SimulatedChain } from '../simulator/chain.js';
import { SimulatorState } from '../simulator/state.js';
import { simulatorChainCatalog } from '../test/support/simulator-catalog.js';
import { writeCryoBlocks, writeCryoLogs } from '../test/support/log-files.js';

const LOGS = Number(process.env.BENCH_HISTORY_LOGS ?? 1_000_000);
const FILE_LOGS = Number(process.env.BENCH_HISTORY_FILE_LOGS ?? 250_000);
const BATCH = 5_000;
const here = path.dirname(fileURLToPath(import.meta.url));
const silent = pino({ level: 'silent' });
const config = loadConfig({ LOG_LEVEL: 'silent' });
const book = new ContractBook(config.chain.contracts);
const adapter = config.chain.contracts.negRiskAdapter.address;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (value: number) => Math.round(value * 1000) / 1000;

/**
 * Polymarket's settlement logs on Polygon, estimated: Dune's count of Polymarket bets (taker trades)
 * was 5.29 million from launch to July 2024, 1.5 million of them in July 2024 (Dune Analytics via
 * crypto.news, "Number of bets on Polymarket surpassed 1.5m in July", 2024-08); monthly volume then grew
 * about 7x to $2.57 billion in November 2024 (Dune via CoinDesk/AIcoin, 2024-12) and active traders to
 * about 300,000 a month. Taking 3 million matches a month from August 2024 to November 2026 (28 months)
 * gives about 90 million matches. Each match emits a taker OrderFilled, at least one maker OrderFilled
 * (often two or three), one OrdersMatched and one or more CTF transfers (read with CHAIN_READ_TRANSFERS,
 * the default): about 7 settlement-topic logs a match; splits, merges, redemptions and conversions add
 * a few percent. About 650 million logs; the figure is good to a factor of two either way.
 */
const HISTORY_ESTIMATE = {
  settlement_logs: 650_000_000,
  matches: 90_000_000,
  logs_per_match: 7,
  source:
    'Dune Analytics via crypto.news (2024-08): 5.29M Polymarket bets from launch to July 2024, 1.5M in July 2024; Dune via CoinDesk (2024-12): monthly volume ~7x July 2024 by November 2024, ~300k monthly active traders. Assumed 3M matches/month Aug 2024-Nov 2026 (~90M matches) x ~7 settlement logs per match (taker + maker OrderFilled, OrdersMatched, CTF transfers). Good to a factor of two.',
};

/** cryo files of LOGS rows: the simulated day's logs, copied onto later block ranges. */
function writeCorpus(
  workDir: string,
  session: ReturnType<typeof openFileReader>,
  state: SimulatorState,
): { files: number; baseLogs: number } {
  const chain = new SimulatedChain(state);
  const head = chain.head();
  const encoded = chain.logs({ fromBlock: SIM_GENESIS_BLOCK, toBlock: head, addresses: null, topics: [] });
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
  const numbers = [...new Set(encoded.map((l) => l.blockNumber))];
  const base = path.join(workDir, 'base');
  fs.mkdirSync(base);
  writeCryoLogs(session, path.join(base, 'logs.parquet'), logs);
  writeCryoBlocks(
    session,
    path.join(base, 'blocks.parquet'),
    numbers.map((n) => ({ number: BigInt(n), hash: chain.blockHash(n), parentHash: '', timestamp: chain.secondOfBlock(n) })),
  );
  const span = head - SIM_GENESIS_BLOCK + 1;
  const copiesPerFile = Math.max(1, Math.floor(FILE_LOGS / logs.length));
  const copies = Math.ceil(LOGS / logs.length);
  const out = path.join(workDir, 'polygon-logs');
  fs.mkdirSync(out);
  // A copy's 4 bytes at the end of each hash: unique per copy, the rest of the hash as the simulator made it.
  const tagged = (column: string) => `concat(substring(${column}, 1, 28), unhex(leftPad(hex(toUInt32(c.number)), 8, '0')))`;
  let files = 0;
  for (let first = 0; first < copies; first += copiesPerFile) {
    const count = Math.min(copiesPerFile, copies - first);
    const rows = Math.min(count * logs.length, LOGS - first * logs.length);
    const range = `(SELECT number FROM numbers(${first}, ${count}))`;
    const name = `polygon__${first}`;
    session.query(
      `INSERT INTO FUNCTION file(${literal(path.join(out, `${name}__logs.parquet`))}, Parquet)
       SELECT toUInt32(block_number + c.number * ${span}) AS block_number, transaction_index, log_index,
              ${tagged('transaction_hash')} AS transaction_hash, address, topic0, topic1, topic2, topic3, data, n_data_bytes, chain_id
         FROM file(${literal(path.join(base, 'logs.parquet'))}, Parquet) AS l CROSS JOIN ${range} AS c
        ORDER BY block_number, log_index LIMIT ${rows}
       SETTINGS engine_file_truncate_on_insert = 1, max_bytes_before_external_sort = 268435456, max_threads = 2`,
    );
    session.query(
      `INSERT INTO FUNCTION file(${literal(path.join(out, `${name}__blocks.parquet`))}, Parquet)
       SELECT toUInt32(block_number + c.number * ${span}) AS block_number, ${tagged('block_hash')} AS block_hash,
              toUInt32(timestamp + c.number * ${span * 2}) AS timestamp, chain_id
         FROM file(${literal(path.join(base, 'blocks.parquet'))}, Parquet) AS b CROSS JOIN ${range} AS c
       SETTINGS engine_file_truncate_on_insert = 1`,
    );
    files++;
  }
  fs.rmSync(base, { recursive: true, force: true });
  return { files, baseLogs: logs.length };
}

/** The pipeline's rows inserted straight into a fresh chain_ledger (views included), BATCH at a time; only the inserts are timed. */
async function baselineInsert(workDir: string, exported: string, expected: number, database: string): Promise<number> {
  const baseline = await openChdbStore({ path: path.join(workDir, 'chdb'), database });
  await migrate(baseline);
  let seconds = 0;
  let batch: object[] = [];
  const flush = async () => {
    const start = performance.now();
    await baseline.insert('chain_ledger', batch);
    seconds += (performance.now() - start) / 1000;
    batch = [];
  };
  for await (const line of readline.createInterface({ input: fs.createReadStream(exported) })) {
    if (line.length === 0) continue;
    batch.push(JSON.parse(line) as object);
    if (batch.length >= BATCH) await flush();
  }
  if (batch.length > 0) await flush();
  const [row] = await baseline.query<{ n: string }>('SELECT toString(count()) AS n FROM chain_ledger');
  if (Number(row?.n) !== expected) throw new Error(`baseline holds ${row?.n} rows, expected ${expected}`);
  await baseline.close();
  return seconds;
}

async function main() {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-history-'));
  try {
    const state = new SimulatorState({
      seed: 3,
      marketCount: 200,
      walletCount: 200,
      historyHours: 24,
      historicTrades: 40_000,
      tradesPerSecond: 0,
    });
    const catalog = simulatorChainCatalog(state);
    const store = await openChdbStore({ path: path.join(workDir, 'chdb'), database: 'bench_history' });
    await migrate(store);
    const session = openFileReader(path.join(workDir, 'chdb'));
    const generateStart = performance.now();
    const corpus = writeCorpus(workDir, session, state);
    const generateSeconds = (performance.now() - generateStart) / 1000;
    const fileBytes = fs
      .readdirSync(path.join(workDir, 'polygon-logs'))
      .reduce((n, f) => n + fs.statSync(path.join(workDir, 'polygon-logs', f)).size, 0);
    console.log(
      `corpus: ${LOGS} logs in ${corpus.files} files (${Math.round(fileBytes / 2 ** 20)} MiB), written in ${round(generateSeconds)} s`,
    );

    const log = await openFileEventLog({ directory: path.join(workDir, 'log') });
    await log.createTopics(allTopicSpecs());
    let peakRss = process.memoryUsage().rss;
    const rssBefore = peakRss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 100);
    // As `npm run import` runs it: the sink indexes while the files are read.
    const sink = await startSink(log, store, silent, { groupId: 'bench-history-sink' });
    const importStart = performance.now();
    const summary = await importLogFiles({
      paths: [path.join(workDir, 'polygon-logs')],
      session,
      book,
      catalog,
      lookup: null,
      negRisk: new NegRiskBook(adapter, path.join(workDir, 'chain-neg-risk.json')),
      publisher: new EventPublisher(log),
      source: 'simulator',
      chainId: 137,
      holdMaxMs: config.chain.holdMaxMs,
      headers: null,
      out: process.stderr,
    });
    const importSeconds = (performance.now() - importStart) / 1000;
    const sinkStart = performance.now();
    while ((sink.stats.inserted.chain_ledger ?? 0) < summary.ledger_events) await sleep(50);
    const sinkSeconds = (performance.now() - sinkStart) / 1000;
    clearInterval(sampler);
    await sink.stop();
    const [stored] = await store.query<{ n: string }>('SELECT toString(count()) AS n FROM chain_ledger');
    if (Number(stored?.n) !== summary.ledger_events)
      throw new Error(`chain_ledger holds ${stored?.n} rows, ${summary.ledger_events} published`);
    session.close();
    await log.close();

    const exported = path.join(workDir, 'ledger-rows.jsonl');
    await store.exportTo('SELECT * FROM chain_ledger', {}, 'JSONEachRow', exported);
    await store.close();
    fs.rmSync(path.join(workDir, 'log'), { recursive: true, force: true });
    const baselineRuns = [
      await baselineInsert(workDir, exported, summary.ledger_events, 'bench_history_baseline_1'),
      await baselineInsert(workDir, exported, summary.ledger_events, 'bench_history_baseline_2'),
    ];
    const baselineSeconds = baselineRuns.reduce((a, b) => a + b, 0) / baselineRuns.length;
    const endToEnd = importSeconds + sinkSeconds;
    const logsPerSecond = summary.logs / endToEnd;
    const result = {
      benchmark: 'history: raw log files (cryo Parquet) -> npm run import path -> event log -> sink -> queryable chain_ledger rows',
      measured_at: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        cpu_model: os.cpus()[0]?.model ?? 'unknown',
        memory_gb: Math.round(os.totalmem() / 2 ** 30),
        node: process.version,
      },
      corpus: {
        file_rows: summary.rows,
        files: corpus.files,
        blocks_files: summary.blocks_files,
        bytes: fileBytes,
        simulated_day_logs: corpus.baseLogs,
        settlement_logs_kept: summary.logs,
        ledger_events: summary.ledger_events,
        resolutions: summary.resolutions,
        dead_letters: summary.dead_letters,
        decided_at_end: summary.decided_at_end,
        generated_seconds: round(generateSeconds),
      },
      baseline_plain_chdb_insert: {
        seconds: round(baselineSeconds),
        runs_seconds: baselineRuns.map(round),
        rows_per_second: Math.round(summary.ledger_events / baselineSeconds),
      },
      import_to_log: {
        seconds: round(importSeconds),
        reading_files_seconds: round(summary.reading_ms / 1000),
        logs_per_second: Math.round(summary.logs / importSeconds),
      },
      // The sink runs during the import; this is the time it needed after the import ended.
      sink_after_import: { seconds: round(sinkSeconds) },
      files_to_queryable: {
        seconds: round(endToEnd),
        logs_per_second: Math.round(logsPerSecond),
        file_rows_per_second: Math.round(summary.rows / endToEnd),
        rows_per_second: Math.round(summary.ledger_events / endToEnd),
      },
      ratio_files_to_queryable_to_baseline: round(baselineSeconds / endToEnd),
      peak_rss_mb: {
        before: Math.round(rssBefore / 2 ** 20),
        during_import_and_sink: Math.round(peakRss / 2 ** 20),
      },
      projection: {
        ...HISTORY_ESTIMATE,
        this_machine_hours: round(HISTORY_ESTIMATE.settlement_logs / logsPerSecond / 3600),
      },
    };
    fs.mkdirSync(path.join(here, 'results'), { recursive: true });
    fs.writeFileSync(path.join(here, 'results', 'history.json'), `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(result, null, 2));
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
