/**
 * The viem JSON-RPC adapter of the chain-reader port against the simulator's Polygon JSON-RPC: head,
 * blocks (batched), logs, receipts, and the provider behaviours the chain source relies on - a refused
 * range is LogRangeTooLargeError, rate limiting is not, and the head is never served from a cache.
 */
import { openRpcChainReader, isRateLimited } from '../../services/chain/rpc-chain-reader.js';
import { ContractBook } from '../../services/chain/contract-book.js';
import { loadConfig } from '../../services/config.js';
import { type ChainReader, LogRangeTooLargeError } from '../../services/ports/chain-reader.js';
import { type RunningSimulator, startSimulator } from '../../simulator/server.js';
import { SIM_CLIENT_VERSION } from '../../simulator/routes-rpc.js';
import { fixedClock, SMALL_WORLD } from '../simulator/fixtures.js';

const book = new ContractBook(loadConfig({}).chain.contracts);
const reader = (sim: RunningSimulator, requestsPer10s = 1_000) =>
  openRpcChainReader({ url: sim.rpcUrl, requestsPer10s, timeoutMs: 5_000, batchSize: 3 });

describe('against a well-behaved node', () => {
  let sim: RunningSimulator;
  let chain: ChainReader;
  beforeAll(async () => {
    sim = await startSimulator({ ...SMALL_WORLD, port: 0, clock: fixedClock(), tickIntervalMs: 60_000 });
    chain = reader(sim);
  });
  afterAll(() => sim.close());

  test('chain id, client version, and a head that moves as blocks are made', async () => {
    expect(await chain.chainId()).toBe(137);
    expect(await chain.clientVersion()).toBe(SIM_CLIENT_VERSION);
    const head = await chain.blockNumber();
    expect(head).toBe(BigInt(sim.chain.head()));
    sim.advance(5_000);
    expect(await chain.blockNumber()).toBe(head + 5n);
  });

  test('blocks: hash, parent and time as the node has them, several per round trip, null beyond the head', async () => {
    const head = sim.chain.head();
    const block = await chain.block(BigInt(head - 1));
    expect(block).toEqual({
      number: BigInt(head - 1),
      hash: sim.chain.blockHash(head - 1),
      parentHash: sim.chain.blockHash(head - 2),
      timestamp: sim.chain.secondOfBlock(head - 1),
    });
    expect(await chain.block(BigInt(head + 100))).toBeNull();
    const numbers = [0, 1, 2, 3, 4, 5, 6].map((i) => BigInt(head - i * 10));
    const blocks = await chain.blocks([...numbers, numbers[0]!]);
    expect([...blocks.keys()].sort()).toEqual([...numbers].sort());
    for (const n of numbers) expect(blocks.get(n)?.hash).toBe(sim.chain.blockHash(Number(n)));
  });

  test('logs: only the configured contracts and topics, lower-case, with their coordinates', async () => {
    const to = sim.chain.head();
    const from = to - 3_600;
    const query = book.logQuery(to);
    const logs = await chain.logs({ addresses: query.addresses, topics: [query.topics], fromBlock: BigInt(from), toBlock: BigInt(to) });
    const expected = sim.chain.logs({
      fromBlock: from,
      toBlock: to,
      addresses: new Set(query.addresses),
      topics: [new Set(query.topics)],
    });
    expect(logs.length).toBe(expected.length);
    expect(logs.length).toBeGreaterThan(100);
    expect(logs[0]).toEqual({
      address: expected[0]!.address,
      topics: expected[0]!.topics,
      data: expected[0]!.data,
      blockNumber: BigInt(expected[0]!.blockNumber),
      blockHash: expected[0]!.blockHash,
      transactionHash: expected[0]!.transactionHash,
      logIndex: expected[0]!.logIndex,
      removed: false,
    });
    // ERC-1155 transfers are not asked for: they come with receipts.
    expect(new Set(logs.map((l) => l.address))).toEqual(new Set(expected.map((l) => l.address)));
  });

  test('a receipt carries every log of its transaction, transfers included', async () => {
    const adapterSplit = sim.state.journal.entries.find(
      (e) => e.kind === 'activity' && e.activity.type === 'SPLIT' && sim.chain.transactions.isV2(e.second),
    );
    expect(adapterSplit).toBeDefined();
    const hash = sim.chain.transactions.txHashOf(adapterSplit!);
    const receipt = await chain.receipt(hash);
    expect(receipt?.status).toBe('success');
    expect(receipt?.logs.map((l) => l.topics[0])).toContain('0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb');
    expect(await chain.receipt(`0x${'9'.repeat(64)}`)).toBeNull();
  });

  test('after a reorg the replaced blocks have new hashes and their logs new coordinates', async () => {
    sim.advance(10_000);
    const head = sim.chain.head();
    const query = book.logQuery(head);
    const read = () =>
      chain.logs({ addresses: query.addresses, topics: [query.topics], fromBlock: BigInt(head - 2), toBlock: BigInt(head) });
    const before = await read();
    const oldHash = (await chain.block(BigInt(head)))!.hash;
    sim.reorg(3);
    expect((await chain.block(BigInt(head)))!.hash).not.toBe(oldHash);
    expect((await chain.block(BigInt(head - 3)))!.hash).toBe(sim.chain.blockHash(head - 3));
    const after = await read();
    expect(after.map((l) => l.transactionHash).sort()).toEqual(before.map((l) => l.transactionHash).sort());
    expect(after.every((l) => !before.some((b) => b.blockHash === l.blockHash))).toBe(true);
  });
});

describe('against a node that refuses wide ranges and throttles', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({
      ...SMALL_WORLD,
      port: 0,
      clock: fixedClock(),
      tickIntervalMs: 60_000,
      faults: { rpcMaxBlockRange: 100, rpcMaxLogs: 50 },
    });
    // A minute of live trading (2 trades a second): well over 50 logs in the last 100 blocks.
    sim.advance(60_000);
  });
  afterAll(() => sim.close());

  test('too many blocks or results is a LogRangeTooLargeError; a narrower range is served', async () => {
    const chain = reader(sim);
    const head = BigInt(sim.chain.head());
    const query = book.logQuery(Number(head));
    const logs = (fromBlock: bigint, toBlock: bigint) =>
      chain.logs({ addresses: query.addresses, topics: [query.topics], fromBlock, toBlock });
    await expect(logs(head - 100n, head)).rejects.toBeInstanceOf(LogRangeTooLargeError);
    await expect(logs(head - 99n, head)).rejects.toThrow(/more than 50 results/);
    await expect(logs(head - 99n, head)).rejects.toBeInstanceOf(LogRangeTooLargeError);
    expect(Array.isArray(await logs(head - 5n, head))).toBe(true);
  });

  test('throttling (HTTP 429, "rate limit exceeded") is told apart from a refused range', async () => {
    const throttled = await startSimulator({
      ...SMALL_WORLD,
      port: 0,
      clock: fixedClock(),
      tickIntervalMs: 60_000,
      faults: { rpcRequestsPer10s: 5 },
    });
    try {
      const greedy = reader(throttled);
      const head = BigInt(throttled.chain.head());
      const query = book.logQuery(Number(head));
      const errors: unknown[] = [];
      for (let i = 0; i < 8; i++) {
        await greedy
          .logs({ addresses: query.addresses, topics: [query.topics], fromBlock: head, toBlock: head })
          .catch((e) => errors.push(e));
      }
      expect(errors.length).toBe(3);
      expect(errors.every((e) => !(e instanceof LogRangeTooLargeError) && isRateLimited(e))).toBe(true);
    } finally {
      await throttled.close();
    }
  });
});
