/**
 * The boards without a category served from their built pages (board-pages.ts): ranked live until the
 * first build; as fresh as the last build after it (a later fill shows at the next build, and
 * `data_as_of` says which ledger position a page is of); a build skipped while nothing it shows
 * changed; a build that stopped midway neither served nor kept; the periodic job builds on its own; a
 * board built to its depth serves the pages it holds whole and ranks the others live.
 */
import { outcomeFill } from '../../../test/support/events.js';
import { waitFor } from '../../../test/support/http.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { pino } from 'pino';
import { loadConfig } from '../../config.js';
import { iso } from '../../shared/time.js';
import { BoardPages, startBoardPages } from './board-pages.js';
import { TraderValuation } from './valuation.js';

const NOW = Date.now();
/** The service's default depth, deeper than any board here: every board is built whole. */
const DEPTH = loadConfig({}).leaderboardPageDepth;
const M = `0x${'b'.repeat(64)}`;
const [X, Y, Z] = ['1', '2', '3'].map((c) => `0x${c.repeat(40)}`) as [string, string, string];

let n = 0;
/** A taker fill on YES of M `minutesAgo` before now, `shares` at `price`. */
const fill = (wallet: string, side: 'buy' | 'sell', shares: number, price: number, minutesAgo: number) => {
  n += 1;
  return outcomeFill({
    tx: 500 + n,
    block: 82_000_000 + n,
    at: NOW - minutesAgo * 60_000,
    wallet,
    market: M,
    index: 0,
    side,
    shares,
    price,
  });
};

let h: ProjectionHarness;
const board = async () =>
  (await h.get('/leaderboard?limit=3')).body.data as Array<{ wallet: string; total_realized_pnl: number; data_as_of: string }>;

beforeAll(async () => {
  h = await projectionHarness('board_pages');
  // X: 10 bought at 0.2, sold at 0.7: 5 realized. Y: 10 bought at 0.5, sold at 0.6: 1 realized.
  await h.given({
    chainLedger: [fill(X, 'buy', 10, 0.2, 50), fill(X, 'sell', 10, 0.7, 40), fill(Y, 'buy', 10, 0.5, 30), fill(Y, 'sell', 10, 0.6, 20)],
  });
}, 120_000);
afterAll(() => h.close());

test('ranked live before the first build, then served from the build until the next one', async () => {
  expect((await board()).map((e) => [e.wallet, e.total_realized_pnl])).toEqual([
    [X, 5],
    [Y, 1],
  ]);
  const pages = new BoardPages(h.store, DEPTH);
  expect((await pages.build()).built).toBe(true);
  const built = await board();
  expect(built.map((e) => [e.wallet, e.total_realized_pnl, e.data_as_of])).toEqual([
    [X, 5, iso(NOW - 20 * 60_000)],
    [Y, 1, iso(NOW - 20 * 60_000)],
  ]);
  // Nothing changed: no build.
  expect((await pages.build()).built).toBe(false);

  // Z: 10 bought at 0.1, sold at 0.9: 8 realized, above X. The ledger has it; the served build does not.
  await h.given({ chainLedger: [fill(Z, 'buy', 10, 0.1, 10), fill(Z, 'sell', 10, 0.9, 5)] });
  expect((await h.get(`/traders/${Z}`)).body.data.lifetime.total_realized_pnl).toBe(8);
  expect(await board()).toEqual(built);
  const next = await pages.build();
  expect(next.built).toBe(true);
  expect((await board()).map((e) => [e.wallet, e.total_realized_pnl, e.data_as_of])).toEqual([
    [Z, 8, iso(NOW - 5 * 60_000)],
    [X, 5, iso(NOW - 5 * 60_000)],
    [Y, 1, iso(NOW - 5 * 60_000)],
  ]);

  // The valuation pass's rows are something the boards show: a pass makes the next build run.
  expect((await h.get('/leaderboard?sort_by=total_pnl')).body.data).toEqual([]);
  await new TraderValuation(h.store).run();
  expect((await pages.build()).built).toBe(true);
  expect((await h.get('/leaderboard?sort_by=total_pnl')).body.data.map((e: { wallet: string }) => e.wallet)).toEqual([Z, X, Y]);
});

test('a build that stopped midway is neither served nor kept', async () => {
  const before = await board();
  // A build a stop aborted (periodic.ts) ends before its first board and leaves the served pages.
  await expect(new BoardPages(h.store, DEPTH).build(Date.now(), true, AbortSignal.abort())).rejects.toThrow(/abort/i);
  expect(await board()).toEqual(before);
  // What a build that stopped after its first board would leave: a partial copy in the _next table.
  await h.store.command(
    `INSERT INTO leaderboard_pages_next SELECT * REPLACE (toUInt32(rank + 1) AS rank) FROM leaderboard_pages WHERE board = 'total_realized_pnl:all'`,
  );
  await h.store.command(
    `INSERT INTO leaderboard_pages_next SELECT * REPLACE ('0x${'4'.repeat(40)}' AS wallet, toUInt32(1) AS rank, 1e12 AS sort_value)
       FROM leaderboard_pages WHERE board = 'total_realized_pnl:all' AND rank = 1`,
  );
  expect(await board()).toEqual(before);
  // A new process's first build (no signature yet) truncates it and builds every board whole.
  const build = await new BoardPages(h.store, DEPTH).build();
  expect(build.built).toBe(true);
  expect(await board()).toEqual(before);
  const [rows] = await h.store.query<{ n: string }>(
    "SELECT toString(count()) AS n FROM leaderboard_pages WHERE board = 'total_realized_pnl:all'",
  );
  expect(Number(rows!.n)).toBe(3);
  expect(build.rows).toBe(Number((await h.store.query<{ n: string }>('SELECT toString(count()) AS n FROM leaderboard_pages'))[0]!.n));
});

test('the periodic job builds when the ledger moves', async () => {
  const job = startBoardPages(h.store, 100, pino({ level: 'silent' }), DEPTH);
  try {
    await job.firstRun;
    // W: 10 bought at 0.05, sold at 0.95: 9 realized, the new first.
    const W = `0x${'5'.repeat(40)}`;
    await h.given({ chainLedger: [fill(W, 'buy', 10, 0.05, 4), fill(W, 'sell', 10, 0.95, 3)] });
    await waitFor(async () => (await board())[0]?.wallet === W, 20_000, 'the job built the board with W first');
    expect((await board())[0]).toMatchObject({ wallet: W, total_realized_pnl: 9, data_as_of: iso(NOW - 3 * 60_000) });
  } finally {
    await job.stop();
  }
});

test('a build writes each board to its depth: pages it holds whole are served from it, the others ranked live', async () => {
  // The board: W 9, Z 8, X 5, Y 1. Built to a depth of 3: W, Z and X, and that the board holds more.
  const build = await new BoardPages(h.store, 3).build(Date.now(), true);
  expect(build.built).toBe(true);
  expect(
    await h.store.query("SELECT wallet, rank, truncated FROM leaderboard_pages WHERE board = 'total_realized_pnl:all' ORDER BY rank"),
  ).toEqual([
    { wallet: `0x${'5'.repeat(40)}`, rank: 1, truncated: 1 },
    { wallet: Z, rank: 2, truncated: 1 },
    { wallet: X, rank: 3, truncated: 1 },
  ]);
  // V: 10 bought at 0.3, sold at 0.9: 6 realized, third. The ledger has it; the build does not.
  const V = `0x${'6'.repeat(40)}`;
  await h.given({ chainLedger: [fill(V, 'buy', 10, 0.3, 2), fill(V, 'sell', 10, 0.9, 1)] });
  const entries = (body: any) => body.data.map((e: any) => [e.wallet, e.rank, e.total_realized_pnl, e.data_as_of]);
  // The first page lies within the depth (its 2 entries and the row that says whether more follow):
  // the build's, as of the build.
  const first = (await h.get('/leaderboard?limit=2')).body;
  expect(entries(first)).toEqual([
    [`0x${'5'.repeat(40)}`, 1, 9, iso(NOW - 3 * 60_000)],
    [Z, 2, 8, iso(NOW - 3 * 60_000)],
  ]);
  // The next lies past it: ranked live, as of the ledger (V's fill), ranks going on from the cursor.
  const second = (await h.get(`/leaderboard?limit=2&cursor=${encodeURIComponent(first.pagination.next_cursor)}`)).body;
  expect(entries(second)).toEqual([
    [V, 3, 6, iso(NOW - 60_000)],
    [X, 4, 5, iso(NOW - 60_000)],
  ]);
  // A page running past the depth (3 entries and the next row) is ranked live whole.
  expect(entries((await h.get('/leaderboard?limit=3')).body)).toEqual([
    [`0x${'5'.repeat(40)}`, 1, 9, iso(NOW - 60_000)],
    [Z, 2, 8, iso(NOW - 60_000)],
    [V, 3, 6, iso(NOW - 60_000)],
  ]);
});
