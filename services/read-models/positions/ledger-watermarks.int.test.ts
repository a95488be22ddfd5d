/**
 * data_as_of with the chain source (migration 0087), through the real sink into chDB: the ledger
 * applies one partition's batch at a time, so a partition can be applied past the others; the time and
 * block it serves are the lowest watermark over every partition, up to which it holds every change,
 * not its newest change. Before a watermark reached every partition it is the newest change.
 */
import { watermarkKeys, watermarks } from '../../chain/ledger-events.js';
import { partitionForKey } from '../../eventlog/partitioner.js';
import { chainLedger } from '../chain-ledger/streams.js';
import { binaryMarket, outcomeFill } from '../../../test/support/events.js';
import { walletReports } from '../trader-stats/queries.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';

const NOW = Date.now();
const START = NOW - 3_600_000;
const M = `0x${'a7'.repeat(32)}`;
const N = `0x${'b8'.repeat(32)}`;
const A = `0x${'9'.repeat(40)}`;
const KEYS = watermarkKeys(chainLedger.partitions);
const context = { chainId: 137, source: 'simulator' as const, nowMs: NOW, negRiskAdapter: `0x${'0'.repeat(40)}` };
/** Block n is START + n seconds. */
const at = (n: number) => START + (n - 84_000_000) * 1000;
const fill = (market: string, n: number) =>
  outcomeFill({ tx: n, block: n, at: at(n), wallet: A, market, index: 0, side: 'buy', shares: 10, price: 0.5 });
const mark = (n: number, keys: readonly string[] = KEYS) =>
  watermarks({ number: n, hash: `0x${n.toString(16).padStart(64, '0')}`, timeMs: at(n) }, keys, context);

let h: ProjectionHarness;
beforeAll(async () => {
  h = await projectionHarness('ledger-watermarks');
  await h.given({ markets: [binaryMarket(M, NOW), binaryMarket(N, NOW)] });
}, 120_000);
afterAll(() => h.close());

/** What GET /traders serves (from the wallet's snapshot, rebuilt after each change of the wallet). */
const served = async () => {
  const body = (await h.get(`/traders/${A}`)).body.data;
  return { time: body.data_as_of, block: body.data_as_of_block, trades: body.lifetime.trades };
};
/** The progress a read of the tables (and a snapshot rebuilt now) states. */
const progress = async () => (await walletReports(h.store, [A], { nowMs: Date.now(), curveDays: 0 })).asOf;
const asOfBlock = (n: number) => ({ time: new Date(at(n)).toISOString(), block: n });

test('data_as_of is the lowest partition watermark the ledger applied, never a change ahead of a partition still waiting', async () => {
  const partitionOfM = partitionForKey(M, chainLedger.partitions);
  expect(partitionForKey(N, chainLedger.partitions)).not.toBe(partitionOfM);
  // No watermark yet: the newest change applied.
  await h.given({ chainLedger: [fill(M, 84_000_010), fill(N, 84_000_020)] });
  expect(await served()).toEqual({ ...asOfBlock(84_000_020), trades: 2 });

  // Watermarks on every partition but M's: still the newest change (one partition says nothing of the others).
  const others = KEYS.filter((key) => partitionForKey(key, chainLedger.partitions) !== partitionOfM);
  await h.given({ chainLedger: mark(84_000_030, others) });
  expect(await progress()).toEqual(asOfBlock(84_000_020));
  // Every partition at 84_000_030.
  await h.given({ chainLedger: mark(84_000_030) });
  expect(await progress()).toEqual(asOfBlock(84_000_030));

  // M's partition applied further (a fill at 84_000_040 and its watermark at 84_000_050) while the
  // others have not come: the fill is served, and data_as_of stays where every partition is whole
  // (the newest change, 84_000_040, would claim the other partitions' changes up to it).
  const onlyM = KEYS.filter((key) => partitionForKey(key, chainLedger.partitions) === partitionOfM);
  await h.given({ chainLedger: [fill(M, 84_000_040), ...mark(84_000_050, onlyM)] });
  expect(await served()).toEqual({ ...asOfBlock(84_000_030), trades: 3 });
  // The others catch up: the lowest is now 84_000_050; the next change of the wallet is served with it.
  await h.given({ chainLedger: mark(84_000_050, others) });
  expect(await progress()).toEqual(asOfBlock(84_000_050));
  await h.given({ chainLedger: [fill(N, 84_000_055), ...mark(84_000_060)] });
  expect(await served()).toEqual({ ...asOfBlock(84_000_060), trades: 4 });
  expect(await h.rows('SELECT count() AS n FROM (SELECT ledger_group FROM ledger_watermarks GROUP BY ledger_group)')).toEqual([
    { n: chainLedger.partitions },
  ]);
});
