/**
 * market_marks (migration 0065) through the real sink into chDB: the wallet reads get each market's
 * marks by key, and what they get equals what the three tables it is built from hold (the three-table
 * part the reads used before, kept below as the reference), for today and for a later day; the
 * refresher rebuilds the markets written since its previous run, reading the touches again from its
 * overlap before that run's start; a book top older than book_tops' 30 days is not served.
 */
import { readParts } from '../../analytics/read-parts.js';
import { DAY_MS, iso } from '../../shared/time.js';
import { type MarketDataArrays, type MarketDataRows, marketDataPart, marketDataRows } from '../positions/market-data.js';
import { MARKS_OF_MARKETS, MarketMarks } from './market-marks.js';
import { outcomeBook, binaryMarket, chainResolution, outcomeFill, outcomeToken } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';

const NOW = Date.now();
const M = `0x${'a1'.repeat(32)}`;
const N = `0x${'b2'.repeat(32)}`;
const X = `0x${'c3'.repeat(32)}`; // no catalog record: only a fill and a book
const K = `0x${'5'.repeat(40)}`;
const tok = outcomeToken;

let block = 82_000_000;
const buy = (market: string, i: number, price: number, at: number) => {
  block += 1;
  return outcomeFill({ tx: block, block, at, wallet: K, market, index: i, side: 'buy', shares: 10, price });
};
const book = outcomeBook;
const market = (id: string) => binaryMarket(id, NOW);

/** What the wallet reads got before market_marks: the three tables read under the markets' set. */
const THREE_TABLES = `
  SELECT groupArray((kind, row)) AS value FROM (
    SELECT market_id, 'catalog' AS kind,
           toJSONString((market_id, title, category, status, outcomes, outcome_token_ids, outcome_prices, yes_index, toUnixTimestamp64Milli(closed_at))) AS row
      FROM markets FINAL
    UNION ALL
    SELECT market_id, 'closes_now' AS kind, toJSONString((market_id, c, toString(n))) AS row FROM (
      SELECT market_id, argMaxMerge(close) AS c, sumIf(inputs, day = toDate(0)) - sumIf(inputs, day != toDate(0)) AS n
        FROM market_closes
       WHERE day = toDate(0) OR toInt64(day) >= intDiv({today:Int64}, 86400000)
       GROUP BY market_id)
    UNION ALL
    SELECT market_id, 'books' AS kind, toJSONString((asset_id, t.1, t.2)) AS row FROM (
      SELECT market_id, asset_id, argMaxMerge(top) AS t FROM book_tops GROUP BY market_id, asset_id))
   WHERE market_id IN {ids:Array(String)}`;

const sorted = (rows: MarketDataRows) =>
  Object.fromEntries(Object.entries(rows).map(([kind, list]) => [kind, (list as unknown[]).map((r) => JSON.stringify(r)).sort()]));
const keyed = async (today: number, ids = [M, N, X]) =>
  sorted(marketDataRows(await readParts<MarketDataArrays>(h.store, marketDataPart('{ids:Array(String)}'), { ids }), today));
const reference = async (today: number, ids = [M, N, X]) => {
  const { market_data } = await readParts<{ market_data: Array<[keyof MarketDataRows, string]> }>(
    h.store,
    { market_data: THREE_TABLES },
    { ids, today },
  );
  const rows: MarketDataRows = { catalog: [], books: [], closes_now: [] };
  for (const [kind, text] of market_data) (rows[kind] as unknown[]).push(JSON.parse(text));
  return sorted(rows);
};

let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('market-marks');
  await h.given({ markets: [market(M), market(N)] });
  await h.given({
    chainLedger: [
      buy(M, 0, 0.5, NOW - 3 * DAY_MS),
      buy(M, 0, 0.55, NOW - 60_000),
      buy(N, 1, 0.3, NOW - 50_000),
      buy(X, 0, 0.2, NOW - 40_000),
    ],
  });
  await h.given({
    bookSnapshots: [book(M, 0, 0.58, 0.62, NOW - 30_000), book(M, 1, 0.38, 0.42, NOW - 20_000), book(X, 1, 0.7, 0.9, NOW - 10_000)],
  });
}, 120_000);
afterAll(() => h.close());

test('the keyed marks equal what the three tables hold, today and on a later day', async () => {
  const today = NOW - (NOW % DAY_MS);
  const now = await keyed(today);
  expect(now).toEqual(await reference(today));
  // Hand-checked: M's newest close is 0.55 with 1 input before today (the fill 3 days ago), N's NO
  // bought at 0.3 closes YES at 0.7 with none before today; X has no catalog record.
  expect(now.closes_now).toEqual([JSON.stringify([M, 0.55, '1']), JSON.stringify([N, 0.7, '0']), JSON.stringify([X, 0.2, '0'])].sort());
  expect(now.catalog!.map((r) => JSON.parse(r)[0]).sort()).toEqual([M, N].sort());
  expect(now.books).toEqual(
    [JSON.stringify([tok(M, 0), 0.58, 0.62]), JSON.stringify([tok(M, 1), 0.38, 0.42]), JSON.stringify([tok(X, 1), 0.7, 0.9])].sort(),
  );
  // Tomorrow every input is before the day: M 2, N 1, X 1.
  const later = await keyed(today + DAY_MS);
  expect(later).toEqual(await reference(today + DAY_MS));
  expect(later.closes_now).toEqual([JSON.stringify([M, 0.55, '2']), JSON.stringify([N, 0.7, '1']), JSON.stringify([X, 0.2, '1'])].sort());
});

test('a write is served once a refresh rebuilds its market; a run reads the touches from the overlap before the previous start', async () => {
  const overlap = 2_000;
  const marks = new MarketMarks(h.store, overlap);
  // Past the overlap of every touch written so far.
  await new Promise((resolve) => setTimeout(resolve, overlap + 500));
  const firstStart = Date.now();
  await marks.refresh();
  const refreshedAt = async (id: string) =>
    Number(
      (
        await h.rows<{ ms: string }>('SELECT toUnixTimestamp64Milli(refreshed_at) AS ms FROM market_marks WHERE market_id = {id:String}', {
          id,
        })
      )[0]!.ms,
    );
  // A newest book top of N's NO token, written straight to book_tops (no refresh after it).
  await h.store.command(
    `INSERT INTO book_tops (market_id, asset_id, top, last_ts)
     SELECT {m:String}, {a:String}, argMaxState((toNullable(0.25), toNullable(0.27)), (t, t)), max(t)
       FROM (SELECT fromUnixTimestamp64Milli({at:Int64}, 'UTC') AS t)`,
    { m: N, a: tok(N, 1), at: NOW },
  );
  const today = NOW - (NOW % DAY_MS);
  const before = await keyed(today, [N]);
  expect(before.books).toEqual([]);
  // Touches that became visible late: one stamped within the overlap before the first run's start is
  // read, one stamped earlier is not (the limit the overlap sets, docs/POSITIONS.md).
  await h.store.insert('market_touches', [
    { market_id: M, touched_at: iso(firstStart - overlap + 1_500) },
    { market_id: X, touched_at: iso(firstStart - overlap - 60_000) },
  ]);
  const xBefore = await refreshedAt(X);
  // A key is rebuilt again once the overlap after its newest touch has passed (../touch-refresher.ts).
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, firstStart + 1_600 - Date.now())));
  const second = await marks.refresh();
  expect(await keyed(today, [N])).toEqual(await reference(today, [N]));
  expect((await keyed(today, [N])).books).toEqual([JSON.stringify([tok(N, 1), 0.25, 0.27])]);
  expect(await refreshedAt(X)).toBe(xBefore);
  expect(await refreshedAt(M)).toBeGreaterThanOrEqual(firstStart);
  expect(second.keys).toBeGreaterThanOrEqual(2);
});

test('a refresher goes on from the stored start of the newest run, and rebuilds every market when that is older than half the touches kept', async () => {
  // Another refresher of the store (a restarted process) reads the touches from the stored start.
  const restarted = new MarketMarks(h.store, 2_000);
  const soon = await restarted.refresh();
  expect(soon.keys).toBeLessThan(3);
  // Stopped 13 hours ago: every market of the three tables (M, N, X), whatever was touched.
  await h.store.command('INSERT INTO market_marks_progress (id, since_ms) VALUES (0, {since:Int64})', {
    since: Date.now() - 13 * 3_600_000,
  });
  expect((await new MarketMarks(h.store).refresh()).keys).toBe(3);
});

test('a run given up on a stop stores no progress and rebuilds nothing: the next run rebuilds its markets', async () => {
  const stale = Date.now() - 13 * 3_600_000;
  await h.store.command('INSERT INTO market_marks_progress (id, since_ms) VALUES (0, {since:Int64})', { since: stale });
  const refreshed = () => h.rows<{ n: string }>('SELECT toString(count()) AS n, max(refreshed_at) AS at FROM market_marks');
  const before = await refreshed();
  const stop = new AbortController();
  stop.abort(new Error('stopping'));
  await expect(new MarketMarks(h.store).refresh(Date.now(), stop.signal)).rejects.toThrow('stopping');
  expect(await refreshed()).toEqual(before);
  expect(await h.rows('SELECT since_ms FROM market_marks_progress WHERE id = 0')).toEqual([{ since_ms: stale }]);
  expect((await new MarketMarks(h.store).refresh()).keys).toBe(3);
});

test("a book top older than book_tops' 30 days is not served", async () => {
  // 29 days old: kept by book_tops (its TTL is 30 days) and served today.
  await h.given({ bookSnapshots: [book(N, 0, 0.1, 0.2, NOW - 29 * DAY_MS)] });
  const today = NOW - (NOW % DAY_MS);
  const top = JSON.stringify([tok(N, 0), 0.1, 0.2]);
  expect((await keyed(today, [N])).books).toContain(top);
  // Read as of two days later it is over 30 days old: not served, though book_tops still holds it.
  expect((await keyed(today + 2 * DAY_MS, [N])).books).toEqual([JSON.stringify([tok(N, 1), 0.25, 0.27])]);
  expect((await reference(today + 2 * DAY_MS, [N])).books).toContain(top);
});

test("a resolution on chain the catalog does not show yet values the market at the chain's payout; a retracted one does not", async () => {
  const [won, voided, retracted] = ['d4', 'e5', 'f6'].map((b) => `0x${b.repeat(32)}`) as [string, string, string];
  await h.given({ markets: [market(won), market(voided), market(retracted)] });
  const at = NOW - 5_000;
  await h.given({
    chainResolutions: [
      chainResolution({ event_id: '137:0xa:1', market_id: won, payout_numerators: ['0', '1'], payouts: [0, 1], block_time_ms: at }),
      chainResolution({ event_id: '137:0xa:2', market_id: voided, payout_numerators: ['1', '1'], payouts: [0.5, 0.5] }),
      chainResolution({ event_id: '137:0xa:3', market_id: retracted }),
      chainResolution({ event_id: '137:0xa:3', market_id: retracted, retracted: true, ingested_at_ms: NOW }),
    ],
  });
  // Every resolution touched its market: a refresh from the stored start picks them up.
  await new MarketMarks(h.store, 2_000).refresh();
  const catalog = new Map(
    (await keyed(NOW, [won, voided, retracted])).catalog!.map((r) => {
      const row = JSON.parse(r);
      return [row[0], { status: row[3], prices: row[6], closed: row[8] }];
    }),
  );
  expect(catalog.get(won)).toEqual({ status: 'resolved', prices: [0, 1], closed: at });
  expect(catalog.get(voided)).toMatchObject({ status: 'voided', prices: [0.5, 0.5] });
  expect(catalog.get(retracted)).toEqual({ status: 'active', prices: [0.5, 0.5], closed: null });
});

test('the wallet part reads market_marks by key, and a refresh reads its four tables by key (chain_resolutions holds rows by now)', async () => {
  const part = await h.rows<{ explain: string }>(
    `EXPLAIN indexes = 1 ${marketDataPart('SELECT market_id FROM position_state WHERE wallet IN {wallets:Array(String)}').market_data}`,
    { wallets: [K] },
  );
  const partText = part.map((r) => r.explain).join('\n');
  expect(partText).toMatch(/ReadFromEmbeddedRocksDB\s+ReadType: GetKeys/);
  expect(partText).not.toMatch(/markets|market_closes|book_tops/);
  const refresh = await h.rows<{ explain: string }>(`EXPLAIN indexes = 1 ${MARKS_OF_MARKETS}`, { ids: [M, N], from_day: 0 });
  const reads = refresh
    .map((r) => r.explain)
    .join('\n')
    .split('ReadFromMergeTree (')
    .slice(1);
  expect(reads.map((r) => /^(?:\w+\.)?(\w+)\)/.exec(r)?.[1]).sort()).toEqual([
    'book_tops',
    'chain_resolutions',
    'market_closes',
    'markets',
  ]);
  for (const read of reads) expect(read).toMatch(/PrimaryKey[\s\S]*?Condition: [^\n]*\(market_id in 2-element set\)/);
});
