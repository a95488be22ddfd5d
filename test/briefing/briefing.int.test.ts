/**
 * GET /briefing over the real engines: signals recorded by the sandbox processor (large trades at the
 * configured threshold, price signals by the webhooks' detector, resolutions), narrowed to the agent's
 * topics and held markets, served once per cursor; the paper state with fills since the last briefing;
 * risk alerts; copy picks absent with a reason.
 */
import { bookSnapshot, conditionId, marketResolved, marketUpserted, tradeExecuted } from '../support/events.js';
import { type SandboxHarness, sandboxHarness } from '../support/sandbox-harness.js';

const SPORTS = conditionId(301);
const POLITICS = conditionId(302);
const now = Date.now();
let h: SandboxHarness;

beforeAll(async () => {
  h = await sandboxHarness('briefing', {
    env: {
      SIGNALS_LARGE_TRADE_USDC: '1000',
      SIGNALS_PRICE_CHANGE_PCT: '5',
      BRIEFING_POLL_SECONDS: '60',
      BRIEFING_POLL_FAST_SECONDS: '15',
      BRIEFING_POLL_IDLE_SECONDS: '300',
      BRIEFING_DRAWDOWN_ALERT_PCT: '0.5',
    },
  });
  await h.given({
    markets: [
      marketUpserted({
        market_id: SPORTS,
        category: 'Sports',
        outcome_token_ids: ['3011', '3012'],
        tick_size: 0.01,
        end_ms: now + 30 * 60_000,
      }),
      marketUpserted({
        market_id: POLITICS,
        category: 'Politics',
        outcome_token_ids: ['3021', '3022'],
        tick_size: 0.01,
        end_ms: now + 30 * 86_400_000,
      }),
    ],
    bookSnapshots: [
      bookSnapshot({
        market_id: SPORTS,
        asset_id: '3011',
        hash: 's1',
        timestamp_ms: now - 1000,
        asks: [{ price: 0.6, size: 1000 }],
        bids: [{ price: 0.58, size: 1000 }],
      }),
      bookSnapshot({
        market_id: POLITICS,
        asset_id: '3021',
        hash: 'p1',
        timestamp_ms: now - 1000,
        asks: [{ price: 0.3, size: 1000 }],
        bids: [{ price: 0.28, size: 1000 }],
      }),
    ],
  });
}, 60_000);
afterAll(() => h?.close());

const trade = (n: number, market: string, asset: string, price: number, size: number, at: number) =>
  tradeExecuted({
    event_id: `bt-${n}`,
    market_id: market,
    asset_id: asset,
    price,
    yes_price: price,
    size,
    size_usdc: price * size,
    timestamp_ms: at,
  });

test("an agent sees its topics' signals once, its paper fills since last time, risk alerts and a poll hint", async () => {
  const key = await h.register('briefed', ['sports']);
  const first = await h.request('GET', '/briefing', key);
  expect(first.status).toBe(200);
  expect(first.body.data).toMatchObject({
    agent: { name: 'briefed', topics: ['sports'], previous_briefing_at: null },
    copy_picks: { available: false, items: [] },
    signals: { items: [], has_more: false },
    paper: { account: { cash_usdc: 10000, epoch: 1 }, positions: [], open_orders: [], fills_since_last: [] },
    risk_alerts: [],
    // Idle: nothing held, nothing resting, no signals.
    next_poll_seconds: 300,
  });
  // No copy-picks run has happened in this harness: none qualify yet.
  expect(first.body.data.copy_picks).toMatchObject({ available: false, items: [], reason: expect.stringMatching(/No leader qualifies/) });

  // A paper buy in the sports market; then a large trade and a 10% move in sports, and a large politics trade.
  const bought = await h.request('POST', '/paper/orders', key, {
    market_id: SPORTS,
    outcome: 'YES',
    side: 'buy',
    type: 'market',
    size: '100',
  });
  expect(bought.status).toBe(201);
  await h.given({
    trades: [
      trade(1, SPORTS, '3011', 0.6, 100, now + 1_000),
      trade(2, SPORTS, '3011', 0.66, 2_000, now + 2_000),
      trade(3, POLITICS, '3021', 0.3, 5_000, now + 3_000),
    ],
  });
  const second = (await h.request('GET', '/briefing', key)).body.data;
  // Sports only (topics): the 1,320 USDC trade is large (>= 1,000) and moved YES 0.60 -> 0.66 (+10%).
  expect(second.signals.items.map((s: any) => [s.kind, s.market_id])).toEqual([
    ['large_trade', SPORTS],
    ['price_signal', SPORTS],
  ]);
  expect(second.signals.items[1].data).toMatchObject({
    event: 'market.price_signal',
    yes_price: 0.66,
    prev_price: 0.6,
    change_pct: 10,
    direction: 'up',
  });
  expect(second.paper.fills_since_last).toHaveLength(1);
  expect(second.paper.positions[0]).toMatchObject({ shares: 100, avg_entry_price: 0.6 });
  expect(second.agent.previous_briefing_at).not.toBeNull();
  expect(second.data_as_of).toBe(new Date(now + 3_000).toISOString());
  // The held market ends within the hour: a warning, and the fast poll.
  expect(second.risk_alerts).toEqual(
    expect.arrayContaining([expect.objectContaining({ kind: 'resolving_soon', severity: 'warning', market_id: SPORTS })]),
  );
  expect(second.next_poll_seconds).toBe(15);

  // Nothing new since: the next briefing repeats neither signals nor fills.
  const third = (await h.request('GET', '/briefing', key)).body.data;
  expect(third.signals.items).toEqual([]);
  expect(third.paper.fills_since_last).toEqual([]);
  // A lost response is re-read with the cursor it came after (a pure read that moves nothing).
  const replay = (
    await h.request('GET', `/briefing?since=${encodeURIComponent(second.signals.since ?? first.body.data.signals.next_since)}`, key)
  ).body.data;
  expect(replay.signals.items.map((s: any) => s.kind)).toEqual(['large_trade', 'price_signal']);
  expect((await h.request('GET', '/briefing?since=nonsense', key)).status).toBe(400);

  // The market resolves: the position settles, the next briefing carries the resolution and the settlement.
  await h.given({
    marketResolutions: [marketResolved({ market_id: SPORTS, outcome_token_ids: ['3011', '3012'], payouts: [1, 0], title: 'Sports?' })],
  });
  const fourth = (await h.request('GET', '/briefing', key)).body.data;
  expect(fourth.signals.items.map((s: any) => s.kind)).toEqual(['resolution']);
  // 100 shares bought at 0.60 pay 1: realized 40.
  expect(fourth.paper.settlements_since_last).toEqual([expect.objectContaining({ kind: 'resolved', realized_pnl_usdc: 40 })]);
  expect(fourth.paper.account).toMatchObject({ realized_pnl_usdc: 40, cash_usdc: 10040, open_positions: 0 });
});

test('topics narrow signals, but markets the agent holds always come through; an agent with no topics sees all', async () => {
  const everything = await h.register('everything');
  await h.request('GET', '/briefing', everything);
  const narrow = await h.register('narrow', ['economics']);
  await h.request('GET', '/briefing', narrow);
  const held = await h.request('POST', '/paper/orders', narrow, {
    market_id: POLITICS,
    outcome: 'YES',
    side: 'buy',
    type: 'market',
    size: '10',
  });
  expect(held.status).toBe(201);
  await h.given({ trades: [trade(4, POLITICS, '3021', 0.3, 4_000, now + 4_000)] });
  const all = (await h.request('GET', '/briefing', everything)).body.data.signals.items;
  const mine = (await h.request('GET', '/briefing', narrow)).body.data.signals.items;
  expect(all.map((s: any) => s.market_id)).toEqual([POLITICS]);
  expect(mine.map((s: any) => s.market_id)).toEqual([POLITICS]);
  // Topics can be changed.
  const patched = await h.request('PATCH', '/agents/me', narrow, { topics: ['Politics', 'Crypto'] });
  expect(patched.body.data.topics).toEqual(['Politics', 'Crypto']);
});

test('drawdown past the configured share of peak equity raises an alert', async () => {
  const key = await h.register('drawdown');
  // 1000 YES at 0.30 (no fee on this market): 300 spent, marked at the mid 0.29.
  await h.request('POST', '/paper/orders', key, { market_id: POLITICS, outcome: 'YES', side: 'buy', type: 'market', size: '1000' });
  await h.request('GET', '/paper/account', key);
  // The book falls: YES bid 0.10 / ask 0.12, mid 0.11: 1000 shares lose 190 (1.9% of 10,000).
  await h.given({
    bookSnapshots: [
      bookSnapshot({
        market_id: POLITICS,
        asset_id: '3021',
        hash: 'p2',
        timestamp_ms: Date.now(),
        asks: [{ price: 0.12, size: 10 }],
        bids: [{ price: 0.1, size: 10 }],
      }),
    ],
  });
  const briefing = (await h.request('GET', '/briefing', key)).body.data;
  expect(briefing.paper.account).toMatchObject({ equity_usdc: 9810, peak_equity_usdc: 10000, drawdown_pct: 1.9 });
  expect(briefing.risk_alerts).toEqual(
    expect.arrayContaining([expect.objectContaining({ kind: 'drawdown', severity: 'warning', drawdown_pct: 1.9 })]),
  );
});
