/**
 * wallet_snapshots (migration 0066) through the real sink into chDB: the single-wallet reads serve
 * each wallet's rows from its snapshot, and what they serve equals what a read of position_state and
 * trader_days gives; a write is served once the refresher rebuilt its wallet, and data_as_of says how
 * far the served rows go; a wallet with no snapshot yet is read from the tables; the statement reads
 * both key-value tables by key; a refresher with no stored start rebuilds every wallet.
 */
import { DAY_MS } from '../../shared/time.js';
import { marketDataPart } from './market-data.js';
import { SNAPSHOT_MARKETS, SNAPSHOT_PART, walletPositions } from './queries.js';
import { walletReports } from '../trader-stats/queries.js';
import { SNAPSHOTS_OF_WALLETS, snapshotsOf, WalletSnapshots } from './wallet-snapshots.js';
import { binaryMarket, outcomeFill, outcomeToken } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';

const NOW = Date.now();
const M = `0x${'d4'.repeat(32)}`;
const N = `0x${'e5'.repeat(32)}`;
const A = `0x${'6'.repeat(40)}`;
const B = `0x${'7'.repeat(40)}`;
const C = `0x${'8'.repeat(40)}`;

let block = 83_000_000;
const fill = (wallet: string, market: string, index: number, side: 'buy' | 'sell', shares: number, price: number, at: number) => {
  block += 1;
  return outcomeFill({ tx: block, block, at, wallet, market, index, side, shares, price });
};
const market = (id: string) => binaryMarket(id, NOW);

let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('wallet-snapshots');
  await h.given({ markets: [market(M), market(N)] });
  await h.given({
    chainLedger: [
      fill(A, M, 0, 'buy', 10, 0.5, NOW - 3 * DAY_MS),
      fill(A, M, 0, 'buy', 10, 0.6, NOW - 3_600_000),
      fill(A, M, 0, 'sell', 5, 0.7, NOW - 1_800_000),
      fill(A, N, 1, 'buy', 4, 0.25, NOW - 2 * DAY_MS),
      fill(B, N, 0, 'buy', 2, 0.75, NOW - 60_000),
    ],
  });
}, 120_000);
afterAll(() => h.close());

const snapshotCount = async (wallets: string[]) =>
  Number(
    (
      await h.rows<{ n: string }>('SELECT toString(count()) AS n FROM wallet_snapshots WHERE wallet IN {w:Array(String)}', { w: wallets })
    )[0]!.n,
  );

test("the single-wallet reads from a snapshot equal the tables' rows", async () => {
  expect(await snapshotCount([A, B])).toBe(2);
  for (const wallet of [A, B]) {
    const options = { nowMs: Date.now(), curveDays: 30 };
    const tables = await walletReports(h.store, [wallet], options);
    const snapshot = await walletReports(h.store, [wallet], { ...options, fromSnapshot: true });
    expect(snapshot.reports).toEqual(tables.reports);
    expect(snapshot.markets).toEqual(tables.markets);
    expect(snapshot.asOf).toEqual(tables.asOf);
    expect((await walletPositions(h.store, wallet))!.positions).toEqual(tables.reports.get(wallet)!.report.positions);
  }
  // Hand-checked: A bought 10 + 10 YES of M at 0.50 and 0.60 (average 0.55) and sold 5 at 0.70:
  // 15 left at a cost of 8.25, realized 5 x (0.70 - 0.55) = 0.75; and 4 NO of N at 0.25.
  const body = (await h.get(`/positions/${A}`)).body.data;
  const m = body.positions.find((p: { asset_id: string }) => p.asset_id === outcomeToken(M, 0));
  expect([m.size_shares_micro, m.cost_basis_micro, m.realized_pnl_usdc]).toEqual(['15000000', '8250000', 0.75]);
  expect(body.positions).toHaveLength(2);
  const stats = (await h.get(`/traders/${A}`)).body.data;
  expect([stats.lifetime.trades, stats.lifetime.total_realized_pnl, stats.last_30d.trades]).toEqual([4, 0.75, 4]);
});

test('a write is served once a refresh rebuilds its wallet, and data_as_of says how far the rows served go', async () => {
  const before = (await h.get(`/positions/${A}`)).body.data;
  const at = NOW - 600_000;
  await h.given({ chainLedger: [fill(A, M, 0, 'buy', 5, 0.8, at)] }, { refresh: false });
  // Not refreshed: the snapshot's rows and progress, while the tables already hold the fill.
  const stale = (await h.get(`/positions/${A}`)).body.data;
  expect(stale.positions).toEqual(before.positions);
  expect([stale.data_as_of, stale.data_as_of_block]).toEqual([before.data_as_of, before.data_as_of_block]);
  const tables = await walletReports(h.store, [A], { nowMs: Date.now(), curveDays: 0 });
  expect(tables.asOf.block).toBe(block);
  const run = await snapshotsOf(h.store).refresh();
  expect(run.keys).toBeGreaterThanOrEqual(1);
  // 15 at 8.25 and 5 at 0.80: 20 shares at a cost of 12.25.
  const fresh = (await h.get(`/positions/${A}`)).body.data;
  const m = fresh.positions.find((p: { asset_id: string }) => p.asset_id === outcomeToken(M, 0));
  expect([m.size_shares_micro, m.cost_basis_micro]).toEqual(['20000000', '12250000']);
  expect([fresh.data_as_of, fresh.data_as_of_block]).toEqual([tables.asOf.time, block]);
  expect(before.data_as_of_block).toBe(block - 1);
  expect((await h.get(`/traders/${A}`)).body.data.lifetime.trades).toBe(5);
});

test('a wallet the refresher has not built yet is read from the tables', async () => {
  await h.given({ chainLedger: [fill(C, M, 1, 'buy', 3, 0.4, NOW - 120_000)] }, { refresh: false });
  expect(await snapshotCount([C])).toBe(0);
  const positions = await h.get(`/positions/${C}`);
  expect(positions.status).toBe(200);
  expect(positions.body.data.positions.map((p: { size_shares_micro: string }) => p.size_shares_micro)).toEqual(['3000000']);
  const stats = await h.get(`/traders/${C}`);
  expect([stats.status, stats.body.data.lifetime.trades]).toEqual([200, 1]);
  expect((await h.get(`/traders/0x${'9'.repeat(40)}`)).status).toBe(404);
});

test('the statement reads wallet_snapshots and market_marks by key, and a rebuild reads the tables by key', async () => {
  const plan = async (sql: string, params: Record<string, unknown>) =>
    (await h.rows<{ explain: string }>(`EXPLAIN indexes = 1 ${sql}`, params)).map((r) => r.explain).join('\n');
  const snapshot = await plan(SNAPSHOT_PART, { wallets: [A] });
  expect(snapshot).toMatch(/ReadFromEmbeddedRocksDB\s+ReadType: GetKeys/);
  const marks = await plan(marketDataPart(SNAPSHOT_MARKETS).market_data, { wallets: [A] });
  expect(marks.match(/ReadFromEmbeddedRocksDB\s+ReadType: GetKeys/g)).toHaveLength(1);
  expect(marks).not.toMatch(/ReadFromMergeTree/);
  const rebuild = await plan(SNAPSHOTS_OF_WALLETS, { wallets: [A, B] });
  const reads = rebuild.split('ReadFromMergeTree (').slice(1);
  expect(reads.map((r) => /^(?:\w+\.)?(\w+)\)/.exec(r)?.[1]).sort()).toEqual(['position_state', 'trader_days']);
  for (const read of reads) expect(read).toMatch(/PrimaryKey[\s\S]*?Condition: [^\n]*\(wallet in 2-element set\)/);
});

test('a touched wallet is rebuilt when a run first sees the touch and once more after the overlap, not by every run between', async () => {
  // Long enough that the run after the touch ends inside it on a loaded machine (1.5 s did not, once).
  const overlap = 6_000;
  const refresher = new WalletSnapshots(h.store, overlap);
  // Past the overlap of every touch written so far: this run rebuilds them for good.
  await new Promise((resolve) => setTimeout(resolve, overlap + 500));
  await refresher.refresh();
  await h.given({ chainLedger: [fill(B, N, 0, 'buy', 1, 0.5, NOW - 30_000)] }, { refresh: false });
  const touched = Date.now();
  expect((await refresher.refresh()).keys).toBe(1);
  // Within the overlap after the touch: already rebuilt from rows that hold it.
  expect((await refresher.refresh()).keys).toBe(0);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, touched + overlap + 100 - Date.now())));
  expect((await refresher.refresh()).keys).toBe(1);
  expect((await refresher.refresh()).keys).toBe(0);
  expect((await h.get(`/traders/${B}`)).body.data.lifetime.trades).toBe(2);
});

test('a run that rebuilt nothing stores its start only once the stored one is older than the setting', async () => {
  const stored = async () =>
    Number((await h.rows<{ ms: string }>('SELECT toString(since_ms) AS ms FROM wallet_snapshots_progress WHERE id = 0'))[0]!.ms);
  const every = 2_000;
  const refresher = new WalletSnapshots(h.store, 0, every);
  await refresher.refresh();
  const first = await stored();
  expect((await refresher.refresh()).keys).toBe(0);
  expect(await stored()).toBe(first);
  await new Promise((resolve) => setTimeout(resolve, every + 100));
  expect((await refresher.refresh()).keys).toBe(0);
  const second = await stored();
  expect(second).toBeGreaterThanOrEqual(first + every);
  // A run that rebuilt a wallet stores its start at once.
  await h.given({ chainLedger: [fill(C, M, 1, 'buy', 1, 0.5, NOW - 20_000)] }, { refresh: false });
  expect((await refresher.refresh()).keys).toBe(1);
  expect(await stored()).toBeGreaterThan(second);
});

test('a refresher with no stored start, or one stopped over half a day, rebuilds every wallet', async () => {
  await h.store.command('DELETE FROM wallet_snapshots_progress WHERE id = 0');
  expect((await new WalletSnapshots(h.store).refresh()).keys).toBe(3);
  expect(await snapshotCount([A, B, C])).toBe(3);
  // Another refresher of the store (a restarted process) goes on from the stored start.
  expect((await new WalletSnapshots(h.store, 0).refresh()).keys).toBe(0);
  await h.store.command('INSERT INTO wallet_snapshots_progress (id, since_ms) VALUES (0, {since:Int64})', {
    since: Date.now() - 13 * 3_600_000,
  });
  expect((await new WalletSnapshots(h.store).refresh()).keys).toBe(3);
});
