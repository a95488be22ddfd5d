/**
 * What the chain source states about its coverage, against the simulator's JSON-RPC and a real file
 * log: the service's follower states on every watermark the first block from which it read every
 * block without a hole; a chain backfill states nothing itself, and its range moves that block down
 * only once it joins the follower's (a range below a hole is kept until the hole is backfilled). An
 * unfinished backfill's progress is read from its files (what /v1/health shows).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { chainBackfillFiles, readChainBackfillState, runChainBackfill } from '../../services/backfill/chain-backfill.js';
import type { BackfillArguments } from '../../services/backfill/arguments.js';
import { ChainCatalog } from '../../services/chain/catalog.js';
import { CatalogLookup } from '../../services/chain/catalog-lookup.js';
import { ContractBook } from '../../services/chain/contract-book.js';
import { ChainFollower } from '../../services/chain/follower.js';
import { openRpcChainReader } from '../../services/chain/rpc-chain-reader.js';
import { loadConfig } from '../../services/config.js';
import { EventPublisher } from '../../services/events/publisher.js';
import type { ChainLedgerEvent } from '../../services/events/types.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import { normalizeGammaMarket } from '../../services/ingest/normalize-market.js';
import { UpstreamClient } from '../../services/ingest/upstream-client.js';
import type { EventLog } from '../../services/ports/event-log.js';
import { chainLedger } from '../../services/read-models/chain-ledger/index.js';
import { allTopicSpecs, STREAMS, topicSchemas } from '../../services/read-models/registry.js';
import { type RunningSimulator, simulatorUpstreamEnv, startSimulator } from '../../simulator/server.js';
import { readAll } from '../eventlog/helpers.js';
import { fixedClock, SMALL_WORLD } from '../simulator/fixtures.js';

const logger = pino({ level: 'silent' });
let sim: RunningSimulator;
let log: EventLog;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ ...SMALL_WORLD, port: 0, clock: fixedClock(), tickIntervalMs: 60_000 });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-coverage-'));
  fs.mkdirSync(path.join(dir, 'ingest'));
  log = await openFileEventLog({ directory: path.join(dir, 'log'), schemas: topicSchemas(), fsync: false, pollIntervalMs: 20 });
  await log.createTopics(allTopicSpecs());
});

afterAll(async () => {
  await log?.close();
  await sim?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a backfill below a hole leaves the first block after the hole; filling the hole moves it down to the backfill', async () => {
  const config = loadConfig({ DATA_DIR: dir, ...simulatorUpstreamEnv(sim), CHAIN_CONFIRMATIONS: '0' });
  const reader = openRpcChainReader({ url: sim.rpcUrl, requestsPer10s: 10_000, timeoutMs: 5_000, batchSize: 3 });
  const catalog = new ChainCatalog();
  catalog.add(
    sim.state.world.markets.map((m) => {
      const event = sim.state.world.events[m.eventIndex]!;
      const result = normalizeGammaMarket(
        {
          conditionId: m.conditionId,
          question: m.question,
          outcomes: JSON.stringify(m.outcomes),
          clobTokenIds: JSON.stringify(m.tokenIds),
          negRisk: event.negRisk,
          negRiskMarketID: event.negRiskMarketId ?? undefined,
        },
        'simulator',
        Date.now(),
      );
      if (!result.ok) throw new Error(result.reason);
      return result.value;
    }),
  );
  const book = new ContractBook(config.chain.contracts);
  const publisher = new EventPublisher(log);
  const files = chainBackfillFiles(dir);
  const follow = async () => {
    const follower = new ChainFollower({
      reader,
      book,
      catalog,
      lookup: null,
      publisher,
      logger,
      checkpointFile: files.follower,
      chainId: 137,
      source: 'simulator',
      confirmations: 0,
      reorgWindowBlocks: 128,
      logRangeBlocks: 50,
      logRangeMaxBlocks: 2_000,
      startBlock: start,
      negRiskAdapter: config.chain.contracts.negRiskAdapter.address,
      ledgerPartitions: chainLedger.partitions,
      holdMaxMs: config.chain.holdMaxMs,
    });
    for (let i = 0; i < 200; i++) if ((await follower.step()).caughtUp) return;
    throw new Error('did not reach the head');
  };
  /** Runs a backfill of the range to its end, or stops it after `steps` ranges. */
  const backfill = async (fromBlock: number, toBlock: number, steps = Number.POSITIVE_INFINITY) => {
    const args: BackfillArguments = {
      source: 'chain',
      fromBlock,
      toBlock,
      fromArg: null,
      toArg: null,
      markets: [],
      fidelityMinutes: 5,
      restart: false,
      index: false,
    };
    const gamma = new UpstreamClient({ name: 'gamma', baseUrl: sim.gammaUrl, budgetPer10s: 100, timeoutMs: 5_000 });
    let asked = 0;
    const done = await runChainBackfill({
      args,
      config,
      reader,
      book,
      catalog,
      lookup: new CatalogLookup(gamma, catalog, publisher),
      publisher,
      logger,
      source: 'simulator',
      chainId: 137,
      files,
      out: { write: () => true },
      shouldStop: () => asked++ >= steps,
    });
    expect(done.outcome).toBe(steps === Number.POSITIVE_INFINITY ? 'complete' : 'stopped');
  };
  const watermarks = async () =>
    (await readAll(log, STREAMS.chainLedger.topic))
      .map((m) => STREAMS.chainLedger.codec.decode(m.value) as ChainLedgerEvent)
      .filter((e) => e.kind === 'watermark');
  /** The statement of the newest watermark. */
  const latest = async () => {
    const newest = (await watermarks()).reduce((a, b) => (b.block_number >= a.block_number ? b : a));
    return { statement: newest.coverage };
  };
  const timeOf = async (block: number) => (await reader.block(BigInt(block)))!.timestamp * 1000;
  const genesis = book.historyStartBlock();

  const start = sim.chain.head() - 300;
  await follow();
  expect((await latest()).statement).toEqual({ from_block: start, from_time_ms: await timeOf(start), history_start_block: genesis });

  // A range that ends 100 blocks below the follower's first block: a hole between.
  await backfill(start - 400, start - 101);
  // The backfill's own watermarks (one per range and partition, below the follower's blocks) state nothing.
  const ofBackfill = (await watermarks()).filter((e) => e.block_number < start);
  expect(ofBackfill.length).toBeGreaterThan(0);
  expect(ofBackfill.every((e) => e.coverage === null)).toBe(true);
  sim.advance(5_000);
  await follow();
  expect((await latest()).statement).toEqual({ from_block: start, from_time_ms: await timeOf(start), history_start_block: genesis });

  // The hole filled: both ranges join, the coverage starts at the first backfill's first block. Its
  // backfill stopped after one range first: /v1/health's progress (from its files) shows part done.
  expect(readChainBackfillState(files)).toBeNull();
  await backfill(start - 100, start - 1, 1);
  const part = readChainBackfillState(files)!;
  expect(part).toMatchObject({ from_block: start - 100, to_block: start - 1 });
  expect(part.blocks_done).toBeGreaterThan(0);
  expect(part.blocks_to_do).toBeGreaterThan(0);
  expect(part.blocks_done + part.blocks_to_do).toBe(100);
  await backfill(start - 100, start - 1);
  expect(readChainBackfillState(files)).toBeNull();
  sim.advance(5_000);
  await follow();
  expect((await latest()).statement).toEqual({
    from_block: start - 400,
    from_time_ms: await timeOf(start - 400),
    history_start_block: genesis,
  });
}, 120_000);
