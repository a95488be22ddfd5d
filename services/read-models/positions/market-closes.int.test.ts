/**
 * market_closes (migration 0055): the daily closes and close-input counts trader reports value with,
 * fed by the chain's taker fills and the Data API's trades through the real sink. Checked against
 * hand-computed closes, marks and curve days; the migration's fill equals what the views keep; a reorg's
 * retraction rebuilds the market's closes and drops the stored curves that held it, and takes a close
 * it leaves no row of out of the marks (market_marks).
 */
import { readMigrations } from '../../analytics/migrate.js';
import { blockRetraction } from '../../chain/ledger-events.js';
import { marketUpserted, tradeExecuted, yesFill } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { DAY_MS, startOfUtcDay } from '../../shared/time.js';
import { readParts } from '../../analytics/read-parts.js';
import { type MarketDataArrays, marketDataPart, marketDataRows } from './market-data.js';
import { walletPositions } from './queries.js';
import { walletReports } from '../trader-stats/queries.js';
import { TraderValuation } from '../trader-stats/valuation.js';

const NOW = Date.now();
const TODAY = startOfUtcDay(NOW);
const at = (back: number, hours: number) => TODAY - back * DAY_MS + hours * 3_600_000;
const D0 = TODAY + Math.floor((NOW - TODAY) / 2);

const M = `0x${'c'.repeat(64)}`;
const A = `0x${'a3'.repeat(20)}`; // holds YES; its maker fill sets no close
const B = `0x${'b4'.repeat(20)}`; // takes, setting the chain's closes
const tok = (i: number) => `${M.slice(2, 8)}${i}`;
const fill = (wallet: string, block: number, time: number, shares: number, price: number, role: 'taker' | 'maker' = 'taker') =>
  yesFill({ market: M, wallet, block: 83_000_000 + block, time, shares, price, role });
const trade = (id: string, time: number, yes: number) =>
  tradeExecuted({
    event_id: id,
    market_id: M,
    asset_id: tok(0),
    wallet: B,
    price: yes,
    yes_price: yes,
    timestamp_ms: time,
    ingested_at_ms: time,
  });
const context = { chainId: 137, source: 'simulator' as const, nowMs: NOW, negRiskAdapter: '' };

let h: ProjectionHarness;

/** market_closes finalized: per day (back from today, 'total' for the market's row) its close and inputs. */
async function closes() {
  const rows = await h.rows<{ day: number; close: number; inputs: string }>(
    `SELECT toInt64(day) AS day, argMaxMerge(close) AS close, toString(sum(inputs)) AS inputs FROM market_closes
      WHERE market_id = {m:String} GROUP BY day ORDER BY day`,
    { m: M },
  );
  return Object.fromEntries(
    rows.map((r) => [Number(r.day) === 0 ? 'total' : `d-${(TODAY - Number(r.day) * DAY_MS) / DAY_MS}`, [r.close, Number(r.inputs)]]),
  );
}

/** A's curve's closed days that are not 0 (micro-USDC), whether they were served stored, and its position's mark. */
async function report() {
  const { reports, curves } = await walletReports(h.store, [A], { nowMs: NOW, curveDays: 30 });
  const r = reports.get(A)!.report;
  const days: Record<string, string> = {};
  for (const p of r.curve) {
    const day = Date.parse(p.date);
    if (day < TODAY && p.unrealized !== 0n) days[`d-${(TODAY - day) / DAY_MS}`] = p.unrealized.toString();
  }
  const [position] = r.positions;
  return { days, stored: curves.stored.includes(A), mark: [position!.mark, position!.mark_basis, position!.unrealized.toString()] };
}

beforeAll(async () => {
  h = await projectionHarness('market_closes');
  await h.given({ markets: [marketUpserted({ market_id: M, outcome_token_ids: [tok(0), tok(1)], event_id: `${M}:1` })] });
  // A buys 10 YES at 0.40 on d-3 (maker). On d-2 B takes at 0.45 (block 20) and 0.55 (block 21),
  // published in the other order; the Data API has a later trade that day at 0.90. On d-1 only the
  // Data API has trades: 0.70, then 0.65.
  await h.given({
    chainLedger: [fill(A, 10, at(3, 1), 10, 0.4, 'maker'), fill(B, 21, at(2, 2), 1, 0.55), fill(B, 20, at(2, 3), 1, 0.45)],
    trades: [trade('api-1', at(2, 5), 0.9), trade('api-2', at(1, 1), 0.7), trade('api-3', at(1, 2), 0.65)],
  });
}, 120_000);
afterAll(() => h.close());

test("each day's close: the chain's last fill in block order where the chain has one, else the Data API's last trade", async () => {
  // d-2: block 21's 0.55 (block order, not time or publication), over the Data API's 0.90; d-1: 0.65.
  // Inputs: d-2 two fills and a trade, d-1 two trades; the total row has the newest close.
  expect(await closes()).toEqual({ total: [0.65, 5], 'd-2': [0.55, 3], 'd-1': [0.65, 2] });
});

test("reports value with them: today's mark is the newest close, each closed day its own close", async () => {
  // 10 YES costing 4: d-2 10 x 0.55 - 4 = 1.50; d-1 and now 10 x 0.65 - 4 = 2.50 (no book: last trade).
  expect(await report()).toEqual({ days: { 'd-2': '1500000', 'd-1': '2500000' }, stored: false, mark: [0.65, 'last_trade', '2500000'] });
  const lean = await walletPositions(h.store, A);
  expect(lean!.positions.map((p) => [p.mark, p.unrealized.toString()])).toEqual([[0.65, '2500000']]);
  await new TraderValuation(h.store).value([A], NOW);
  expect(await report()).toMatchObject({ days: { 'd-2': '1500000', 'd-1': '2500000' }, stored: true });
});

test('a fill today moves the mark but not the count of inputs before today: the stored curve holds', async () => {
  await h.given({ chainLedger: [fill(B, 40, D0, 1, 0.8)] });
  expect(await closes()).toEqual({ total: [0.8, 6], 'd-2': [0.55, 3], 'd-1': [0.65, 2], 'd-0': [0.8, 1] });
  // Now 10 x 0.80 - 4 = 4.
  expect(await report()).toEqual({ days: { 'd-2': '1500000', 'd-1': '2500000' }, stored: true, mark: [0.8, 'last_trade', '4000000'] });
});

test("the migration's fill equals what the views keep", async () => {
  const kept = await h.rows(
    `SELECT market_id, day, finalizeAggregation(close) AS c, inputs FROM market_closes FINAL ORDER BY market_id, day`,
  );
  expect(kept).toHaveLength(4);
  for (const statement of readMigrations().find((m) => m.name === '0055_market_closes')!.statements) await h.store.command(statement);
  expect(
    await h.rows(`SELECT market_id, day, finalizeAggregation(close) AS c, inputs FROM market_closes FINAL ORDER BY market_id, day`),
  ).toEqual(kept);
});

test("a reorg taking back the fill that set a past close: the market's closes are rebuilt and the stored curves holding it dropped", async () => {
  expect(await h.rows(`SELECT wallet FROM trader_curve FINAL`)).toEqual([{ wallet: A }]);
  const block = 83_000_021;
  await h.given({
    chainLedger: [blockRetraction({ number: block, hash: `0x${block.toString(16).padStart(64, '0')}`, timeMs: at(2, 2) }, M, context)],
  });
  // d-2 closes at block 20's 0.45 now; its fill count drops by the voided one.
  expect(await closes()).toEqual({ total: [0.8, 5], 'd-2': [0.45, 2], 'd-1': [0.65, 2], 'd-0': [0.8, 1] });
  expect(await h.rows(`SELECT wallet FROM trader_curve FINAL`)).toEqual([]);
  // d-2: 10 x 0.45 - 4 = 0.50, valued by the report again.
  expect(await report()).toEqual({ days: { 'd-2': '500000', 'd-1': '2500000' }, stored: false, mark: [0.8, 'last_trade', '4000000'] });
});

test("a reorg taking back a market's only close takes it out of the marks the wallet reads value with", async () => {
  const Q = `0x${'d'.repeat(64)}`;
  const block = 83_000_050;
  const marks = async () =>
    marketDataRows(await readParts<MarketDataArrays>(h.store, marketDataPart('{ids:Array(String)}'), { ids: [Q] }), TODAY).closes_now;
  await h.given({ chainLedger: [yesFill({ market: Q, wallet: B, block, time: at(0, 0), shares: 2, price: 0.3 })] });
  // B took 2 YES at 0.30 today: the last trade 0.30, no input before today.
  expect(await marks()).toEqual([[Q, 0.3, '0']]);
  // The retraction deletes Q's rows and inserts none (it has no other fill or trade).
  await h.given({
    chainLedger: [blockRetraction({ number: block, hash: `0x${block.toString(16).padStart(64, '0')}`, timeMs: at(0, 0) }, Q, context)],
  });
  expect(await h.rows('SELECT market_id FROM market_closes WHERE market_id = {q:String}', { q: Q })).toEqual([]);
  expect(await marks()).toEqual([]);
});
