/**
 * Positions marked at the mid of their own token's latest order book (mark-price.ts), through the real
 * sink into chDB: the wallet statement reads each token's newest book top as book_tops (migration
 * 0058) keeps it, through market_marks (market-marks.ts), so a book of a token the wallet does not
 * hold, or an older book of its own token (even one that arrives later), must not move the mark, and
 * of two versions of one snapshot the later ingested counts, as in order_books.
 * Figures by hand in the comments (USDC).
 */
import { readMigrations } from '../../analytics/migrate.js';
import { outcomeBook, binaryMarket, outcomeFill, outcomeToken } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';

const NOW = Date.now();
const M = `0x${'6'.repeat(64)}`;
const N = `0x${'7'.repeat(64)}`;
const K = `0x${'4'.repeat(40)}`;
const tok = outcomeToken;

let block = 81_000_000;
function buy(market: string, i: number, shares: number, price: number, at: number) {
  block += 1;
  return outcomeFill({ tx: block, block, at, wallet: K, market, index: i, side: 'buy', shares, price });
}
const book = outcomeBook;

let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('book-marks');
  const market = (id: string) => binaryMarket(id, NOW);
  await h.given({ markets: [market(M), market(N)] });
  await h.given({
    chainLedger: [
      buy(M, 0, 10, 0.5, NOW - 60_000), // K: 10 YES of M for 5; last trade 0.5
      buy(N, 0, 10, 0.5, NOW - 50_000), // K: 10 YES of N for 5; last trade 0.5
    ],
  });
  await h.given({
    bookSnapshots: [
      book(M, 0, 0.58, 0.62, NOW - 30_000), // M YES, latest: tight, mid 0.6
      book(M, 1, 0.2, 0.22, NOW - 20_000), // M NO: not held, must not matter
      book(N, 0, 0.3, 0.7, NOW - 10_000), // N YES: spread 0.4, too wide: last trade 0.5
    ],
  });
  // M YES, older and wide, arriving after the latest.
  await h.given({ bookSnapshots: [book(M, 0, 0.1, 0.9, NOW - 40_000)] });
}, 120_000);
afterAll(() => h.close());

test('a held token marks at the mid of its latest tight book, else at the last trade', async () => {
  const { status, body } = await h.get(`/positions/${K}`);
  expect(status).toBe(200);
  const marks = body.data.positions.map((p: any) => [p.market_id, p.mark_price, p.mark_basis, p.unrealized_pnl_usdc]);
  expect(marks).toEqual([
    [M, 0.6, 'mid', 1], // 10 x 0.6 - 5 = 1
    [N, 0.5, 'last_trade', 0], // 10 x 0.5 - 5 = 0
  ]);
  const stats = await h.get(`/traders/${K}`);
  expect(stats.body.data.lifetime.unrealized_pnl).toBe(1);
});

test('a later-ingested version of the latest snapshot replaces it, as in order_books', async () => {
  // N YES's snapshot again (same id and time), ingested 5 s later: 0.45/0.53, spread 0.08, mid 0.49.
  await h.given({ bookSnapshots: [book(N, 0, 0.45, 0.53, NOW - 10_000, NOW - 5_000)] });
  const { body } = await h.get(`/positions/${K}`);
  expect(body.data.positions.map((p: any) => [p.market_id, p.mark_price, p.mark_basis, p.unrealized_pnl_usdc])).toEqual([
    [M, 0.6, 'mid', 1],
    [N, 0.49, 'mid', -0.1], // 10 x 0.49 - 5 = -0.10
  ]);
  // The book endpoint's newest version of N YES's book is the same one.
  const tops = await h.rows<{ bid: number; ask: number }>(
    'SELECT best_bid AS bid, best_ask AS ask FROM order_books WHERE asset_id = {a:String} ORDER BY ts DESC, ingested_at DESC LIMIT 1',
    { a: tok(N, 0) },
  );
  expect(tops).toEqual([{ bid: 0.45, ask: 0.53 }]);
});

test("the migration's fill equals what the view keeps", async () => {
  const read = () =>
    h.rows(
      `SELECT market_id, asset_id, finalizeAggregation(top) AS top, toUnixTimestamp64Milli(last_ts) AS last_ms
         FROM book_tops FINAL ORDER BY market_id, asset_id`,
    );
  const kept = await read();
  // M YES, M NO, N YES: one row each, whatever the snapshots.
  expect(kept.map((r: any) => [r.asset_id, r.top, Number(r.last_ms)])).toEqual([
    [tok(M, 0), [0.58, 0.62], NOW - 30_000],
    [tok(M, 1), [0.2, 0.22], NOW - 20_000],
    [tok(N, 0), [0.45, 0.53], NOW - 10_000],
  ]);
  for (const statement of readMigrations().find((m) => m.name === '0058_book_tops')!.statements) await h.store.command(statement);
  expect(await read()).toEqual(kept);
});
