/**
 * The PnL curve's stored closed days (stored-curve.ts): a report serves them only while what they were
 * valued with is unchanged, and then they equal what the report would value itself, to the micro-unit.
 * Each step changes one input - a fill today, a late fill moving a past close, a late fill of the wallet
 * itself, the market's settlement, a new day - and checks the curve against hand-computed values, once
 * valued by the report and once served from what the valuation pass stored.
 */
import { marketUpserted, yesFill } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { DAY_MS, startOfUtcDay } from '../../shared/time.js';
import { walletReports } from './queries.js';
import { TraderValuation } from './valuation.js';

const NOW = Date.now();
const TODAY = startOfUtcDay(NOW);
const day = (back: number) => TODAY - back * DAY_MS;
const D3 = day(3) + 3_600_000;
const D2 = day(2) + 3_600_000;
const D1 = day(1) + 3_600_000;
const D0 = TODAY + Math.floor((NOW - TODAY) / 2);

const M = `0x${'e'.repeat(64)}`;
const A = `0x${'a1'.repeat(20)}`; // the wallet whose curve is checked
const B = `0x${'b2'.repeat(20)}`; // sets the market's closes
const N = `0x${'f'.repeat(64)}`; // a second market A holds, first traded today
const tok = (i: number) => `${M.slice(2, 8)}${i}`;
const market = (version: number, over: Parameters<typeof marketUpserted>[0] = {}) =>
  marketUpserted({ market_id: M, outcome_token_ids: [tok(0), tok(1)], ...over, event_id: `${M}:${version}` });

/** A YES buy; block numbers give the chain's order whatever order the fills are published in. */
const buy = (wallet: string, block: number, time: number, shares: number, price: number, role: 'taker' | 'maker' = 'taker', market = M) =>
  yesFill({ market, wallet, block: 82_000_000 + block, time, shares, price, role });

let h: ProjectionHarness;
let valuation: TraderValuation;

/** A's curve's closed days that are not 0, as { day offset: unrealized micro-USDC }. */
async function closedDays(nowMs = NOW) {
  const { reports, curves } = await walletReports(h.store, [A], { nowMs, curveDays: 30 });
  const today = startOfUtcDay(nowMs);
  const days: Record<string, string> = {};
  for (const p of reports.get(A)!.report.curve) {
    const at = Date.parse(p.date);
    if (at < today && p.unrealized !== 0n) days[`d-${(today - at) / DAY_MS}`] = p.unrealized.toString();
  }
  return { days, stored: curves.stored.includes(A), valued: curves.valued.length };
}

/** The curve valued by the report (nothing stored holds), then served from what the pass stored. */
async function valuedThenStored(expected: Record<string, string>, nowMs = NOW) {
  const live = await closedDays(nowMs);
  expect(live).toEqual({ days: expected, stored: false, valued: 1 });
  await valuation.value([A], nowMs);
  expect(await closedDays(nowMs)).toEqual({ days: expected, stored: true, valued: 0 });
}

beforeAll(async () => {
  h = await projectionHarness('stored_curve');
  valuation = new TraderValuation(h.store);
  await h.given({
    markets: [
      market(1),
      marketUpserted({ market_id: N, outcome_token_ids: [`${N.slice(2, 8)}0`, `${N.slice(2, 8)}1`], event_id: `${N}:1` }),
    ],
  });
  // A buys 10 YES at 0.40 on D3; B's trades close D2 at 0.50 and D1 at 0.60.
  await h.given({ chainLedger: [buy(A, 10, D3, 10, 0.4), buy(B, 20, D2, 1, 0.5), buy(B, 30, D1, 1, 0.6)] });
}, 120_000);
afterAll(() => h.close());

// Hand-computed: A holds 10 YES costing 4 USDC. D3: 10 x 0.40 - 4 = 0; D2: 10 x 0.50 - 4 = 1; D1: 10 x 0.60 - 4 = 2.
test('a stored curve equals the valued one', async () => {
  await valuedThenStored({ 'd-2': '1000000', 'd-1': '2000000' });
});

test("today's fills leave the stored closed days in use, also a held market's first close", async () => {
  // A also holds N (a maker fill on D3: no close yet, so valued nowhere); N's first trade is today.
  await h.given({ chainLedger: [buy(A, 11, D3 + 1000, 5, 0.5, 'maker', N)] });
  await valuedThenStored({ 'd-2': '1000000', 'd-1': '2000000' });
  await h.given({ chainLedger: [buy(A, 40, D0, 10, 0.7), buy(B, 41, D0 + 1000, 1, 0.8, 'taker', N)] });
  expect(await closedDays()).toEqual({ days: { 'd-2': '1000000', 'd-1': '2000000' }, stored: true, valued: 0 });
});

test("a late trade moving a past day's close makes the stored curve stale", async () => {
  // B at 0.30 on D2, after its 0.50 in the chain's order: D2 closes at 0.30 -> 10 x 0.30 - 4 = -1.
  await h.given({ chainLedger: [buy(B, 25, D2 + 1000, 1, 0.3)] });
  await valuedThenStored({ 'd-2': '-1000000', 'd-1': '2000000' });
});

test('a late fill of the wallet itself on a past day makes the stored curve stale', async () => {
  // A (maker: the closes stay) buys 10 more at 0.20 on D2: 20 YES costing 6. D2: 20 x 0.30 - 6 = 0; D1: 20 x 0.60 - 6 = 6.
  await h.given({ chainLedger: [buy(A, 26, D2 + 2000, 10, 0.2, 'maker')] });
  await valuedThenStored({ 'd-1': '6000000' });
});

test('the market settling on a past day makes the stored curve stale', async () => {
  // Resolved YES, closed on D1: D1 is valued at the payout, 20 x 1 - 6 = 14.
  await h.given({
    markets: [
      market(2, {
        status: 'resolved',
        resolved_outcome: 'Yes',
        outcome_prices: [1, 0],
        closed_ms: D1,
        updated_at_ms: NOW,
        ingested_at_ms: NOW,
      }),
    ],
  });
  await valuedThenStored({ 'd-1': '14000000' });
});

test('a new day makes the stored curve stale', async () => {
  // Tomorrow, today is a closed day too: M at the payout, 30 YES costing 13 -> 30 - 13 = 17; and N at
  // today's close, 5 YES costing 2.50 -> 5 x 0.80 - 2.50 = 1.50.
  await valuedThenStored({ 'd-2': '14000000', 'd-1': '18500000' }, NOW + DAY_MS);
});

test('the pass revalues the curves a new day left behind, though nothing of the wallet changed', async () => {
  // Two days on, the curve stored for tomorrow is a day behind: reports value it themselves until the
  // sweep revalues A (M at the payout: 17 on each closed day; N at today's close, 1.50).
  const later = NOW + 2 * DAY_MS;
  expect(await closedDays(later)).toMatchObject({ stored: false, valued: 1 });
  const pass = new TraderValuation(h.store);
  expect(await pass.sweepStaleCurves(later)).toBe(1);
  expect(await closedDays(later)).toEqual({ days: { 'd-3': '14000000', 'd-2': '18500000', 'd-1': '18500000' }, stored: true, valued: 0 });
  // Nothing is left for that day: the next pass does not look again.
  expect(await pass.sweepStaleCurves(later)).toBe(0);
});
