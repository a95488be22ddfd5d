/** Hand-computed examples of weighted-average-cost accounting and the statistics built on it. */
import { PositionBook, type Fill } from './position-book.js';
import { dailyCurve, riskScore, valuePositions, winLoss, type MarketMark } from './trader-stats.js';
import { activityToFills, mergeFills } from './activity-fills.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 1);
const fill = (over: Partial<Fill>): Fill => ({
  market_id: 'm1',
  asset_id: 'yes1',
  outcome: 'Yes',
  outcome_index: 0,
  side: 'buy',
  size: 10,
  price: 0.5,
  ts_ms: T0,
  ...over,
});

describe('PositionBook', () => {
  test('buys average the entry price; a sell realizes against the average', () => {
    const book = new PositionBook();
    book.apply(fill({ size: 100, price: 0.4 }));
    book.apply(fill({ size: 50, price: 0.7 }));
    // avg = (100 x 0.4 + 50 x 0.7) / 150 = 75 / 150 = 0.5
    expect(book.all()[0]).toMatchObject({ held: 150, avg_price: 0.5 });
    book.apply(fill({ side: 'sell', size: 60, price: 0.8 }));
    // realized = 60 x (0.8 - 0.5) = 18; held 90; avg unchanged
    const [p] = book.all();
    expect(p!.held).toBe(90);
    expect(p!.avg_price).toBe(0.5);
    expect(p!.realized).toBeCloseTo(18, 10);
  });

  test('selling more than tracked only realizes on the tracked shares', () => {
    const book = new PositionBook();
    book.apply(fill({ size: 10, price: 0.2 }));
    book.apply(fill({ side: 'sell', size: 25, price: 0.5 }));
    // q' = min(25, 10) = 10; realized = 10 x 0.3 = 3
    expect(book.realizedTotal()).toBeCloseTo(3, 10);
    expect(book.open()).toEqual([]);
  });

  test('a sell with nothing held realizes nothing', () => {
    const book = new PositionBook();
    book.apply(fill({ side: 'sell', size: 5, price: 0.9 }));
    expect(book.realizedTotal()).toBe(0);
    expect(book.realizedEvents).toEqual([]);
  });
});

describe('valuation, win rate and risk', () => {
  const marks = new Map<string, MarketMark>([
    ['m1', { market_id: 'm1', category: 'Politics', status: 'resolved', outcome_prices: [1, 0] }],
    ['m2', { market_id: 'm2', category: 'Sports', status: 'resolved', outcome_prices: [0, 1] }],
    ['m3', { market_id: 'm3', category: 'Crypto', status: 'active', outcome_prices: [0.3, 0.7] }],
  ]);

  test('resolved positions are marked at the payout; won/lost per market', () => {
    const book = new PositionBook();
    book.apply(fill({ market_id: 'm1', asset_id: 'a1', size: 100, price: 0.6 })); // wins: 100 x (1 - 0.6) = 40
    book.apply(fill({ market_id: 'm2', asset_id: 'a2', size: 50, price: 0.3 })); // loses: 50 x (0 - 0.3) = -15
    book.apply(fill({ market_id: 'm3', asset_id: 'a3', size: 20, price: 0.1 })); // open: 20 x (0.3 - 0.1) = 4
    const valued = valuePositions(book.all(), marks);
    expect(valued.map((p) => [p.market_id, p.mark, round(p.unrealized)])).toEqual([
      ['m1', 1, 40],
      ['m2', 0, -15],
      ['m3', 0.3, 4],
    ]);
    expect(winLoss(valued)).toEqual({ won: 1, lost: 1, resolved: 2, win_rate_pct: 50 });
  });

  test('risk score = 40 x concentration + 30 x long-shot share + 30 x drawdown', () => {
    const fills = [
      fill({ market_id: 'm3', asset_id: 'a3', size: 100, price: 0.1 }),
      fill({ market_id: 'm3', asset_id: 'b3', outcome_index: 1, size: 10, price: 0.9 }),
    ];
    const book = new PositionBook();
    for (const f of fills) book.apply(f);
    const valued = valuePositions(book.all(), marks);
    // open cost: 10 and 9 -> concentration 10/19; long-shot share 10/19; curve 0 -> 10 -> 5: drawdown 5/10
    const risk = riskScore(fills, valued, [0, 10, 5]);
    expect(risk.concentration).toBeCloseTo(10 / 19, 4);
    expect(risk.long_shot_share).toBeCloseTo(10 / 19, 4);
    expect(risk.drawdown).toBe(0.5);
    expect(risk.score).toBeCloseTo(40 * (10 / 19) + 30 * (10 / 19) + 15, 1);
  });

  test('daily curve: realized to date plus unrealized at each day-s close', () => {
    const fills = [fill({ size: 100, price: 0.4, ts_ms: T0 + 1000 }), fill({ side: 'sell', size: 50, price: 0.6, ts_ms: T0 + DAY + 1000 })];
    const closes: Record<number, number> = { [T0]: 0.5, [T0 + DAY]: 0.6, [T0 + 2 * DAY]: 0.3 };
    const curve = dailyCurve(
      fills,
      T0,
      T0 + 2 * DAY,
      (_m, day) => closes[day] ?? null,
      () => 0,
    );
    expect(curve).toEqual([
      { date: '2026-11-01', realized: 0, unrealized: 10, total: 10 }, // 100 x (0.5 - 0.4)
      { date: '2026-11-02', realized: 10, unrealized: 10, total: 20 }, // 50 x 0.2 realized; 50 x (0.6 - 0.4)
      { date: '2026-11-03', realized: 10, unrealized: -5, total: 5 }, // 50 x (0.3 - 0.4)
    ]);
  });
});

function round(v: number) {
  return Math.round(v * 1e6) / 1e6;
}

describe('splits, merges and redemptions', () => {
  const markets = new Map([
    ['m9', { status: 'resolved' as const, outcomes: ['Yes', 'No'], outcome_token_ids: ['y9', 'n9'], outcome_prices: [0, 1] }],
    ['m8', { status: 'active' as const, outcomes: ['Yes', 'No'], outcome_token_ids: ['y8', 'n8'], outcome_prices: [0.6, 0.4] }],
  ]);

  test('split 100, sell YES at 0.8, redeem NO at 1: realized 30 + 50', () => {
    const conversions = activityToFills(
      [
        { market_id: 'm9', type: 'SPLIT', size: 0, usdc_size: 100, ts_ms: T0 },
        { market_id: 'm9', type: 'REDEEM', size: 100, usdc_size: 100, ts_ms: T0 + 3 * DAY },
      ],
      markets,
    );
    const trades = [fill({ market_id: 'm9', asset_id: 'y9', side: 'sell', size: 100, price: 0.8, ts_ms: T0 + DAY })];
    const book = new PositionBook();
    for (const f of mergeFills(trades, conversions)) book.apply(f);
    // split: 100 YES and 100 NO at 0.5; sell YES: 100 x 0.3 = 30; redeem NO at payout 1: 100 x 0.5 = 50
    expect(book.realizedTotal()).toBeCloseTo(80, 10);
    expect(book.open()).toEqual([]);
  });

  test('a merge sells both outcomes at 0.50; a redemption of an unresolved market is ignored', () => {
    const fills = activityToFills(
      [
        { market_id: 'm8', type: 'MERGE', size: 0, usdc_size: 10, ts_ms: T0 },
        { market_id: 'm8', type: 'REDEEM', size: 5, usdc_size: 5, ts_ms: T0 },
        { market_id: 'unknown', type: 'SPLIT', size: 0, usdc_size: 5, ts_ms: T0 },
      ],
      markets,
    );
    expect(fills.map((f) => [f.kind, f.asset_id, f.side, f.size, f.price])).toEqual([
      ['merge', 'y8', 'sell', 10, 0.5],
      ['merge', 'n8', 'sell', 10, 0.5],
    ]);
  });
});
