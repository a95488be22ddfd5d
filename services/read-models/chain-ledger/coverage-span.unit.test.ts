/** chain-ledger/queries.ts withinStatement: the span the routes take from the chain starts no earlier than the stated contiguous range. */
import { withinStatement } from './queries.js';

const published = { firstBlock: 100, firstMs: 1_000_000, lastBlock: 500, lastMs: 5_000_000 };
const stated = (fromBlock: number, fromMs: number) => ({ fromBlock, fromMs, toBlock: 500, toMs: 5_000_000, historyStartBlock: 0 });

test('a history fill that published the first events of a range before the statement: the span starts at the statement', () => {
  expect(withinStatement(published, stated(300, 3_000_000))).toEqual({ ...published, firstBlock: 300, firstMs: 3_000_000 });
});

test('a statement at or before the first published event changes nothing', () => {
  expect(withinStatement(published, stated(100, 1_000_000))).toBe(published);
  expect(withinStatement(published, stated(50, 500_000))).toBe(published);
});

test('a statement past everything published leaves no span', () => {
  expect(withinStatement(published, stated(600, 6_000_000))).toBeNull();
});
