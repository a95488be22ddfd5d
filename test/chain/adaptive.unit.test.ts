/** The getLogs window's search for a provider's limit, watermark keys per partition, and finding a block by time. */
import { blockAt, planChainRange } from '../../services/backfill/chain-backfill.js';
import { parseBackfillArguments } from '../../services/backfill/arguments.js';
import { ContractBook } from '../../services/chain/contract-book.js';
import { watermarkKeys } from '../../services/chain/ledger-events.js';
import { AdaptiveWindow } from '../../services/chain/range-reader.js';
import { loadConfig } from '../../services/config.js';
import { partitionForKey } from '../../services/eventlog/partitioner.js';
import type { ChainReader } from '../../services/ports/chain-reader.js';

test('the window doubles, then finds a 1,000-block limit with a few refusals and stays there', () => {
  const window = new AdaptiveWindow(50, 2_000);
  const sizes: string[] = [];
  for (let i = 0; i < 30; i++) {
    const size = window.size;
    if (size > 1_000) window.refused();
    else window.succeeded();
    sizes.push(size > 1_000 ? `${size}x` : String(size));
  }
  expect(sizes.slice(0, 8)).toEqual(['50', '100', '200', '400', '800', '1600x', '1200x', '1000']);
  expect(sizes.slice(-10)).toEqual(Array(10).fill('1000'));
  expect(sizes.filter((s) => s.endsWith('x')).length).toBeLessThanOrEqual(9);
});

test('a range cut short at the head says nothing about the limit', () => {
  const window = new AdaptiveWindow(100, 2_000);
  window.succeeded(3);
  expect(window.size).toBe(100);
  window.succeeded(100);
  expect(window.size).toBe(200);
});

test('one watermark key per partition', () => {
  const keys = watermarkKeys(8);
  expect(keys.map((key) => partitionForKey(key, 8))).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
});

/** A chain whose block n (from 1,000) was made at n x 2 s. */
const fakeReader = (head: number) =>
  ({
    blockNumber: async () => BigInt(head),
    block: async (n: bigint) =>
      n < 1_000n || n > BigInt(head) ? null : { number: n, hash: '0x', parentHash: '0x', timestamp: Number(n) * 2 },
  }) as unknown as ChainReader;

test('the first block at or after a time, and the planned range of a request', async () => {
  const reader = fakeReader(50_000);
  expect(await blockAt(reader, 4_001_000, 0, 50_001)).toBe(2_001);
  expect(await blockAt(reader, 0, 0, 50_001)).toBe(1_000);
  const book = new ContractBook(loadConfig({}).chain.contracts);
  const args = parseBackfillArguments(['--source', 'chain', '--from', new Date(20_000_000).toISOString()]);
  // From the block made at 20,000 s; to the confirmed head, or where the follower started.
  expect(await planChainRange(args, reader, book, 3, null, 0)).toEqual({ from: 10_000, to: 49_997 });
  const follower = { first_block: 30_000 } as never;
  expect(await planChainRange(args, reader, book, 3, follower, 0)).toEqual({ from: 10_000, to: 29_999 });
  await expect(
    planChainRange(parseBackfillArguments(['--source', 'chain', '--to-block', '49999']), reader, book, 3, null, 0),
  ).rejects.toThrow(/past the confirmed head/);
});
