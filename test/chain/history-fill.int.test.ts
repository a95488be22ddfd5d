/**
 * The in-service history fill against the simulator's JSON-RPC and a real file log: below a follower
 * that started 300 blocks back, it reads the history newest chunk first, each finished chunk moving
 * the follower's stated first block down without a hole; stopped mid-chunk and started again (a new
 * fill and follower over the same files) it reads no range twice; done, its events are those of a
 * follower that read everything from the history start, id for id.
 */
import { simulatorChainCatalog } from '../support/simulator-catalog.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { HistoryFill, historyFiles, readHistoryProgress } from '../../services/backfill/history-fill.js';
import { ContractBook } from '../../services/chain/contract-book.js';
import { ChainFollower } from '../../services/chain/follower.js';
import { openRpcChainReader } from '../../services/chain/rpc-chain-reader.js';
import { loadConfig } from '../../services/config.js';
import { EventPublisher } from '../../services/events/publisher.js';
import type { ChainLedgerEvent } from '../../services/events/types.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import type { ChainReader } from '../../services/ports/chain-reader.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { chainLedger } from '../../services/read-models/chain-ledger/index.js';
import { allTopicSpecs, STREAMS, topicSchemas } from '../../services/read-models/registry.js';
import { type RunningSimulator, simulatorUpstreamEnv, startSimulator } from '../../simulator/server.js';
import { readAll } from '../eventlog/helpers.js';
import { fixedClock, SMALL_WORLD } from '../simulator/fixtures.js';

const logger = pino({ level: 'silent' });
let sim: RunningSimulator;
const dirs: string[] = [];
const logs: EventLog[] = [];

beforeAll(async () => {
  sim = await startSimulator({ ...SMALL_WORLD, port: 0, clock: fixedClock(), tickIntervalMs: 60_000 });
});

afterAll(async () => {
  for (const log of logs) await log.close();
  await sim?.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

async function dataDir(): Promise<{ dir: string; log: EventLog }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-history-'));
  dirs.push(dir);
  fs.mkdirSync(path.join(dir, 'ingest'));
  const log = await openFileEventLog({ directory: path.join(dir, 'log'), schemas: topicSchemas(), fsync: false, pollIntervalMs: 20 });
  await log.createTopics(allTopicSpecs());
  logs.push(log);
  return { dir, log };
}

/** The simulator's reader, recording every eth_getLogs range asked. */
function countingReader(ranges: string[]): ChainReader {
  const reader = openRpcChainReader({ url: sim.rpcUrl, requestsPer10s: 10_000, timeoutMs: 5_000, batchSize: 20 });
  return Object.assign(Object.create(reader) as ChainReader, {
    logs: (filter: Parameters<ChainReader['logs']>[0]) => {
      ranges.push(`${filter.fromBlock}-${filter.toBlock}`);
      return reader.logs(filter);
    },
  });
}

test('newest chunk first, each joining the coverage; a restart reads no range twice; done, the events equal a read from the history start', async () => {
  const head = sim.chain.head();
  const historyStart = head - 1_000;
  const start = head - 300;
  const starts = Object.fromEntries(
    ['EXCHANGE_V1', 'NEG_RISK_EXCHANGE_V1', 'EXCHANGE_V2', 'NEG_RISK_EXCHANGE_V2', 'CONDITIONAL_TOKENS', 'NEG_RISK_ADAPTER'].map((c) => [
      `CHAIN_START_BLOCK_${c}`,
      String(historyStart),
    ]),
  );
  const { dir, log } = await dataDir();
  const config = loadConfig({
    DATA_DIR: dir,
    ...simulatorUpstreamEnv(sim),
    ...starts,
    CHAIN_CONFIRMATIONS: '0',
    CHAIN_LOG_RANGE_BLOCKS: '50',
    CHAIN_LOG_RANGE_MAX_BLOCKS: '50',
  });
  const book = new ContractBook(config.chain.contracts);
  expect(book.historyStartBlock()).toBe(historyStart);
  const catalog = simulatorChainCatalog(sim.state, Date.now());
  const publisher = new EventPublisher(log);
  const files = historyFiles(dir);

  const follower = (reader: ChainReader, checkpointFile: string, startBlock: number, to = publisher) =>
    new ChainFollower({
      reader,
      book,
      catalog,
      lookup: null,
      publisher: to,
      logger,
      checkpointFile,
      chainId: 137,
      source: 'simulator',
      confirmations: 0,
      reorgWindowBlocks: 128,
      logRangeBlocks: 50,
      logRangeMaxBlocks: 50,
      startBlock,
      negRiskAdapter: config.chain.contracts.negRiskAdapter.address,
      ledgerPartitions: chainLedger.partitions,
      holdMaxMs: config.chain.holdMaxMs,
    });
  const run = (reader: ChainReader) => {
    const live = follower(reader, path.join(dir, 'ingest', 'chain-checkpoint.json'), start);
    const fill = new HistoryFill({
      live,
      files,
      chunkBlocks: 200,
      chain: config.chain,
      reader,
      book,
      catalog,
      lookup: null,
      publisher,
      logger,
      source: 'simulator',
      chainId: 137,
    });
    return { live, fill };
  };
  const toHead = async (live: ChainFollower) => {
    for (let i = 0; i < 100; i++) if ((await live.step()).caughtUp) return;
    throw new Error('the follower did not reach the head');
  };

  expect(readHistoryProgress(files, true).state).toBe('starting');
  const firstRanges: string[] = [];
  const first = run(countingReader(firstRanges));
  expect(await first.fill.step()).toBe(false); // the head's follower has not read yet: nothing planned
  await toHead(first.live);
  const historyReadBy = (ranges: string[]) => ranges.filter((r) => Number(r.split('-')[0]) < start);
  // Chunk 1 (start-200 .. start-1) is 4 ranges of 50; once read it joins: the first block moves down by 200.
  for (let i = 0; i < 4; i++) expect(await first.fill.step()).toBe(true);
  expect(first.live.checkpointState()!.first_block).toBe(start - 200);
  expect(historyReadBy(firstRanges)[0]).toBe(`${start - 200}-${start - 151}`);
  // Two ranges into chunk 2 (start-400 .. start-201), then "stopped".
  for (let i = 0; i < 2; i++) expect(await first.fill.step()).toBe(true);
  const mid = readHistoryProgress(files, true);
  expect(mid).toMatchObject({ state: 'running', from_block: historyStart, to_block: start - 1, blocks_done: 300, blocks_to_do: 400 });
  expect(first.live.checkpointState()!.first_block).toBe(start - 200);

  // Restarted: a new follower from its checkpoint and a new fill resume the chunk where it was.
  const secondRanges: string[] = [];
  const second = run(countingReader(secondRanges));
  await toHead(second.live);
  let steps = 0;
  while (await second.fill.step()) if (++steps > 100) throw new Error('the history fill did not finish');
  const readBefore = new Set(historyReadBy(firstRanges));
  const readAfter = historyReadBy(secondRanges);
  expect(readAfter.filter((r) => readBefore.has(r))).toEqual([]);
  expect(readAfter[0]).toBe(`${start - 300}-${start - 251}`);
  // Every block of the history read exactly once over both runs.
  const blocks = [...readBefore, ...new Set(readAfter)].flatMap((r) => {
    const [a, b] = r.split('-').map(Number) as [number, number];
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });
  expect(blocks.length).toBe(start - historyStart);
  expect(new Set(blocks).size).toBe(start - historyStart);
  expect(Math.min(...blocks)).toBe(historyStart);

  expect(second.live.checkpointState()!.first_block).toBe(historyStart);
  const done = readHistoryProgress(files, true);
  expect(done).toMatchObject({ state: 'done', blocks_done: 700, blocks_to_do: 0, eta_seconds: 0 });
  expect(fs.existsSync(files.chunk)).toBe(false);
  expect(await second.fill.step()).toBe(false);

  // The same events as one follower reading from the history start (ids: the logs' identities).
  const reference = await dataDir();
  const straight = follower(
    countingReader([]),
    path.join(reference.dir, 'ingest', 'chain-checkpoint.json'),
    historyStart,
    new EventPublisher(reference.log),
  );
  await toHead(straight);
  const ids = async (of: EventLog) =>
    [
      ...new Set(
        (await readAll(of, STREAMS.chainLedger.topic))
          .map((m) => STREAMS.chainLedger.codec.decode(m.value) as ChainLedgerEvent)
          .filter((e) => e.kind !== 'watermark')
          .map((e) => e.event_id),
      ),
    ].sort();
  const expected = await ids(reference.log);
  expect(expected.length).toBeGreaterThan(50);
  expect(await ids(log)).toEqual(expected);

  // The next watermark states the whole history: complete.
  sim.advance(3_000);
  await toHead(second.live);
  const newest = (await readAll(log, STREAMS.chainLedger.topic))
    .map((m) => STREAMS.chainLedger.codec.decode(m.value) as ChainLedgerEvent)
    .filter((e) => e.kind === 'watermark')
    .reduce((a, b) => (b.block_number >= a.block_number ? b : a));
  expect(newest.coverage).toMatchObject({ from_block: historyStart, history_start_block: historyStart });
}, 120_000);
