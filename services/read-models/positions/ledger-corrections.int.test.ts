/**
 * Errors a review against Polymarket's PnL subgraph found in the ledger, each reproduced on the
 * smallest history that shows it (every figure computed by hand in the comments, USDC):
 * - a redemption whose payout was not known yet, replayed after older fills arrived, paid its whole
 *   collateral per share (the demo's leaderboard showed trillions);
 * - a redemption realized more than the collateral it paid out;
 * - a neg-risk conversion of two NO positions lost the collateral it paid (R1);
 * - a v1 buy whose fee was taken in shares kept the fee's shares (R2);
 * - a voided market's redemption paid each outcome's half rounded up, where the CTF rounds it down;
 * - a redemption first applied over shares the wallet had sold (a sale arriving late), its payout
 *   unknown, kept the price per share it read from those holdings when the sale rewound it;
 * - a redemption priced from the holdings before its market's resolution was read kept that price.
 */
import type { ChainLedgerEvent } from '../../events/types.generated.js';
import {
  chainLedgerEvent,
  chainResolution,
  marketUpserted,
  outcomeFill,
  outcomeToken,
  tradeExecuted,
  txHash,
} from '../../../test/support/events.js';
import { ledgerFigures } from '../../../test/support/ledger-builders.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { fromChain, fromDataApiTrade, type LedgerEvent } from './ledger-events.js';
import { PositionLedger } from './ledger.js';

const T = Date.UTC(2026, 2, 2, 12);
const M = (c: string) => `0x${c.repeat(64)}`;
const W = (c: string) => `0x${c.repeat(40)}`;
const UNRESOLVED = M('1');
const RESOLVED = M('2');
const FEES = M('3');
const VOIDED = M('8');
const NR = `0x${'9'.repeat(62)}00`;
const Q = [M('4'), M('5'), M('6')];
const usdc = (micro: string | number | bigint) => Number(micro) / 1e6;

let block = 70_000_000;
let tx = 1;
function buy(wallet: string, market: string, index: number, shares: number, price: number, at: number): ChainLedgerEvent {
  block += 1;
  tx += 1;
  return outcomeFill({ tx, block, at, wallet, market, index, side: 'buy', shares, price });
}
function redemption(wallet: string, market: string, paid: number, at: number): ChainLedgerEvent {
  block += 1;
  tx += 1;
  return chainLedgerEvent({
    kind: 'redemption',
    tx_hash: txHash(tx),
    log_index: 2,
    block_number: block,
    block_hash: `0x${block.toString(16).padStart(64, '0')}`,
    block_time_ms: at,
    market_id: market,
    ledger_group: market,
    wallet,
    position_change: {
      amount_micro: String(Math.round(paid * 1e6)),
      index_sets: ['1', '2'],
      redeemed_micro: [],
      outcome_token_ids: [outcomeToken(market, 0), outcomeToken(market, 1)],
      collateral_token: '0x2791bca1f2de4661ed88a30c99a7a9449aa84174',
    },
  });
}

let h: ProjectionHarness;
let ledger: PositionLedger;
const apply = (events: ChainLedgerEvent[]) => ledger.apply(events.map(fromChain) as LedgerEvent[]);

const figures = (wallet: string) => ledgerFigures(h.store, wallet);
/** A wallet's live ledger rows, in chain order per outcome, without the columns that number or time them. */
const liveRows = (wallet: string) =>
  h.rows(
    `SELECT outcome_index, kind, action, toString(in_qty) AS in_qty, toString(in_usdc) AS in_usdc, toString(pay_num) AS pay_num,
            toString(pay_den) AS pay_den, toString(qty_delta) AS qty_delta, toString(cash) AS cash, toString(realized) AS realized,
            toString(qty_after) AS qty_after, toString(cost_after) AS cost_after
       FROM position_ledger
      WHERE wallet = {wallet:String} AND sign = 1
        AND (asset_id, rev) NOT IN (SELECT asset_id, of_rev FROM position_ledger WHERE wallet = {wallet:String} AND sign = -1)
      ORDER BY outcome_index, time`,
    { wallet },
  );
function sell(wallet: string, market: string, index: number, shares: number, price: number, at: number): ChainLedgerEvent {
  block += 1;
  tx += 1;
  return outcomeFill({ tx, block, at, wallet, market, index, side: 'sell', shares, price });
}

beforeAll(async () => {
  h = await projectionHarness('ledger-corrections');
  const binary = (id: string, over: Parameters<typeof marketUpserted>[0] = {}) =>
    marketUpserted({ event_id: `${id}:1`, market_id: id, outcome_token_ids: [outcomeToken(id, 0), outcomeToken(id, 1)], ...over });
  await h.given({
    markets: [
      binary(UNRESOLVED),
      binary(RESOLVED),
      binary(FEES),
      binary(VOIDED),
      ...Q.map((id, i) => binary(id, { neg_risk: true, neg_risk_market_id: NR, question_id: `${NR.slice(0, -2)}0${i}` })),
    ],
    chainResolutions: [
      chainResolution({
        event_id: 'void-resolution',
        market_id: VOIDED,
        payout_numerators: ['1', '1'],
        payouts: [0.5, 0.5],
        winning_outcome_index: -1,
      }),
      chainResolution({ market_id: RESOLVED, payout_numerators: ['1', '0'], payouts: [1, 0], winning_outcome_index: 0 }),
      chainResolution({
        event_id: 'fees-resolution',
        market_id: FEES,
        payout_numerators: ['1', '0'],
        payouts: [1, 0],
        winning_outcome_index: 0,
      }),
    ],
  });
  ledger = new PositionLedger(h.store);
}, 120_000);
afterAll(() => h.close());

test('a redemption applied before the fills it redeems, its payout unknown, pays no more than it paid out', async () => {
  const wallet = W('a');
  // The chain's redemption (100 paid) comes first; the wallet's buy of 100 YES for 40, an hour
  // older, arrives after it from the Data API (the default head-then-backfill flow) and rewinds the
  // YES position, replaying the redemption over 100 shares.
  await apply([redemption(wallet, UNRESOLVED, 100, T + 3_600_000)]);
  await ledger.apply([
    fromDataApiTrade(
      tradeExecuted({
        event_id: 'api-older-buy',
        market_id: UNRESOLVED,
        asset_id: outcomeToken(UNRESOLVED, 0),
        wallet,
        side: 'buy',
        outcome: 'Yes',
        outcome_index: 0,
        price: 0.4,
        size: 100,
        size_usdc: 40,
        timestamp_ms: T,
        tx_hash: txHash(999),
      }),
    ),
  ]);
  // 100 paid for 100 shares that cost 40: 60, not 100 x 100,000,000 - 40.
  const f = await figures(wallet);
  expect(f.realized).toBe(60);
  expect(f.byToken[outcomeToken(UNRESOLVED, 0)]).toMatchObject({ qty: 0, realized: 60, cost: 0 });
});

test('a redemption whose payout is not known yet is read from what it paid for the shares held', async () => {
  const wallet = W('b');
  // 50 YES for 20 and 30 NO for 18; the redemption pays 30: NO won (30 x 1), YES pays 0.
  await apply([buy(wallet, M('7'), 0, 50, 0.4, T), buy(wallet, M('7'), 1, 30, 0.6, T + 1_000), redemption(wallet, M('7'), 30, T + 2_000)]);
  const f = await figures(wallet);
  expect(f.byToken[outcomeToken(M('7'), 0)]).toMatchObject({ qty: 0, realized: -20 });
  expect(f.byToken[outcomeToken(M('7'), 1)]).toMatchObject({ qty: 0, realized: 12 });
});

test("a voided market's redemption pays each outcome's half rounded down, as the CTF does", async () => {
  const wallet = W('8');
  // 5.999999 YES for 2.999999 and 1.999999 NO for 0.999999 (0.5 each, rounded down); after the 50-50
  // resolution the CTF pays floor(5,999,999 / 2) + floor(1,999,999 / 2) = 3,999,998 micro: each
  // outcome's half rounded down, so realized 0 on both. Rounded up, the NO leg realized 0.000001.
  await apply([
    buy(wallet, VOIDED, 0, 5.999999, 0.5, T),
    buy(wallet, VOIDED, 1, 1.999999, 0.5, T + 1_000),
    redemption(wallet, VOIDED, 3.999998, T + 2_000),
  ]);
  const f = await figures(wallet);
  expect(f.byToken[outcomeToken(VOIDED, 0)]).toMatchObject({ qty: 0, realized: 0, cost: 0 });
  expect(f.byToken[outcomeToken(VOIDED, 1)]).toMatchObject({ qty: 0, realized: 0, cost: 0 });
  expect(f.realized).toBe(0);
});

test('a redemption realizes no more than the collateral it paid out', async () => {
  const wallet = W('c');
  // The ledger holds 100 YES (cost 40) but the chain burned and paid 60 (40 shares left the wallet
  // unseen): 60 - 40 = 20, not 100 - 40.
  await apply([buy(wallet, RESOLVED, 0, 100, 0.4, T), redemption(wallet, RESOLVED, 60, T + 1_000)]);
  const f = await figures(wallet);
  expect(f.realized).toBe(20);
  expect(f.byToken[outcomeToken(RESOLVED, 0)]).toMatchObject({ qty: 0, realized: 20 });
});

test("a redemption's stored legs do not depend on what the ledger held when it was first applied", async () => {
  // 100 YES for 40, 10 NO for 6, 60 YES sold for 30, and the redemption paying 40 (YES won). One
  // wallet's history arrives in chain order; the other's sell arrives after the redemption, which then
  // saw 100 YES against 40 paid (scaled down) and is replayed from its stored rows by the rewind.
  const history = (wallet: string) => [
    buy(wallet, RESOLVED, 0, 100, 0.4, T),
    buy(wallet, RESOLVED, 1, 10, 0.6, T + 1_000),
    sell(wallet, RESOLVED, 0, 60, 0.5, T + 2_000),
    redemption(wallet, RESOLVED, 40, T + 3_000),
  ];
  const [inOrder, late] = [history(W('1')), history(W('2'))];
  await apply(inOrder);
  await apply([late[0]!, late[1]!, late[3]!]);
  await apply([late[2]!]);
  const rows = liveRows;
  const expected = await rows(W('1'));
  expect(expected.filter((r) => r.kind === 'redemption')).toEqual([
    expect.objectContaining({ outcome_index: 0, in_usdc: '40000000', realized: '24000000' }),
    expect.objectContaining({ outcome_index: 1, in_usdc: '0', pay_num: '0', pay_den: '1', realized: '-6000000' }),
  ]);
  expect(await rows(W('2'))).toEqual(expected);
  // 30 - 24 = 6 on YES's sale, 40 - 16 = 24 on its redemption, -6 on NO.
  expect((await figures(W('2'))).realized).toBe(24);
});

test('a redemption applied over shares sold in changes arriving after it, its payout unknown, is priced as in chain order', async () => {
  // 110 YES for 44, 20 NO for 10, the 20 NO sold for 10, 10 YES sold for 4.5, then 100 redeemed for
  // 100 on a market whose payout is not known. In chain order the redemption sees 100 YES and 0 NO:
  // YES won (100 x 1 = 100 paid). The other wallet's two sales arrive after the redemption, which first
  // saw 110 YES and 20 NO (no outcome's holding matches 100: spread, 100/130 a share); the sales'
  // rewinds change what its keys held, so its legs are priced again from the holdings before it.
  const market = M('a');
  const history = (wallet: string) => [
    buy(wallet, market, 0, 110, 0.4, T),
    buy(wallet, market, 1, 20, 0.5, T + 1_000),
    sell(wallet, market, 1, 20, 0.5, T + 2_000),
    sell(wallet, market, 0, 10, 0.45, T + 2_500),
    redemption(wallet, market, 100, T + 3_000),
  ];
  const [inOrder, late] = [history(W('3')), history(W('4'))];
  await apply(inOrder);
  await apply([late[0]!, late[1]!, late[4]!]);
  await apply([late[2]!, late[3]!]);
  const expected = await liveRows(W('3'));
  expect(expected.filter((r) => r.kind === 'redemption')).toEqual([
    expect.objectContaining({ outcome_index: 0, pay_num: '1', pay_den: '1', cash: '100000000', realized: '60000000' }),
    expect.objectContaining({ outcome_index: 1, pay_num: '0', pay_den: '1', cash: '0', realized: '0' }),
  ]);
  expect(await liveRows(W('4'))).toEqual(expected);
  // YES: 0.5 on the sale (4.5 - 4), 60 on the redemption (100 - 40); NO: 0.
  expect((await figures(W('4'))).realized).toBe(60.5);
});

test("a void's redemption scaled down over shares sold in a change arriving after it is priced as in chain order", async () => {
  // 10 YES and 10 NO at 0.5 each, 4 YES sold at 0.5, then a redemption of the voided market (1/2 a
  // share) paying 8. In chain order it sees 6 YES and 10 NO: 3 + 5 = 8, as paid. The other wallet's
  // sale arrives after it: the redemption first saw 10 and 10, 10 owed against 8 paid, and scaled each
  // leg down to 4; the sale's rewind changes what YES held before it, so both legs are priced again.
  const history = (wallet: string) => [
    buy(wallet, VOIDED, 0, 10, 0.5, T),
    buy(wallet, VOIDED, 1, 10, 0.5, T + 1_000),
    sell(wallet, VOIDED, 0, 4, 0.5, T + 2_000),
    redemption(wallet, VOIDED, 8, T + 3_000),
  ];
  // Wallets of no other test (R2 and the touches test count every row of theirs).
  const [ordered, reordered] = [W('7'), `0x${'7'.repeat(39)}1`];
  const [inOrder, late] = [history(ordered), history(reordered)];
  await apply(inOrder);
  await apply([late[0]!, late[1]!, late[3]!]);
  await apply([late[2]!]);
  const expected = await liveRows(ordered);
  expect(expected.filter((r) => r.kind === 'redemption')).toEqual([
    expect.objectContaining({ outcome_index: 0, in_usdc: '8000000', cash: '3000000', realized: '0' }),
    expect.objectContaining({ outcome_index: 1, in_usdc: '8000000', cash: '5000000', realized: '0' }),
  ]);
  expect(await liveRows(reordered)).toEqual(expected);
});

test('R1: a conversion of two NO positions realizes the collateral it pays beyond their cost', async () => {
  const wallet = W('d');
  // 100 NO of questions 0 and 1 for 30 each (cost 60). Converting both (index set 0b011, 100 each)
  // gives 100 YES of question 2 and (2 - 1) x 100 = 100 collateral: 100 - 60 = 40 realized, and the
  // YES costs max(60 - 100, 0) = 0.
  block += 1;
  const conversion = chainLedgerEvent({
    kind: 'conversion',
    tx_hash: txHash(5_000),
    log_index: 3,
    block_number: block + 10,
    block_hash: `0x${(block + 10).toString(16).padStart(64, '0')}`,
    block_time_ms: T + 5_000,
    market_id: '',
    ledger_group: NR,
    neg_risk: true,
    wallet,
    position_change: null,
    conversion: {
      neg_risk_market_id: NR,
      index_set: '3',
      amount_micro: '100000000',
      question_count: 0,
      fee_bips: 0,
      questions: [],
      questions_from: '',
      fee_from: '',
    },
  });
  await apply([buy(wallet, Q[0]!, 1, 100, 0.3, T), buy(wallet, Q[1]!, 1, 100, 0.3, T + 1_000), conversion]);
  const f = await figures(wallet);
  expect(f.realized).toBe(40);
  expect(f.byToken[outcomeToken(Q[0]!, 1)]).toMatchObject({ qty: 0, cost: 0 });
  expect(f.byToken[outcomeToken(Q[1]!, 1)]).toMatchObject({ qty: 0, cost: 0 });
  expect(f.byToken[outcomeToken(Q[2]!, 0)]).toMatchObject({ qty: 100, cost: 0 });
  // Redelivered (a restart before the consumer's commit): applied once.
  await apply([conversion]);
  expect((await figures(wallet)).realized).toBe(40);
});

test('R2: a v1 buy whose fee is taken in shares holds the shares net of it, and the fee is reported in USDC', async () => {
  const wallet = W('e');
  // v1 buy of 100 YES for 40 with a fee of 2 shares: it receives 98, which cost 98 x 0.4 = 39.2; the
  // fee is worth 2 x 0.4 = 0.8. YES wins and the redemption pays 98: 98 - 39.2 = 58.8.
  const fill = buy(wallet, FEES, 0, 100, 0.4, T);
  fill.fill = { ...fill.fill!, fee_micro: '2000000', fee_asset: 'shares', exchange_version: 1 };
  await apply([fill]);
  let f = await figures(wallet);
  expect(f.byToken[outcomeToken(FEES, 0)]).toEqual({ qty: 98, realized: 0, cost: 39.2, fees: 0.8 });
  await apply([redemption(wallet, FEES, 98, T + 1_000)]);
  f = await figures(wallet);
  expect(f.realized).toBe(58.8);
  // Volume counts the whole fill: 40.
  const [volume] = await h.rows<{ v: string }>(
    `SELECT toString(sum(toInt64(volume) * sign)) AS v FROM position_ledger WHERE wallet = {wallet:String}`,
    {
      wallet,
    },
  );
  expect(usdc(volume!.v)).toBe(40);
});

test('the ledger notes what it changed in trader_touches once its rows are stored, never inside the insert', async () => {
  const wallet = W('f');
  const inserts: string[] = [];
  const spy = new Proxy(h.store, {
    get(target, property) {
      const value = (target as never)[property] as unknown;
      if (property === 'insert' || property === 'insertJsonLines')
        return (table: string, ...rest: unknown[]) => {
          inserts.push(table);
          return (value as (...a: unknown[]) => unknown).call(target, table, ...rest);
        };
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const spied = new PositionLedger(spy);
  await spied.apply([fromChain(buy(wallet, RESOLVED, 1, 10, 0.2, T))!]);
  expect(inserts).toEqual(['position_ledger', 'trader_touches']);
  const touches = await h.rows<{ wallet: string; market_id: string }>(
    `SELECT wallet, market_id FROM trader_touches WHERE wallet = {wallet:String}`,
    {
      wallet,
    },
  );
  expect(touches).toEqual([{ wallet, market_id: RESOLVED }]);
  // No view writes touches: a row stored without the ledger touches nothing.
  const [row] = await h.rows(`SELECT * FROM position_ledger WHERE wallet = {wallet:String}`, { wallet });
  await h.store.insert('position_ledger', [{ ...(row as object), wallet: W('9') }]);
  expect(await h.rows(`SELECT wallet FROM trader_touches WHERE wallet = {wallet:String}`, { wallet: W('9') })).toEqual([]);
});

test("a redemption priced from the holdings before its market's resolution was read is priced again by it", async () => {
  // 50 YES for 30 and 50 NO for 20, all redeemed for 50 before the market's resolution is known:
  // either outcome winning pays 50, so the ledger spreads it (25 a leg: YES -5, NO +5). The
  // resolution (YES won), read by the service's ledger processor, prices it again: YES 50 - 30 = 20,
  // NO -20. Same total, but per outcome (and per market, for a market traded on one side) it differs.
  // Last in this file: the service's ledger leaves its journal in the store, which a ledger started
  // after it (the touches test's) inserts again first.
  const market = M('b');
  const wallet = W('5');
  await apply([buy(wallet, market, 0, 50, 0.6, T), buy(wallet, market, 1, 50, 0.4, T + 1_000), redemption(wallet, market, 50, T + 2_000)]);
  expect((await figures(wallet)).byToken).toMatchObject({
    [outcomeToken(market, 0)]: { qty: 0, realized: -5 },
    [outcomeToken(market, 1)]: { qty: 0, realized: 5 },
  });
  const pending = `SELECT wallet, priced FROM position_redemptions_unpriced FINAL WHERE market_id = {market:String}`;
  expect(await h.rows(pending, { market })).toEqual([{ wallet, priced: 0 }]);
  await h.given(
    {
      chainResolutions: [
        chainResolution({ event_id: 'late-resolution', market_id: market, payout_numerators: ['1', '0'], payouts: [1, 0] }),
      ],
    },
    { refresh: false },
  );
  expect((await figures(wallet)).byToken).toMatchObject({
    [outcomeToken(market, 0)]: { qty: 0, realized: 20 },
    [outcomeToken(market, 1)]: { qty: 0, realized: -20 },
  });
  expect(await h.rows(pending, { market })).toEqual([{ wallet, priced: 1 }]);
  // The same history applied now, in one go, is priced by the resolution from the start: the same rows.
  await apply([buy(W('6'), market, 0, 50, 0.6, T), buy(W('6'), market, 1, 50, 0.4, T + 1_000), redemption(W('6'), market, 50, T + 2_000)]);
  expect(await liveRows(wallet)).toEqual(await liveRows(W('6')));
});
