/** Markets: market events -> `markets` rows (latest version per market) -> /markets and /markets/:id. */
import { conditionId, marketUpserted, T0 } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';

const M = conditionId(0x51);
const at = (ms: number) => new Date(ms).toISOString();

let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('markets');
  const first = marketUpserted({ market_id: M, slug: 'will-it', title: 'Will it?', volume_24h_usdc: 10, ingested_at_ms: T0 });
  await h.given({
    markets: [
      first,
      // A newer version of the same market replaces the first (ReplacingMergeTree on ingested_at).
      {
        ...first,
        event_id: `${M}:v2`,
        outcome_prices: [0.7, 0.3],
        best_bid: 0.69,
        best_ask: 0.71,
        volume_24h_usdc: 25,
        tick_size: 0.01,
        accepting_orders: true,
        ingested_at_ms: T0 + 1000,
        end_ms: T0 + 86_400_000,
      },
    ],
  });
}, 60_000);
afterAll(() => h.close());

test('one row per market: the latest version, timestamps as DateTime64', async () => {
  expect(
    await h.rows(
      `SELECT market_id, slug, outcome_prices, best_bid, best_ask, volume_24h_usdc, tick_size, accepting_orders,
              toUnixTimestamp64Milli(end_date) AS end_date_ms, toUnixTimestamp64Milli(ingested_at) AS ingested_at_ms
         FROM markets FINAL`,
    ),
  ).toEqual([
    {
      market_id: M,
      slug: 'will-it',
      outcome_prices: [0.7, 0.3],
      best_bid: 0.69,
      best_ask: 0.71,
      volume_24h_usdc: 25,
      tick_size: 0.01,
      accepting_orders: true,
      end_date_ms: T0 + 86_400_000,
      ingested_at_ms: T0 + 1000,
    },
  ]);
});

test('the market by slug and in the list, with YES/NO prices and the spread', async () => {
  const { status, body } = await h.get('/markets/will-it');
  expect(status).toBe(200);
  const { snapshot, lifecycle, ...market } = body.data;
  // No lifecycle transitions were given: the lifecycle processor has not seen this market.
  expect(lifecycle).toBeNull();
  expect(market).toEqual({
    id: M,
    gamma_id: '1001',
    slug: 'will-it',
    title: 'Will it?',
    category: 'Politics',
    status: 'active',
    outcomes: ['Yes', 'No'],
    outcome_token_ids: market.outcome_token_ids,
    outcome_prices: [0.7, 0.3],
    yes_price: 0.7,
    no_price: 0.3,
    best_bid: 0.69,
    best_ask: 0.71,
    spread: 0.02,
    last_trade_price: null,
    volume_24h_usdc: 25,
    volume_total_usdc: 0,
    liquidity_usdc: 0,
    neg_risk: false,
    event: null,
    resolved_outcome: null,
    start_date: null,
    end_date: at(T0 + 86_400_000),
    closed_at: null,
    created_at: null,
    updated_at: at(T0),
    source: 'simulator',
  });
  expect(snapshot).toMatchObject({ last_trade_price: null, last_trade_at: null, trades_24h: 0, trades_total: 0 });
  expect((await h.get('/markets?limit=10')).body.data.map((m: { id: string }) => m.id)).toEqual([M]);
});
