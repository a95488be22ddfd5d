/**
 * Legacy AMM trades (fills of role amm, docs/CHAIN.md "Legacy AMM") in the chain read model: the one
 * record of their trade, so the trades feed's default (`role=taker`: one record per trade) lists them
 * beside the matches' taker fills, `role=maker` does not, the candles and the reconciliation with the
 * Data API count them, and a retraction rebuilds their candle without them. Figures by hand below.
 */
import { chainFill, conditionId, marketUpserted, T0, tradeExecuted, txHash, walletAddress } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { blockRetraction, watermarkKeys, watermarks } from '../../chain/ledger-events.js';
import { reconcileHours } from './reconciliation.js';

const M = conditionId(0x91);
const POOL = '0x00000000000000000000000000000000000f9a11';
const EXCHANGE = '0x4bfb41d5b3570defd03c39a9a4d8de6bd8b8982e';
const [A, B, C] = [walletAddress(0xb1), walletAddress(0xb2), walletAddress(0xb3)];
const hash = (c: string) => `0x${c.repeat(64)}`;
const context = { chainId: 137, source: 'simulator' as const, nowMs: T0 + 3_600_000, negRiskAdapter: '' };
const at = (block: number, blockHash: string, second: number, log: number, tx: number) => ({
  market_id: M,
  ledger_group: M,
  block_number: block,
  block_hash: blockHash,
  block_time_ms: T0 + second * 1000,
  tx_hash: txHash(tx),
  log_index: log,
});
const fill = (price: number, shares: number) => ({
  asset_id: '911',
  shares_micro: String(shares * 1e6),
  usdc_micro: String(Math.round(shares * price * 1e6)),
  price,
  yes_price: price,
});

// 12:00:00 A buys 50 YES at 0.30 from the pool (its 2 % fee apart); 12:00:01 B buys 10 at 0.35 from C's
// resting order; 12:00:02 A sells 20 at 0.32 to the pool. Candle: O 0.30 H 0.35 L 0.30 C 0.32, three
// trades, 15 + 3.5 + 6.4 = 24.9 USDC.
const ammBuy = chainFill({
  ...at(200, hash('1'), 0, 4, 0x200),
  wallet: A,
  fill: { ...fill(0.3, 50), role: 'amm', fee_micro: '300000', counterparty: POOL, exchange_version: 0, order_hash: '' },
});
const match = [
  chainFill({ ...at(201, hash('2'), 1, 0, 0x201), wallet: C, fill: { ...fill(0.35, 10), role: 'maker', side: 'sell', counterparty: B } }),
  chainFill({
    ...at(201, hash('2'), 1, 1, 0x201),
    wallet: B,
    fill: { ...fill(0.35, 10), role: 'taker', side: 'buy', counterparty: EXCHANGE },
  }),
];
const ammSell = chainFill({
  ...at(202, hash('3'), 2, 4, 0x202),
  wallet: A,
  fill: { ...fill(0.32, 20), role: 'amm', side: 'sell', fee_micro: '128000', counterparty: POOL, exchange_version: 0, order_hash: '' },
});

let h: ProjectionHarness;

const candle5m = async () =>
  h.rows(
    `SELECT argMinMerge(open) AS open, max(high) AS high, min(low) AS low, argMaxMerge(close) AS close,
            toString(sum(volume_usdc_micro)) AS usdc, toString(sum(trade_count)) AS trades
       FROM chain_candles_5m WHERE market_id = {m:String}`,
    { m: M },
  );

beforeAll(async () => {
  h = await projectionHarness('amm_trades');
  await h.given({
    markets: [marketUpserted({ market_id: M, outcome_token_ids: ['911', '912'], market_maker_address: POOL })],
    chainLedger: [
      ammBuy,
      ...match,
      ammSell,
      ...watermarks({ number: 203, hash: hash('4'), timeMs: T0 + 61 * 60_000 }, watermarkKeys(8), context),
    ],
    // The Data API lists AMM trades as a taker's: A's buy is there (same transaction, wallet, token, size).
    trades: [
      tradeExecuted({
        event_id: 'api-amm',
        market_id: M,
        wallet: A,
        asset_id: '911',
        size: 50,
        price: 0.3,
        yes_price: 0.3,
        size_usdc: 15,
        tx_hash: txHash(0x200),
        timestamp_ms: T0,
      }),
    ],
  });
}, 60_000);
afterAll(() => h.close());

test('the feed: AMM trades are in the default one-record-per-trade list with role amm, not among the makers', async () => {
  const byDefault = (await h.get(`/trades?market=${M}`)).body.data;
  expect(byDefault.map((t: any) => [t.role, t.wallet, t.side, t.price, t.size_usdc, t.fee_micro])).toEqual([
    ['amm', A, 'sell', 0.32, 6.4, '128000'],
    ['taker', B, 'buy', 0.35, 3.5, '0'],
    ['amm', A, 'buy', 0.3, 15, '300000'],
  ]);
  const makers = (await h.get(`/trades?market=${M}&role=maker`)).body.data;
  expect(makers.map((t: any) => [t.role, t.wallet])).toEqual([['maker', C]]);
  const all = (await h.get(`/trades?market=${M}&role=all`)).body.data;
  expect(all).toHaveLength(4);
});

test('candles and the reconciliation count AMM trades as trades', async () => {
  expect(await candle5m()).toEqual([{ open: 0.3, high: 0.35, low: 0.3, close: 0.32, usdc: '24900000', trades: '3' }]);
  expect(await reconcileHours(h.store, T0 + 3_600_000)).toBe(1);
  // A's buy is matched; B's taker fill and A's sell were never listed by the Data API.
  expect(await h.rows('SELECT data_api, matched, unmatched, chain_only FROM trade_reconciliation FINAL')).toEqual([
    { data_api: 1, matched: 1, unmatched: 0, chain_only: 2 },
  ]);
});

test("a retraction of the AMM sell's block rebuilds the candle without it", async () => {
  await h.given({ chainLedger: [blockRetraction({ number: 202, hash: hash('3'), timeMs: T0 + 2000 }, M, context)] });
  expect(await candle5m()).toEqual([{ open: 0.3, high: 0.35, low: 0.3, close: 0.35, usdc: '18500000', trades: '2' }]);
});
