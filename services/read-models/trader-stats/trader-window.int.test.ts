/**
 * The 30-day boards' closed days summed by the valuation pass into today's rows (trader-window.ts): the
 * sums are served only while the ledger rows dated on the window's closed days are the ones summed, and
 * the board equals hand-computed sums whether it is served from them or summed live. Each step changes
 * one input - a fill today, a late fill on a closed day, a backfill that rewinds a position, a new day -
 * and checks the board both ways.
 */
import { marketUpserted, yesFill } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { DAY_MS, startOfUtcDay } from '../../shared/time.js';
import { readMigrations } from '../../analytics/migrate.js';
import { TraderWindow, windowBounds, windowRankingSql } from './trader-window.js';

const NOW = Date.now();
const TODAY = startOfUtcDay(NOW);
const at = (back: number) => TODAY - back * DAY_MS + 3_600_000;
const D0 = TODAY + Math.floor((NOW - TODAY) / 2);

const M = `0x${'c'.repeat(64)}`;
const A = `0x${'a1'.repeat(20)}`;
const B = `0x${'b2'.repeat(20)}`;
const C = `0x${'c3'.repeat(20)}`;

const fill = (
  wallet: string,
  block: number,
  time: number,
  side: 'buy' | 'sell',
  shares: number,
  price: number,
  role: 'taker' | 'maker' = 'taker',
) => yesFill({ market: M, wallet, block: 83_000_000 + block, time, shares, price, side, role });

let h: ProjectionHarness;
/** Sums whenever asked (the service's pass waits a minute between summings; see the last test). */
let window: TraderWindow;

/** The 30-day board's values (micro-USDC) by wallet, and whether today's closed sums served it. */
async function board(column: 'realized' | 'volume', nowMs = NOW) {
  const rows = await h.store.query<{ wallet: string; value: string }>(
    `SELECT wallet, toString(v) AS value FROM (${windowRankingSql(column)}) ORDER BY wallet`,
    windowBounds(nowMs),
  );
  // Only traders rank (never a day total or a stamp row); a wallet that only realized nothing shows 0.
  expect(rows.filter((r) => ![A, B, C].includes(r.wallet))).toEqual([]);
  return {
    values: Object.fromEntries(rows.filter((r) => r.value !== '0').map((r) => [r.wallet, r.value])),
    served: await window.served(nowMs),
  };
}

/** Both boards summed live (today's closed sums do not hold), then served from the ones the pass sums. */
async function liveThenServed(realized: Record<string, string>, volume: Record<string, string>, nowMs = NOW) {
  expect([await board('realized', nowMs), await board('volume', nowMs)]).toEqual([
    { values: realized, served: false },
    { values: volume, served: false },
  ]);
  expect(await window.refresh(nowMs)).toBe(true);
  expect([await board('realized', nowMs), await board('volume', nowMs)]).toEqual([
    { values: realized, served: true },
    { values: volume, served: true },
  ]);
}

beforeAll(async () => {
  h = await projectionHarness('trader_window');
  window = new TraderWindow(h.store, 0);
  await h.given({
    markets: [marketUpserted({ market_id: M, outcome_token_ids: [`${M.slice(2, 8)}0`, `${M.slice(2, 8)}1`], event_id: `${M}:1` })],
  });
  // A buys 10 YES at 0.40 forty days ago (outside the window) and sells 5 at 0.60 five days ago;
  // B buys 20 at 0.50 two days ago.
  await h.given({
    chainLedger: [fill(A, 10, at(40), 'buy', 10, 0.4), fill(A, 50, at(5), 'sell', 5, 0.6), fill(B, 80, at(2), 'buy', 20, 0.5)],
  });
}, 120_000);
afterAll(() => h.close());

// Hand-computed: A realizes 5 x (0.60 - 0.40) = 1 on day -5 and trades 3 USDC in the window (the
// 4 USDC buy is older than 30 days); B trades 10.
test('the summed window equals the live sums', async () => {
  await liveThenServed({ [A]: '1000000' }, { [A]: '3000000', [B]: '10000000' });
});

test("today's fills are added to the served sums as they happen", async () => {
  await h.given({ chainLedger: [fill(C, 100, D0, 'buy', 1, 0.5)] });
  expect(await board('volume')).toEqual({ values: { [A]: '3000000', [B]: '10000000', [C]: '500000' }, served: true });
});

test('a late fill dated on a closed day stops the closed sums being served', async () => {
  // C buys 4 at 0.50 three days ago: 2 more USDC of volume in the window.
  await h.given({ chainLedger: [fill(C, 70, at(3), 'buy', 4, 0.5)] });
  await liveThenServed({ [A]: '1000000' }, { [A]: '3000000', [B]: '10000000', [C]: '2500000' });
});

test("a backfill rewinding a wallet's position (cancelled and replayed rows) is summed again", async () => {
  // A (maker) bought 10 more at 0.20 six days ago, before its sale: 20 YES costing 6 (0.30 each), so
  // the sale realizes 5 x (0.60 - 0.30) = 1.50; volume 2 + 3 = 5.
  await h.given({ chainLedger: [fill(A, 40, at(6), 'buy', 10, 0.2, 'maker')] });
  await liveThenServed({ [A]: '1500000' }, { [A]: '5000000', [B]: '10000000', [C]: '2500000' });
});

test('a new day has no closed sums until the pass sums its window', async () => {
  // Tomorrow, today's 0.50 of C is a closed day and nothing leaves the window (day -29 had no fills).
  await liveThenServed({ [A]: '1500000' }, { [A]: '5000000', [B]: '10000000', [C]: '2500000' }, NOW + DAY_MS);
  // 26 days on, A's fills of days -6 and -5 have left the window: only B's and C's remain.
  await liveThenServed({}, { [B]: '10000000', [C]: '2500000' }, NOW + 26 * DAY_MS);
});

test('a refresh adds what changed; sums written twice stop being served and the next refresh repairs them', async () => {
  // Each wallet's closed sums in today's row, and the stamp ('').
  const closedRows = async () =>
    h.store.query<{ wallet: string; r: string; v: string; c: string }>(
      `SELECT * FROM (
         SELECT wallet, toString(sum(closed_realized)) AS r, toString(sum(closed_volume)) AS v, toString(sum(closed_changes)) AS c
           FROM trader_recent_days WHERE day = toDate({today:Int64}, 'UTC') AND wallet != '' GROUP BY wallet
         UNION ALL
         SELECT '', '0', '0', toString(sum(closed_changes)) FROM trader_window_counts WHERE day = toDate({today:Int64}, 'UTC')
       ) ORDER BY wallet`,
      windowBounds(NOW),
    );
  expect(await window.served(NOW)).toBe(true);
  const held = await closedRows();
  // Ledger rows on the closed days: A 4 (the sale of day -5, its cancellation and replay when the
  // maker fill of day -6 arrived late, and that fill), B 1, C 1 (day -3; its rewound fill of today is
  // not on a closed day); the stamp ('') counts the 6.
  expect(held.map((r) => [r.wallet, r.c])).toEqual([
    ['', '6'],
    [A, '4'],
    [B, '1'],
    [C, '1'],
  ]);
  // Two writers that both read before either wrote add B's difference twice, then each stamps.
  await h.store.command(
    `INSERT INTO trader_recent_days (day, wallet, realized, volume, changes, closed_realized, closed_volume, closed_changes)
     SELECT day, wallet, 0, 0, 0, closed_realized, closed_volume, closed_changes FROM trader_recent_days
      WHERE day = toDate({today:Int64}, 'UTC') AND wallet = {b:String}`,
    { ...windowBounds(NOW), b: B },
  );
  await window.stamp(NOW);
  expect(await board('volume')).toEqual({ values: { [A]: '5000000', [B]: '10000000', [C]: '2500000' }, served: false });
  expect(await window.refresh(NOW)).toBe(true);
  expect(await closedRows()).toEqual(held);
  expect(await board('volume')).toEqual({ values: { [A]: '5000000', [B]: '10000000', [C]: '2500000' }, served: true });
});

test('a pass stopped between its steps leaves the old stamp, and sums are not served until one completes', async () => {
  // B buys 2 at 0.50 one day ago: 1 USDC more in the window. The pass writes the difference and stops.
  await h.given({ chainLedger: [fill(B, 88, at(1), 'buy', 2, 0.5)] });
  await window.addDifferences(NOW);
  expect(await board('volume')).toEqual({ values: { [A]: '5000000', [B]: '11000000', [C]: '2500000' }, served: false });
  // The next pass finds nothing to add and writes the stamp.
  expect(await window.refresh(NOW)).toBe(true);
  expect(await board('volume')).toEqual({ values: { [A]: '5000000', [B]: '11000000', [C]: '2500000' }, served: true });
});

test('a pass waits a minute between summings', async () => {
  const paced = new TraderWindow(h.store);
  // Another late fill: nothing holds, the pass sums once, and not again within the minute.
  await h.given({ chainLedger: [fill(B, 90, at(1), 'buy', 2, 0.5)] });
  expect(await paced.refresh(NOW)).toBe(true);
  await h.given({ chainLedger: [fill(B, 95, at(1) + 1000, 'buy', 2, 0.5)] });
  expect(await paced.refresh(NOW)).toBe(false);
  expect(await board('volume')).toEqual({ values: { [A]: '5000000', [B]: '13000000', [C]: '2500000' }, served: false });
});

test("trader_window_counts holds the ledger's rows per day and today's stamp, kept by the view and rebuilt by 0057 alike", async () => {
  const counts = `SELECT day, toString(sum(changes)) AS c, toString(sum(closed_changes)) AS stamp FROM trader_window_counts GROUP BY day ORDER BY day`;
  const ledger = await h.store.query<{ day: string; c: string }>(
    `SELECT toDate(time, 'UTC') AS day, toString(count()) AS c FROM position_ledger WHERE time >= now64(3) - INTERVAL 35 DAY GROUP BY day ORDER BY day`,
  );
  const kept = await h.store.query<{ day: string; c: string; stamp: string }>(counts);
  // The stamps of the three days summed, hand-counted from the fills above. Today: the 6 closed-day
  // rows of the refresh test, then B's late fills of day -1 summed by the two later tests (the last
  // one came within the minute and is not summed): 8. Tomorrow (summed before those): the 6 plus
  // today's 3 rows (C's fill, and its cancellation and replay when C's fill of day -3 came late): 9.
  // 26 days on: B's day -2, C's day -3 and today's 3: 5.
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  expect(kept.filter((r) => r.stamp !== '0').map((r) => [r.day, r.stamp])).toEqual([
    [day(TODAY), '8'],
    [day(TODAY + DAY_MS), '9'],
    [day(TODAY + 26 * DAY_MS), '5'],
  ]);
  expect(kept.filter((r) => r.c !== '0').map(({ day, c }) => ({ day, c }))).toEqual(ledger);
  // A rerun (0057 stopped before it was recorded) fills the day counts again; the stamps were in
  // trader_recent_days only before 0057, so they are gone, and the next pass writes them again.
  for (const statement of readMigrations().find((m) => m.name === '0057_trader_window_counts')!.statements)
    await h.store.command(statement);
  expect(await h.store.query(counts)).toEqual(kept.filter((r) => r.c !== '0').map((r) => ({ ...r, stamp: '0' })));
  await window.stamp(NOW);
  expect((await h.store.query<{ day: string; stamp: string }>(counts)).find((r) => r.day === day(TODAY))!.stamp).toBe('8');
});

test("trader_recent_days equals the ledger's rows summed per day and wallet, kept by the view and rebuilt by 0054 alike", async () => {
  const recent = `SELECT day, wallet, toString(sum(realized)) AS r, toString(sum(volume)) AS v, toString(sum(changes)) AS c
                    FROM trader_recent_days GROUP BY day, wallet HAVING sum(changes) > 0 ORDER BY day, wallet`;
  const ledger = await h.store.query(
    `SELECT toDate(time, 'UTC') AS day, wallet, toString(sum(realized * sign)) AS r, toString(sum(toInt64(volume) * sign)) AS v,
            toString(count()) AS c
       FROM position_ledger WHERE time >= now64(3) - INTERVAL 35 DAY
      GROUP BY GROUPING SETS ((day, wallet), (day)) ORDER BY day, wallet`,
  );
  const kept = await h.store.query(recent);
  expect(kept.length).toBeGreaterThan(8);
  expect(kept).toEqual(ledger);
  for (const statement of readMigrations().find((m) => m.name === '0054_trader_window')!.statements) await h.store.command(statement);
  expect(await h.store.query(recent)).toEqual(kept);
});

test("a summing merges the table, so today's range holds one row per wallet for the boards' FINAL", async () => {
  // C buys 2 at 0.50 today (its rows land in a part of their own) and B 2 at 0.50 one day ago: the
  // summing after that late fill writes B's difference in another part.
  await h.given({ chainLedger: [fill(C, 120, D0 + 1000, 'buy', 2, 0.5), fill(B, 97, at(1) + 2000, 'buy', 2, 0.5)] });
  expect(await window.refresh(NOW)).toBe(true);
  const [range] = await h.store.query<{ parts: string; rows: string }>(
    `SELECT toString(uniqExact(_part)) AS parts, toString(count()) AS rows
       FROM trader_recent_days WHERE day = toDate({today:Int64}, 'UTC') AND wallet != ''`,
    windowBounds(NOW),
  );
  expect(range).toEqual({ parts: '1', rows: '3' });
  // Hand-computed: B 13 + 1 (the late fill), C 2.5 + 1 (today's).
  expect(await board('volume')).toEqual({ values: { [A]: '5000000', [B]: '14000000', [C]: '3500000' }, served: true });
});
