/** Trades: trade events -> one `trades` row per trade, however often it is delivered -> /trades. */
import { conditionId, marketUpserted, T0, tradeExecuted, txHash, walletAddress } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';

const M = conditionId(0x61);

let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('trades');
  const trade = tradeExecuted({
    event_id: 't-1',
    market_id: M,
    market_title: 'Rain?',
    wallet: walletAddress(7),
    side: 'sell',
    outcome: 'No',
    outcome_index: 1,
    price: 0.25,
    yes_price: 0.75,
    size: 40,
    size_usdc: 10,
    tx_hash: txHash(9),
  });
  await h.given({ markets: [marketUpserted({ market_id: M })], trades: [trade] });
  // Delivered again (an overlapping poll): the row is not doubled, and neither are the candles.
  await h.given({ trades: [trade, { ...trade, event_id: 't-2', timestamp_ms: T0 + 1000 }] });
}, 60_000);
afterAll(() => h.close());

test('one row per trade id; the candle view counts each trade once', async () => {
  expect(
    await h.rows(
      `SELECT trade_id, market_id, wallet, side, outcome, outcome_index, price, yes_price, size, size_usdc, toUnixTimestamp64Milli(ts) AS ts_ms, tx_hash, source
         FROM trades FINAL ORDER BY trade_id`,
    ),
  ).toEqual([
    {
      trade_id: 't-1',
      market_id: M,
      wallet: walletAddress(7),
      side: 'sell',
      outcome: 'No',
      outcome_index: 1,
      price: 0.25,
      yes_price: 0.75,
      size: 40,
      size_usdc: 10,
      ts_ms: T0,
      tx_hash: txHash(9),
      source: 'simulator',
    },
    {
      trade_id: 't-2',
      market_id: M,
      wallet: walletAddress(7),
      side: 'sell',
      outcome: 'No',
      outcome_index: 1,
      price: 0.25,
      yes_price: 0.75,
      size: 40,
      size_usdc: 10,
      ts_ms: T0 + 1000,
      tx_hash: txHash(9),
      source: 'simulator',
    },
  ]);
  expect(await h.rows('SELECT count() AS n FROM trades')).toEqual([{ n: 2 }]);
  expect(await h.rows('SELECT sum(trade_count) AS n, sum(volume_usdc) AS usdc FROM candles_5m')).toEqual([{ n: 2, usdc: 20 }]);
});

test('the feed serves the trade with units named', async () => {
  const { body } = await h.get(`/trades?market=${M}&limit=1`);
  expect(body.data).toEqual([
    {
      trade_id: 't-2',
      market_id: M,
      market_title: 'Rain?',
      wallet: walletAddress(7),
      side: 'sell',
      outcome: 'No',
      outcome_index: 1,
      role: 'taker',
      price: 0.25,
      size_shares: 40,
      size_usdc: 10,
      size_shares_micro: '40000000',
      size_usdc_micro: '10000000',
      fee_micro: null,
      fee_asset: null,
      timestamp: new Date(T0 + 1000).toISOString(),
      block_number: null,
      log_index: null,
      tx_hash: txHash(9),
      origin: 'data_api',
      source: 'simulator',
    },
  ]);
  expect(body.pagination).toMatchObject({ limit: 1, has_more: true });
});
