/**
 * A wallet's first and last trade are its first and last fill, whatever else the ledger applied and
 * however the changes were batched: the lifetime view aggregates per insert, so a batch holding only
 * a wallet's redemption (the usual case: redemptions come days after the trades) must not set its
 * first trade to 1970. A wallet with no fill at all (splits and merges only) has no trade times.
 */
import { chainFill, chainLedgerEvent, marketUpserted, txHash } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { DAY_MS, iso, startOfUtcDay } from '../../shared/time.js';
import { TraderValuation } from './valuation.js';

const NOW = Date.now();
const TODAY = startOfUtcDay(NOW);
const D2 = TODAY - 2 * DAY_MS + 3_600_000;
const D1 = TODAY - DAY_MS + 3_600_000;
const D0 = TODAY + Math.floor((NOW - TODAY) / 2);

const M = `0x${'c'.repeat(64)}`;
const K = `0x${'4'.repeat(40)}`; // fills, then a redemption in a later batch
const S = `0x${'5'.repeat(40)}`; // splits and merges only
const tok = (i: number) => `${M.slice(2, 8)}${i}`;

let n = 0;
const at = (time: number) => {
  n += 1;
  const block = 81_000_000 + n;
  return { tx_hash: txHash(900 + n), block_number: block, block_hash: `0x${block.toString(16).padStart(64, '0')}`, block_time_ms: time };
};
const buy = (wallet: string, shares: number, price: number, time: number, outcome = 0) =>
  chainFill({
    ...at(time),
    log_index: 1,
    market_id: M,
    ledger_group: M,
    wallet,
    fill: {
      asset_id: tok(outcome),
      outcome: outcome === 0 ? 'Yes' : 'No',
      outcome_index: outcome,
      shares_micro: String(shares * 1e6),
      usdc_micro: String(Math.round(shares * price * 1e6)),
      price,
      yes_price: outcome === 0 ? price : Math.round((1 - price) * 1e6) / 1e6,
    },
  });
const change = (kind: 'split' | 'merge' | 'redemption', wallet: string, amount: number, time: number) =>
  chainLedgerEvent({
    ...at(time),
    kind,
    log_index: 2,
    market_id: M,
    ledger_group: M,
    wallet,
    position_change: {
      amount_micro: String(amount * 1e6),
      index_sets: ['1', '2'],
      redeemed_micro: [],
      outcome_token_ids: [tok(0), tok(1)],
      collateral_token: '0x2791bca1f2de4661ed88a30c99a7a9449aa84174',
    },
  });

let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('trade_times');
  await h.given({
    markets: [
      marketUpserted({
        event_id: `${M}:1`,
        market_id: M,
        outcome_token_ids: [tok(0), tok(1)],
        status: 'resolved',
        resolved_outcome: 'Yes',
        outcome_prices: [1, 0],
        closed_ms: D0 - 1000,
        updated_at_ms: NOW,
        ingested_at_ms: NOW,
      }),
    ],
  });
  // Three batches: each `given` waits until the ledger has applied it, so each is its own insert.
  // K's first fill is on NO, its last on YES: the wallet's times span its tokens.
  await h.given({ chainLedger: [buy(K, 10, 0.4, D2, 1), buy(K, 5, 0.5, D1)] });
  await h.given({ chainLedger: [change('split', S, 20, D1 + 1000)] });
  await h.given({ chainLedger: [change('redemption', K, 15, D0), change('merge', S, 5, D0 + 1000)] });
  await new TraderValuation(h.store).run(NOW);
}, 120_000);
afterAll(() => h.close());

test('first and last trade are the first and last fill, not a later batch of redemptions', async () => {
  const { status, body } = await h.get(`/traders/${K}`);
  expect(status).toBe(200);
  // Redeemed at payouts (YES 1, NO 0): 10 NO bought for 4 -> 0 - 4 = -4; 5 YES bought for 2.5 -> 5 - 2.5 = 2.5
  expect(body.data.lifetime.total_realized_pnl).toBe(-1.5);
  expect(body.data.first_trade_at).toBe(iso(D2));
  expect(body.data.last_trade_at).toBe(iso(D1));
  const board = (await h.get('/leaderboard?limit=5')).body.data;
  expect(board.find((r: { wallet: string }) => r.wallet === K)?.last_trade_at).toBe(iso(D1));
});

test('a wallet that never traded (splits and merges only) has no trade times', async () => {
  const { status, body } = await h.get(`/traders/${S}`);
  expect(status).toBe(200);
  expect(body.data.lifetime.trades).toBe(0);
  expect(body.data.first_trade_at).toBeNull();
  expect(body.data.last_trade_at).toBeNull();
});
