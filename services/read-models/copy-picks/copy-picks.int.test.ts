/**
 * Copy picks through the real sink and jobs: Data API trades of three leaders in Politics markets, the
 * trader statistics job, then the picks job, then GET /v1/copy-picks. The copier figures of a pick are
 * checked against GET /v1/backtest of the same follower (same order size, delay and window), which the
 * golden backtests prove by hand; the exclusions and the ordering are checked here.
 *
 * good:   A yes buy 100 @ 0.40, sells @ 0.70 (A resolves YES); B no buy 50 @ 0.30, sells @ 0.50 (B resolves NO);
 *         C yes buy 20 @ 0.50 (open, C active): won 2 of 2, realized 30 + 10 = 40.
 * washer: A yes and B no buys of 10 (held to resolution), then four 1,000-USDC round trips in C, each sold a
 *         minute after it was bought at a slightly higher price: positive realized PnL, so a candidate, and
 *         nearly all of its volume is round trips: excluded as wash_trading.
 * one:    A yes buy 10 @ 0.40, sell @ 0.60: 1 resolved market - below min_resolved=2.
 */
import { TraderValuation } from '../trader-stats/valuation.js';
import { conditionId, marketUpserted, tradeExecuted, txHash, walletAddress } from '../../../test/support/events.js';
import { DAY_MS, startOfUtcDay } from '../../shared/time.js';
import { startApiHarness } from '../../../test/support/api-harness.js';
import { getJson } from '../../../test/support/http.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import type { LeaderStatsSource } from '../../copy/leader-stats.js';
import { recomputeCopyPicks } from './picks-job.js';

const GOOD = walletAddress(0x600d);
const WASHER = walletAddress(0x3a5);
const ONE = walletAddress(0x1);
const A = conditionId(0xa);
const B = conditionId(0xb);
const C = conditionId(0xc);
const HOUR = 3_600_000;
// Noon two days ago, relative to the clock: picks are kept 2 days after they are computed (copy_picks'
// TTL), so a fixed date would expire them, and this test began failing 2 days after its fixed date.
const T0 = startOfUtcDay(Date.now()) - 2 * DAY_MS + 12 * HOUR;
const NOW = T0 + 24 * HOUR;
const SETTINGS = { orderUsdc: '100', delaySeconds: 15, candidates: 50, feeFallback: { rate: '0.25', exponent: 2 }, intervalMs: 600_000 };

let h: ProjectionHarness;
let n = 0;
/** GET /copy-picks before the job's first run. */
let beforeRun: { status: number; body: any };
const trade = (wallet: string, market: string, outcome: 'Yes' | 'No', side: 'buy' | 'sell', size: number, price: number, at: number) => {
  n += 1;
  const index = outcome === 'Yes' ? 0 : 1;
  return tradeExecuted({
    event_id: `t${n}`,
    tx_hash: txHash(0x1000 + n),
    wallet,
    market_id: market,
    market_title: `Market ${market.slice(-1)}`,
    asset_id: `${market.slice(-1) === 'a' ? 10 : market.slice(-1) === 'b' ? 20 : 30}${index}`,
    outcome,
    outcome_index: index,
    side,
    size,
    price,
    yes_price: index === 0 ? price : Math.round((1 - price) * 1e6) / 1e6,
    size_usdc: Math.round(size * price * 1e6) / 1e6,
    timestamp_ms: at,
  });
};

beforeAll(async () => {
  h = await projectionHarness('copy_picks');
  const market = (id: string, tokens: [string, string], over: Record<string, unknown>) =>
    marketUpserted({ market_id: id, title: `Market ${id.slice(-1)}`, category: 'Politics', outcome_token_ids: tokens, ...over });
  await h.given({
    markets: [
      market(A, ['100', '101'], { status: 'resolved', resolved_outcome: 'Yes', outcome_prices: [1, 0], resolved_at_ms: T0 + 5 * HOUR }),
      market(B, ['200', '201'], { status: 'resolved', resolved_outcome: 'No', outcome_prices: [0, 1], resolved_at_ms: T0 + 5 * HOUR }),
      market(C, ['300', '301'], {}),
    ],
    trades: [
      trade(GOOD, A, 'Yes', 'buy', 100, 0.4, T0),
      trade(GOOD, A, 'Yes', 'sell', 100, 0.7, T0 + HOUR),
      trade(GOOD, B, 'No', 'buy', 50, 0.3, T0 + 10 * 60_000),
      trade(GOOD, B, 'No', 'sell', 50, 0.5, T0 + 2 * HOUR),
      trade(GOOD, C, 'Yes', 'buy', 20, 0.5, T0 + 3 * HOUR),
      trade(WASHER, A, 'Yes', 'buy', 10, 0.4, T0),
      trade(WASHER, B, 'No', 'buy', 10, 0.4, T0),
      ...[0, 1, 2, 3].flatMap((i) => [
        trade(WASHER, C, 'Yes', 'buy', 2000, 0.5, T0 + 6 * HOUR + i * HOUR),
        trade(WASHER, C, 'Yes', 'sell', 2000, 0.5 + 0.001 * (i + 1), T0 + 6 * HOUR + i * HOUR + 60_000),
      ]),
      trade(ONE, A, 'Yes', 'buy', 10, 0.4, T0),
      trade(ONE, A, 'Yes', 'sell', 10, 0.6, T0 + HOUR),
    ],
  });
  await new TraderValuation(h.store).run(NOW);
  beforeRun = await h.get('/copy-picks');
  await recomputeCopyPicks(h.store, SETTINGS, NOW);
}, 90_000);

afterAll(async () => {
  await h?.close();
});

test('eligible leaders only, with their figures; the copier ROI is the backtest of the same follower', async () => {
  const response = await h.get('/copy-picks?topic=politics&min_resolved=2&window=30d');
  expect(response.status).toBe(200);
  expect(response.body.data.map((p: any) => p.wallet)).toEqual([GOOD]);
  const pick = response.body.data[0];
  expect(pick).toMatchObject({
    wallet: GOOD,
    topic: 'Politics',
    window: '30d',
    why: { won: 2, lost: 0, resolved_markets: 2, win_rate_pct: 100, realized_pnl_usdc: 40, fills_in_window: 5, wash_share: 0 },
    computed_at: new Date(NOW).toISOString(),
  });
  expect(pick.copier_roi).toMatchObject({ order_usdc: 100, delay_seconds: 15, copied_trades: 5, impact_fills: 5, book_fills: 0 });

  const backtest = (
    await h.get(
      `/backtest?strategy=copy_wallet&wallet=${GOOD}&sizing=fixed&usdc=100&delay_seconds=15&from=${new Date(NOW - 30 * 24 * HOUR).toISOString()}&to=${new Date(NOW).toISOString()}`,
    )
  ).body.data;
  const M = 1_000_000n;
  const micros = (text: string) => BigInt(Math.round(Number(text) * 1e6));
  const invested = backtest.trades
    .filter((t: any) => t.side === 'buy')
    .reduce((s: bigint, t: any) => s + micros(t.notional_usdc) + micros(t.fee_usdc), 0n);
  const pnl = micros(backtest.summary.final_equity_usdc) - 10_000n * M;
  expect(micros(pick.copier_roi.invested_usdc)).toBe(invested);
  expect(micros(pick.copier_roi.follower_pnl_usdc)).toBe(pnl);
  expect(pick.copier_roi.fees_usdc).toBe(backtest.summary.fees_paid_usdc);
  expect(pick.copier_roi.slippage_usdc).toBe(backtest.summary.slippage_paid_usdc);
  expect(pick.copier_roi.roi_pct).toBe(Math.round((Number(pnl) / Number(invested)) * 1_000_000) / 10_000);
  expect(pick.copier_roi.roi_pct).toBeGreaterThan(0);
});

test('exclusions: wash trading and too few resolved markets; min_resolved lets the one-market leader in', async () => {
  const rows = await h.rows<{ wallet: string; excluded: string; wash_share: number }>(
    "SELECT wallet, excluded, wash_share FROM copy_picks WHERE window = '30d' ORDER BY wallet",
  );
  expect(rows.find((r) => r.wallet === WASHER)).toMatchObject({ excluded: 'wash_trading' });
  expect(rows.find((r) => r.wallet === WASHER)!.wash_share).toBeGreaterThan(0.9);
  const wider = (await h.get('/copy-picks?topic=Politics&min_resolved=1')).body.data.map((p: any) => p.wallet);
  expect(wider).toContain(ONE);
  expect(wider).not.toContain(WASHER);
  // Paging: one per page, the same order as a single page.
  const first = (await h.get('/copy-picks?min_resolved=1&limit=1')).body;
  expect(first.pagination.has_more).toBe(true);
  const second = (await h.get(`/copy-picks?min_resolved=1&limit=1&cursor=${encodeURIComponent(first.pagination.next_cursor)}`)).body;
  expect([first.data[0].wallet, second.data[0].wallet]).toEqual(wider.slice(0, 2));
  expect((await h.get('/copy-picks?window=1y')).status).toBe(400);
});

test('COPY_PICKS_MIN_RESOLVED is the default min_resolved: a request without one lists leaders with that many resolved markets', async () => {
  // The service's default (10): GOOD has 2 resolved markets in Politics and ONE 1, so nobody is listed.
  expect((await h.get('/copy-picks?topic=Politics')).body.data).toEqual([]);
  // A deployment whose traders resolve few markets (the demo) lowers the default; a request still overrides it.
  const api = await startApiHarness({ store: h.store, env: { COPY_PICKS_MIN_RESOLVED: '1' } });
  try {
    const key = (await api.admin.createKey('picks-default', '2')).api_key;
    const lowered = await getJson(`${api.base}/v1/copy-picks?topic=Politics`, key);
    expect(lowered.body.data.map((p: any) => p.wallet)).toEqual(expect.arrayContaining([GOOD, ONE]));
    expect(lowered.body.status.excluded.below_min_resolved).toBe(0);
    const asked = await getJson(`${api.base}/v1/copy-picks?topic=Politics&min_resolved=2`, key);
    expect(asked.body.data.map((p: any) => p.wallet)).toEqual([GOOD]);
  } finally {
    await api.close();
  }
});

test('status: when the list was computed, when the next run is due, what each rule left out, and why a list is empty', async () => {
  const none = { below_min_resolved: 0, no_fills_in_window: 0, wash_trading: 0, negative_copier_roi: 0 };
  expect(beforeRun.status).toBe(200);
  expect(beforeRun.body).toMatchObject({
    data: [],
    status: { computed_at: null, next_run_at: null, candidates: 0, excluded: none, empty_reason: 'not_computed_yet' },
  });
  // GOOD listed, WASHER out for wash trading, ONE (1 resolved market) below min_resolved=2.
  const listed = (await h.get('/copy-picks?topic=politics&min_resolved=2&window=30d')).body;
  expect(listed.status).toEqual({
    computed_at: new Date(NOW).toISOString(),
    next_run_at: new Date(NOW + SETTINGS.intervalMs).toISOString(),
    candidates: 3,
    excluded: { ...none, below_min_resolved: 1, wash_trading: 1 },
    empty_reason: null,
  });
  expect((await h.get('/copy-picks?topic=politics&min_resolved=50')).body).toMatchObject({
    data: [],
    status: { candidates: 3, excluded: { ...none, below_min_resolved: 3 }, empty_reason: 'all_excluded' },
  });
  expect((await h.get('/copy-picks?topic=sports')).body).toMatchObject({
    data: [],
    status: { candidates: 0, excluded: none, empty_reason: 'no_candidates' },
  });
  // A run that finds no candidate is the latest: the earlier run's picks are no longer served.
  const nothing: LeaderStatsSource = { categories: async () => [], candidates: async () => [] };
  await recomputeCopyPicks(h.store, SETTINGS, NOW + HOUR, nothing);
  expect((await h.get('/copy-picks?min_resolved=1')).body).toMatchObject({
    data: [],
    status: { computed_at: new Date(NOW + HOUR).toISOString(), candidates: 0, empty_reason: 'no_candidates' },
  });
});
