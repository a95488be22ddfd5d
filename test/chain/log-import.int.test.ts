/**
 * `npm run import`'s core (services/chain/log-import.ts): the simulator's logs, written as cryo
 * `logs` + `blocks` Parquet and as blockchain-etl `logs.csv` by chDB, imported into a fresh store,
 * give the events the chain follower publishes reading the same blocks over the simulator's JSON-RPC,
 * event for event; importing twice, or then receiving the RPC's events, adds no chain_ledger row; other
 * contracts' logs are left out; malformed rows are counted and dead-lettered.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Session } from 'chdb';
import { pino } from 'pino';
import { TOPIC0 } from '../../services/chain/abis.js';
import { ChainCatalog } from '../../services/chain/catalog.js';
import { ContractBook } from '../../services/chain/contract-book.js';
import { ChainFollower } from '../../services/chain/follower.js';
import { openFileReader } from '../../services/chain/log-files.js';
import { type ImportSummary, importLogFiles } from '../../services/chain/log-import.js';
import { NegRiskBook } from '../../services/chain/neg-risk-book.js';
import { openRpcChainReader } from '../../services/chain/rpc-chain-reader.js';
import { loadConfig } from '../../services/config.js';
import { EventPublisher } from '../../services/events/publisher.js';
import type { ChainConditionResolved, ChainLedgerEvent, MarketUpserted } from '../../services/events/types.js';
import { openFileEventLog } from '../../services/eventlog/file-log.js';
import { normalizeGammaMarket } from '../../services/ingest/normalize-market.js';
import type { EventLog } from '../../services/ports/event-log.js';
import type { ChainReader } from '../../services/ports/chain-reader.js';
import { chainLedger } from '../../services/read-models/chain-ledger/index.js';
import { allTopicSpecs, STREAMS, topicSchemas } from '../../services/read-models/registry.js';
import { type RunningSimulator, startSimulator } from '../../simulator/server.js';
import { readAll } from '../eventlog/helpers.js';
import { fixedClock, SMALL_WORLD } from '../simulator/fixtures.js';
import { dumpNode, type NodeDump, writeCryoBlocks, writeCryoLogs, writeEtlLogsCsv } from '../support/log-files.js';
import { type ProjectionHarness, projectionHarness } from '../support/projection.js';

const config = loadConfig({});
const book = new ContractBook(config.chain.contracts);
const adapter = config.chain.contracts.negRiskAdapter.address;

let sim: RunningSimulator;
let reader: ChainReader;
let h: ProjectionHarness;
let session: Session;
let dir: string;
let markets: MarketUpserted[];
let from: number;
let to: number;
let dump: NodeDump;
let rpcEvents: { ledger: ChainLedgerEvent[]; resolutions: ChainConditionResolved[] };

async function fileLog(name: string): Promise<EventLog> {
  const log = await openFileEventLog({ directory: path.join(dir, name), schemas: topicSchemas(), fsync: false, pollIntervalMs: 20 });
  await log.createTopics(allTopicSpecs());
  return log;
}

function catalog(): ChainCatalog {
  const c = new ChainCatalog();
  c.add(markets);
  return c;
}

/** What a log holds of the chain streams, without ingestion times and watermarks, in id order. */
async function published(log: EventLog): Promise<{ ledger: ChainLedgerEvent[]; resolutions: ChainConditionResolved[] }> {
  const strip = <T extends { ingested_at_ms: number }>(e: T) => ({ ...e, ingested_at_ms: 0 });
  const ledger = (await readAll(log, STREAMS.chainLedger.topic))
    .map((m) => strip(STREAMS.chainLedger.codec.decode(m.value)))
    .filter((e) => e.kind !== 'watermark')
    .sort((a, b) => a.event_id.localeCompare(b.event_id));
  const resolutions = (await readAll(log, STREAMS.chainResolutions.topic))
    .map((m) => strip(STREAMS.chainResolutions.codec.decode(m.value)))
    .sort((a, b) => a.event_id.localeCompare(b.event_id));
  return { ledger, resolutions };
}

async function runImport(log: EventLog, paths: string[], negRiskFile: string, headers: ChainReader | null = null): Promise<ImportSummary> {
  const lines: string[] = [];
  const summary = await importLogFiles({
    paths,
    session,
    book,
    catalog: catalog(),
    lookup: null,
    negRisk: new NegRiskBook(adapter, negRiskFile),
    publisher: new EventPublisher(log),
    source: 'simulator',
    chainId: 137,
    holdMaxMs: config.chain.holdMaxMs,
    headers,
    headersName: headers ? 'simulator' : undefined,
    out: { write: (text: string) => lines.push(text) },
    batchLogs: 300,
  });
  expect(lines.join('')).toMatch(/import: complete in .* logs\/s/);
  return summary;
}

/** The dump's logs of the configured contracts and topics (what eth_getLogs with the source's filter returns). */
function settlementLogs(): number {
  const query = book.logQuery(to);
  return dump.logs.filter((log) => query.addresses.includes(log.address) && query.topics.includes(log.topics[0]!)).length;
}

const ledgerRows = () => h.rows<Record<string, unknown>>(`SELECT * EXCEPT ingested_at FROM chain_ledger ORDER BY event_id, block_hash`);

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-log-import-'));
  sim = await startSimulator({ ...SMALL_WORLD, port: 0, clock: fixedClock(), tickIntervalMs: 60_000 });
  sim.advance(120_000);
  markets = sim.state.world.markets.map((m) => {
    const result = normalizeGammaMarket(
      {
        conditionId: m.conditionId,
        question: m.question,
        outcomes: JSON.stringify(m.outcomes),
        clobTokenIds: JSON.stringify(m.tokenIds),
        negRisk: sim.state.world.events[m.eventIndex]!.negRisk,
        negRiskMarketID: sim.state.world.events[m.eventIndex]!.negRiskMarketId ?? undefined,
      },
      'simulator',
      Date.now(),
    );
    if (!result.ok) throw new Error(result.reason);
    return result.value;
  });
  reader = openRpcChainReader({ url: sim.rpcUrl, requestsPer10s: 10_000, timeoutMs: 30_000, batchSize: 10 });
  to = sim.chain.head();
  // The last 20,000 blocks of the simulated day: fills of both exchange versions, splits, merges,
  // redemptions, resolutions and transfers.
  from = to - 20_000;
  // The RPC path: the chain source's follower over the same blocks.
  const rpcLog = await fileLog('rpc-log');
  const follower = new ChainFollower({
    reader,
    book,
    catalog: catalog(),
    lookup: null,
    publisher: new EventPublisher(rpcLog),
    logger: pino({ level: 'silent' }),
    checkpointFile: path.join(dir, 'rpc', 'chain-checkpoint.json'),
    chainId: 137,
    source: 'simulator',
    confirmations: 0,
    reorgWindowBlocks: 128,
    logRangeBlocks: 50,
    logRangeMaxBlocks: 2_000,
    startBlock: from,
    untilBlock: to,
    negRiskAdapter: adapter,
    ledgerPartitions: chainLedger.partitions,
    holdMaxMs: config.chain.holdMaxMs,
  });
  for (let i = 0; i < 200 && !(await follower.step()).caughtUp; i++);
  rpcEvents = await published(rpcLog);
  await rpcLog.close();
  dump = await dumpNode(reader, from, to, 5_000);
  // A dump holds every contract's logs: an ERC-20 transfer, and an OrderFilled of an exchange that is not configured.
  const host = dump.logs[dump.logs.length - 1]!;
  const foreign = (logIndex: number, address: string, topic0: string) => ({
    ...host,
    address,
    topics: [topic0, `0x${'00'.repeat(12)}${'11'.repeat(20)}`, `0x${'00'.repeat(12)}${'22'.repeat(20)}`],
    data: `0x${'00'.repeat(31)}01`,
    transactionHash: `0x${'cd'.repeat(32)}`,
    logIndex,
  });
  dump.logs.push(
    foreign(host.logIndex + 100, `0x${'33'.repeat(20)}`, '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'),
    foreign(host.logIndex + 101, `0xe3333700${'44'.repeat(16)}`, TOPIC0.v2OrderFilled),
  );
  h = await projectionHarness('log_import');
  session = openFileReader(h.chdbPath);
}, 120_000);

afterAll(async () => {
  session?.close();
  await h?.close();
  await reader?.close();
  await sim?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the node has settlement logs of every kind in the range, and logs of other contracts', () => {
  const kinds = new Set(rpcEvents.ledger.map((e) => e.kind));
  expect([...kinds].sort()).toEqual(expect.arrayContaining(['fill', 'split', 'merge', 'redemption']));
  expect(rpcEvents.resolutions.length).toBeGreaterThan(0);
  expect(rpcEvents.ledger.length).toBeGreaterThan(2_000);
  expect(dump.logs.length - settlementLogs()).toBeGreaterThanOrEqual(2);
});

describe('cryo logs and blocks Parquet', () => {
  let first: ImportSummary;
  let rows: Array<Record<string, unknown>>;

  beforeAll(async () => {
    fs.mkdirSync(path.join(dir, 'cryo'));
    // Two chunks of logs, as cryo writes them (a file per block range), and one of blocks.
    const middle = BigInt(from + 300);
    writeCryoLogs(
      session,
      path.join(dir, 'cryo', 'polygon__logs__a.parquet'),
      dump.logs.filter((l) => l.blockNumber < middle),
    );
    writeCryoLogs(
      session,
      path.join(dir, 'cryo', 'polygon__logs__b.parquet'),
      dump.logs.filter((l) => l.blockNumber >= middle),
    );
    writeCryoBlocks(session, path.join(dir, 'cryo', 'polygon__blocks.parquet'), dump.blocks);
    first = await runImport(h.log, [path.join(dir, 'cryo')], path.join(dir, 'import-neg-risk.json'));
    await h.given({}, { refresh: false });
    rows = await ledgerRows();
  }, 120_000);

  test('publishes what the RPC path publishes, event for event', async () => {
    expect(first).toMatchObject({ files: 2, blocks_files: 1, dead_letters: 0, malformed_rows: 0, decided_at_end: 0 });
    expect(first.block_headers_from).toEqual(['blocks files']);
    expect(first.rows).toBe(dump.logs.length);
    // Other contracts' logs are left out.
    expect(first.logs).toBe(settlementLogs());
    const imported = await published(h.log);
    expect(imported.ledger.length).toBe(rpcEvents.ledger.length);
    expect(imported.ledger).toEqual(rpcEvents.ledger);
    expect(imported.resolutions).toEqual(rpcEvents.resolutions);
    expect(rows.length).toBe(rpcEvents.ledger.length);
  });

  test('importing the same files again adds no row', async () => {
    const again = await runImport(h.log, [path.join(dir, 'cryo')], path.join(dir, 'import-neg-risk.json'));
    expect(again.ledger_events).toBe(first.ledger_events);
    await h.given({}, { refresh: false });
    expect(await ledgerRows()).toEqual(rows);
  });

  test("then receiving the RPC path's events adds no row either", async () => {
    await h.given({ chainLedger: rpcEvents.ledger, chainResolutions: rpcEvents.resolutions }, { refresh: false });
    expect(await ledgerRows()).toEqual(rows);
  });
});

describe('blockchain-etl logs.csv', () => {
  test('gives the same events, with block times and hashes from its own columns', async () => {
    const log = await fileLog('etl-log');
    const file = path.join(dir, 'logs.csv');
    writeEtlLogsCsv(session, file, dump.logs, dump.blocks);
    const summary = await runImport(log, [file], path.join(dir, 'etl-neg-risk.json'));
    expect(summary).toMatchObject({ files: 1, dead_letters: 0 });
    expect(summary.block_headers_from).toEqual(['the logs files (block_hash, block_timestamp)']);
    expect(await published(log)).toEqual(rpcEvents);
    await log.close();
  });

  test('malformed rows are counted and dead-lettered; the rest is imported', async () => {
    const log = await fileLog('malformed-log');
    const file = path.join(dir, 'malformed.csv');
    const exchange = config.chain.contracts.exchangeV2.address;
    const good = dump.logs.find((l) => l.address === config.chain.contracts.conditionalTokens.address)!;
    const block = String(to);
    const hash = dump.blocks[dump.blocks.length - 1]!.hash;
    const row = (over: Record<string, string>) => ({
      log_index: '9000',
      transaction_hash: `0x${'ab'.repeat(32)}`,
      transaction_index: '0',
      address: exchange,
      data: '0x',
      topics: good.topics.join(','),
      block_timestamp: String(dump.blocks[dump.blocks.length - 1]!.timestamp),
      block_number: block,
      block_hash: hash,
      ...over,
    });
    writeEtlLogsCsv(session, file, dump.logs, dump.blocks, [
      row({ block_number: 'x12' }),
      row({ log_index: '9001', transaction_hash: '0x12' }),
      row({ log_index: '9002', data: '0xabc' }),
      // Well-formed as a row, not as an OrderFilled: the decoder refuses it (wrong topics and data).
      row({ log_index: '9003', topics: `${good.topics[0]}` }),
    ]);
    const summary = await runImport(log, [file], path.join(dir, 'malformed-neg-risk.json'));
    expect(summary.malformed_rows).toBe(3);
    expect(summary.dead_letters).toBe(4);
    const deadLetters = (await readAll(log, STREAMS.deadLetters.topic)).map((m) => STREAMS.deadLetters.codec.decode(m.value));
    expect(deadLetters.map((d) => d.reason)).toEqual([
      expect.stringContaining('block_number "x12"'),
      expect.stringContaining('transaction_hash "0x12"'),
      expect.stringContaining('data is not 0x hex'),
      expect.any(String),
    ]);
    expect(deadLetters.every((d) => d.origin === 'polygon/log-file')).toBe(true);
    expect(await published(log)).toEqual(rpcEvents);
    await log.close();
  });
});

test('cryo logs without a blocks file take block times and hashes from the RPC, and give the same events', async () => {
  const log = await fileLog('rpc-headers-log');
  const summary = await runImport(
    log,
    [path.join(dir, 'cryo', 'polygon__logs__a.parquet'), path.join(dir, 'cryo', 'polygon__logs__b.parquet')],
    path.join(dir, 'rpc-headers-neg-risk.json'),
    reader,
  );
  expect(summary).toMatchObject({ files: 2, blocks_files: 0, dead_letters: 0 });
  expect(summary.block_headers_from).toEqual(['the RPC (simulator)']);
  expect(await published(log)).toEqual(rpcEvents);
  await log.close();
});

test('files without block times and no RPC are refused, naming what to add', async () => {
  const file = path.join(dir, 'cryo', 'polygon__logs__a.parquet');
  await expect(runImport(await fileLog('refused-log'), [file], path.join(dir, 'refused-neg-risk.json'))).rejects.toThrow(
    /has no block times or hashes .* add the cryo blocks files of blocks \d+\.\.\d+ to the paths, or set POLYGON_RPC_URL/,
  );
});
