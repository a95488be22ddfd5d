/**
 * ERC-1155 transfers between wallets (R4) and cross-key rewinds (R6) in the position ledger, each on
 * the smallest history that shows it (figures computed by hand in the comments, USDC):
 * - a transfer moves shares at the sender's average cost; the sender keeps no phantom position, the
 *   receiver's redemption realizes against the cost it received, and a position transferred out whole
 *   is neither a win nor a loss;
 * - a sender holding fewer shares than it sent moves what it holds at cost and the rest at cost 0;
 * - a rewind of a conversion's NO key re-prices its YES legs, and a rewind of a sender re-prices its
 *   receiver (and the receiver's own transfers on, recursively);
 * - a redelivered batch changes nothing.
 * Every test also checks the accounting identity over its wallets: realized PnL + cost basis left =
 * the collateral the events paid them (read from the events, not the ledger), to the micro-unit.
 */
import type { ChainLedgerEvent } from '../../events/types.generated.js';
import { chainResolution, marketUpserted, outcomeFill, outcomeToken } from '../../../test/support/events.js';
import { chainConversion, chainRedemption, chainTransfer, collateralByWallet } from '../../../test/support/ledger-builders.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { fromChain, type LedgerEvent } from './ledger-events.js';
import { PositionLedger } from './ledger.js';
import { walletReports } from '../trader-stats/queries.js';

const T = Date.UTC(2026, 2, 3, 12);
const M = (c: string) => `0x${c.repeat(64)}`;
const W = (c: string) => `0x${c.repeat(40)}`;
const RESOLVED = M('a');
const OPEN = M('b');
const NR = `0x${'8'.repeat(62)}00`;
const Q = [M('c'), M('d'), M('e')];
/** A second neg-risk market whose questions' market ids sort in another order than their indexes (0, 1, 2). */
const NR2 = `0x${'7'.repeat(62)}00`;
const QX = [M('f'), M('2'), M('9')];
const usdc = (micro: string | number | bigint) => Number(micro) / 1e6;

let block = 71_000_000;
let tx = 10_000;
const next = () => {
  block += 1;
  tx += 1;
  return { tx, block };
};
const buy = (wallet: string, market: string, index: number, shares: number, price: number, at: number) =>
  outcomeFill({ ...next(), at, wallet, market, index, side: 'buy', shares, price });
const sell = (wallet: string, market: string, index: number, shares: number, price: number, at: number) =>
  outcomeFill({ ...next(), at, wallet, market, index, side: 'sell', shares, price });
const transfer = (from: string, to: string, market: string, index: number, shares: number, at: number, group?: string) =>
  chainTransfer({ ...next(), at, from, to, market, index, shares, ...(group ? { group } : {}) });

let h: ProjectionHarness;
let ledger: PositionLedger;
const apply = (events: ChainLedgerEvent[]) => ledger.apply(events.map(fromChain).filter((e): e is LedgerEvent => e !== null));

/** Per token of a wallet: shares held, realized, cost basis (the newest row's), and the rows written. */
async function figures(wallet: string) {
  const rows = await h.rows<{ asset_id: string; qty: string; realized: string; cost: string; rows: string }>(
    `SELECT asset_id, toString(sum(qty_delta * sign)) AS qty, toString(sum(realized * sign)) AS realized,
            toString(argMax(cost_after, rev)) AS cost, toString(count()) AS rows
       FROM position_ledger WHERE wallet = {wallet:String} GROUP BY asset_id ORDER BY asset_id`,
    { wallet },
  );
  return Object.fromEntries(
    rows.map((r) => [r.asset_id, { qty: usdc(r.qty), realized: usdc(r.realized), cost: usdc(r.cost), rows: Number(r.rows) }]),
  );
}

/** realized + cost basis left, over the wallets, against the collateral the events paid them. */
async function identity(wallets: string[], events: ChainLedgerEvent[]) {
  const [row] = await h.rows<{ realized: string; basis: string }>(
    `SELECT toString(sum(realized)) AS realized, toString(sum(basis)) AS basis FROM (
       SELECT sum(realized * sign) AS realized, argMax(cost_after, rev) AS basis
         FROM position_ledger WHERE wallet IN {wallets:Array(String)} GROUP BY wallet, asset_id)`,
    { wallets },
  );
  const cash = collateralByWallet(events);
  const paid = wallets.reduce((sum, w) => sum + (cash.get(w) ?? 0n), 0n);
  return { ledger: BigInt(row!.realized) - BigInt(row!.basis), events: paid };
}

const kinds = (wallet: string) =>
  h.rows<{ kind: string; action: string; volume: string; trades: number; realized: string; counterparty: string }>(
    `SELECT kind, action, toString(volume) AS volume, trades, toString(realized) AS realized, counterparty FROM position_ledger
      WHERE wallet = {wallet:String} AND sign = 1 AND kind LIKE 'transfer%' ORDER BY rev`,
    { wallet },
  );

beforeAll(async () => {
  h = await projectionHarness('ledger-transfers');
  const binary = (id: string, over: Parameters<typeof marketUpserted>[0] = {}) =>
    marketUpserted({ event_id: `${id}:1`, market_id: id, outcome_token_ids: [outcomeToken(id, 0), outcomeToken(id, 1)], ...over });
  await h.given({
    markets: [
      binary(RESOLVED, { status: 'resolved', resolved_outcome: 'Yes', outcome_prices: [1, 0], accepting_orders: false }),
      binary(OPEN),
      ...Q.map((id, i) => binary(id, { neg_risk: true, neg_risk_market_id: NR, question_id: `${NR.slice(0, -2)}0${i}` })),
      ...QX.map((id, i) => binary(id, { neg_risk: true, neg_risk_market_id: NR2, question_id: `${NR2.slice(0, -2)}0${i}` })),
    ],
    chainResolutions: [chainResolution({ market_id: RESOLVED, payout_numerators: ['1', '0'], payouts: [1, 0], winning_outcome_index: 0 })],
  });
  ledger = new PositionLedger(h.store);
}, 120_000);
afterAll(() => h.close());

test('R4: a transfer moves shares at the sender average cost; the sender keeps nothing, the receiver redeems against that cost', async () => {
  const [a, a2, b] = [W('1'), W('2'), W('3')];
  const yes = outcomeToken(RESOLVED, 0);
  // A buys 100 YES for 40 and sends 60 of them to B (cost 60 x 0.40 = 24), then sells its other 40 at
  // 0.50: 20 - 16 = 4. A2 buys 50 YES for 20 and sends all 50 to B (cost 20). B holds 110 YES costing
  // 44; YES won and B's redemption pays 110: 110 - 44 = 66.
  const events = [
    buy(a, RESOLVED, 0, 100, 0.4, T),
    buy(a2, RESOLVED, 0, 50, 0.4, T + 500),
    transfer(a, b, RESOLVED, 0, 60, T + 1_000),
    transfer(a2, b, RESOLVED, 0, 50, T + 1_500),
    sell(a, RESOLVED, 0, 40, 0.5, T + 2_000),
    chainRedemption({ ...next(), at: T + 3_000, wallet: b, market: RESOLVED, paid: 110 }),
  ];
  await apply(events.slice(0, 4));
  await apply(events.slice(4));
  expect((await figures(a))[yes]).toMatchObject({ qty: 0, realized: 4, cost: 0 });
  expect((await figures(a2))[yes]).toMatchObject({ qty: 0, realized: 0, cost: 0 });
  expect((await figures(b))[yes]).toMatchObject({ qty: 0, realized: 66, cost: 0 });
  // Transfer rows: no PnL, no volume, no trade; each names the other wallet.
  expect(await kinds(a)).toEqual([
    { kind: 'transfer_out', action: 'sell_at_cost', volume: '0', trades: 0, realized: '0', counterparty: b },
  ]);
  expect((await kinds(b)).map((r) => [r.kind, r.action, r.volume, r.trades, r.counterparty])).toEqual([
    ['transfer_in', 'buy', '0', 0, a],
    ['transfer_in', 'buy', '0', 0, a2],
  ]);
  // A2 moved its whole position out: neither a win nor a loss (its net PnL in the market is 0); B won.
  const reports = await walletReports(h.store, [a, a2, b], { nowMs: T + 10_000, curveDays: 0 });
  expect([a2, b].map((w) => reports.reports.get(w)!.report).map((r) => [r.won, r.lost, r.realized])).toEqual([
    [0, 0, 0n],
    [1, 0, 66_000_000n],
  ]);
  expect(reports.reports.get(a)!.report.marketsTraded).toBe(1);
  const id = await identity([a, a2, b], events);
  expect(id.ledger).toBe(id.events);

  // Redelivered (a restart before the consumer's commit): nothing changes.
  const before = [await figures(a), await figures(a2), await figures(b)];
  await apply(events);
  expect([await figures(a), await figures(a2), await figures(b)]).toEqual(before);
});

test('R4: a sender holding fewer shares than it sends moves those at cost and the rest at cost 0', async () => {
  const [c, d] = [W('4'), W('5')];
  const yes = outcomeToken(OPEN, 0);
  // C holds 30 YES for 12 (its earlier 20 are outside the ledger's history) and sends 50 to D: D holds
  // 50 costing 12, and sells them at 0.50: 25 - 12 = 13.
  const uncovered = ledger.stats.transfers_uncovered;
  const events = [buy(c, OPEN, 0, 30, 0.4, T), transfer(c, d, OPEN, 0, 50, T + 1_000), sell(d, OPEN, 0, 50, 0.5, T + 2_000)];
  await apply(events);
  expect(ledger.stats.transfers_uncovered).toBe(uncovered + 1);
  expect((await figures(c))[yes]).toMatchObject({ qty: 0, realized: 0, cost: 0 });
  expect((await figures(d))[yes]).toMatchObject({ qty: 0, realized: 13, cost: 0 });
  const id = await identity([c, d], events);
  expect(id.ledger).toBe(id.events);
  const before = [await figures(c), await figures(d)];
  await apply(events);
  expect([await figures(c), await figures(d)]).toEqual(before);
  expect(ledger.stats.transfers_uncovered).toBe(uncovered + 1);
});

test('R6: a NO buy arriving after the conversion that used it re-prices the conversion YES legs', async () => {
  const e = W('6');
  // The conversion of 100 NO of question 0 (index set 1: k = 1, no collateral) is applied first, when
  // the wallet held no NO: its YES legs cost 0. The NO buy (100 for 30), older, arrives from a
  // backfill: the NO position is rewound and the conversion now takes 30 out of it, so the YES legs
  // of questions 1 and 2 cost 15 each.
  const conversion = chainConversion({ ...next(), at: T + 5_000, wallet: e, negRiskMarketId: NR, indexSet: 1, shares: 100 });
  const backfill = buy(e, Q[0]!, 1, 100, 0.3, T);
  await apply([conversion]);
  await apply([backfill]);
  const f = await figures(e);
  expect(f[outcomeToken(Q[0]!, 1)]).toMatchObject({ qty: 0, realized: 0, cost: 0 });
  expect(f[outcomeToken(Q[1]!, 0)]).toMatchObject({ qty: 100, realized: 0, cost: 15 });
  expect(f[outcomeToken(Q[2]!, 0)]).toMatchObject({ qty: 100, realized: 0, cost: 15 });
  const id = await identity([e], [conversion, backfill]);
  expect(id.ledger).toBe(id.events);
  // Both redelivered, in either order: nothing changes.
  await apply([backfill, conversion]);
  await apply([conversion]);
  expect(await figures(e)).toEqual(f);
});

test("a conversion of every question's NO realizes the loss of their cost above the collateral, and a backfill re-prices its sign", async () => {
  const [e, g] = [W('a'), W('b')];
  const no = (i: number) => outcomeToken(Q[i]!, 1);
  // E buys 100 NO of each of the three questions at 0.80 (cost 240) and converts all three (index set
  // 0b111): 2 x 100 = 200 collateral and no YES to carry the cost on, so 200 - 240 = -40 is realized.
  const events = [buy(e, Q[0]!, 1, 100, 0.8, T), buy(e, Q[1]!, 1, 100, 0.8, T + 100), buy(e, Q[2]!, 1, 100, 0.8, T + 200)];
  const conversion = chainConversion({ ...next(), at: T + 5_000, wallet: e, negRiskMarketId: NR, indexSet: 7, shares: 100 });
  await apply([...events, conversion]);
  const f = await figures(e);
  expect(f[no(0)]).toMatchObject({ qty: 0, realized: -40, cost: 0 });
  expect([f[no(1)], f[no(2)]]).toMatchObject([
    { qty: 0, realized: 0, cost: 0 },
    { qty: 0, realized: 0, cost: 0 },
  ]);
  expect(Object.keys(f)).toHaveLength(3);
  const id = await identity([e], [...events, conversion]);
  expect(id.ledger).toBe(id.events);
  await apply([conversion]);
  expect(await figures(e)).toEqual(f);

  // G's conversion is applied when only two of its NO buys are known (cost 160 < 200: +40 realized);
  // the third (100 at 0.80), older, arrives from a backfill: the NO now cost
  // 240 and the same conversion realizes -40. The re-priced leg's signed amount is in its row's realized.
  const gBuys = [buy(g, Q[1]!, 1, 100, 0.8, T + 100), buy(g, Q[2]!, 1, 100, 0.8, T + 200)];
  const gConversion = chainConversion({ ...next(), at: T + 5_000, wallet: g, negRiskMarketId: NR, indexSet: 7, shares: 100 });
  await apply([...gBuys, gConversion]);
  expect((await figures(g))[no(0)]).toMatchObject({ qty: 0, realized: 40, cost: 0 });
  const backfill = buy(g, Q[0]!, 1, 100, 0.8, T);
  await apply([backfill]);
  const gf = await figures(g);
  expect(gf[no(0)]).toMatchObject({ qty: 0, realized: -40, cost: 0 });
  const gid = await identity([g], [...gBuys, gConversion, backfill]);
  expect(gid.ledger).toBe(gid.events);
  await apply([backfill, ...gBuys, gConversion]);
  expect(await figures(g)).toEqual(gf);
});

test('R6: a re-priced conversion keeps its own questions and fee', async () => {
  const e = W('5');
  // The chain had prepared questions 0 and 1 when the wallet converted 100 NO of question 0 with a 1 %
  // fee: 99 YES of question 1, none of question 2 (prepared later; the catalog lists it). Applied before
  // the wallet's NO buy (100 for 30) arrives from a backfill: re-priced, the 99 YES cost 30, and
  // question 2 still gets nothing.
  const conversion = chainConversion({
    ...next(),
    at: T + 5_000,
    wallet: e,
    negRiskMarketId: NR,
    indexSet: 1,
    shares: 100,
    questions: [Q[0]!, Q[1]!],
    feeBips: 100,
  });
  const backfill = buy(e, Q[0]!, 1, 100, 0.3, T);
  await apply([conversion]);
  expect((await figures(e))[outcomeToken(Q[1]!, 0)]).toMatchObject({ qty: 99, cost: 0 });
  await apply([backfill]);
  const f = await figures(e);
  expect(f[outcomeToken(Q[0]!, 1)]).toMatchObject({ qty: 0, realized: 0, cost: 0 });
  expect(f[outcomeToken(Q[1]!, 0)]).toMatchObject({ qty: 99, realized: 0, cost: 30 });
  expect(f[outcomeToken(Q[2]!, 0)]).toBeUndefined();
  await apply([backfill, conversion]);
  expect(await figures(e)).toEqual(f);
});

test('R6: a re-priced conversion keeps its collateral and fee on its first question by index, whatever order the catalog lists them in', async () => {
  const e = W('4');
  // NO of questions 0 and 2 (100 each for 30) converted (k = 2, fee 1 %: f = 1): 99 collateral, 99 YES
  // of question 1. The NO cost 60, so 39 is realized, with the fee (k - 1) x f = 1, on question 0's NO
  // leg (the first converted question). A backfilled buy of 10 NO of question 2 for 2, older than all,
  // re-prices it: question 2's NO now gives up 100 of 110 costing 32, 29.090909, so 39.909091 is
  // realized, still on question 0, and the fee stays 1. The catalog lists the questions in another
  // order (here 2, 1, 0): taken in that order, the collateral and the fee moved to question 2, and the
  // fee was left on question 0 as well (a leg's fee was not compared when re-priced).
  const buys = [buy(e, QX[0]!, 1, 100, 0.3, T + 1_000), buy(e, QX[2]!, 1, 100, 0.3, T + 2_000)];
  const conversion = chainConversion({
    ...next(),
    at: T + 5_000,
    wallet: e,
    negRiskMarketId: NR2,
    indexSet: 0b101,
    shares: 100,
    questions: QX,
    feeBips: 100,
  });
  const backfill = buy(e, QX[2]!, 1, 10, 0.2, T);
  await apply([...buys, conversion]);
  const first = await figures(e);
  expect(first[outcomeToken(QX[0]!, 1)]).toMatchObject({ qty: 0, realized: 39 });
  // Question 0's listing is updated (a newer version of its row): the catalog's rows come back in an
  // order of their own, question 0 now last.
  await h.given({
    markets: [
      marketUpserted({
        event_id: `${QX[0]}:2`,
        market_id: QX[0]!,
        outcome_token_ids: [outcomeToken(QX[0]!, 0), outcomeToken(QX[0]!, 1)],
        neg_risk: true,
        neg_risk_market_id: NR2,
        question_id: `${NR2.slice(0, -2)}00`,
      }),
    ],
  });
  await apply([backfill]);
  const f = await figures(e);
  expect(f[outcomeToken(QX[0]!, 1)]).toMatchObject({ qty: 0, realized: 39.909091, cost: 0 });
  expect(f[outcomeToken(QX[2]!, 1)]).toMatchObject({ qty: 10, realized: 0, cost: 2.909091 });
  expect(f[outcomeToken(QX[1]!, 0)]).toMatchObject({ qty: 99, realized: 0, cost: 0 });
  const [fees] = await h.rows<{ fees: string }>(
    `SELECT toString(sum(toInt64(fee_micro) * sign)) AS fees FROM position_ledger WHERE wallet = {wallet:String}`,
    { wallet: e },
  );
  expect(fees?.fees).toBe('1000000');
  const id = await identity([e], [...buys, conversion, backfill]);
  expect(id.ledger).toBe(id.events);
});

test('R6: a sender backfilled buy re-prices its receiver, and the receiver own transfer on', async () => {
  const [sender, receiver, third] = [W('7'), W('8'), W('9')];
  const yes = outcomeToken(OPEN, 0);
  // F sends 50 YES to G before the ledger has F's buy (cost 0 then); G sends 20 to H and sells 30 at
  // 0.70 (21 - 0 = 21). F's buy of 50 for 20, older, arrives from a backfill: F's transfer now takes
  // 20 out, so G's 50 cost 20, G's transfer to H takes 8, and G's sale realizes 21 - 12 = 9.
  const later = [
    transfer(sender, receiver, OPEN, 0, 50, T + 5_000),
    transfer(receiver, third, OPEN, 0, 20, T + 5_500),
    sell(receiver, OPEN, 0, 30, 0.7, T + 6_000),
  ];
  const backfill = buy(sender, OPEN, 0, 50, 0.4, T);
  await apply(later);
  expect((await figures(receiver))[yes]).toMatchObject({ qty: 0, realized: 21 });
  await apply([backfill]);
  expect((await figures(sender))[yes]).toMatchObject({ qty: 0, realized: 0, cost: 0 });
  expect((await figures(receiver))[yes]).toMatchObject({ qty: 0, realized: 9, cost: 0 });
  expect((await figures(third))[yes]).toMatchObject({ qty: 20, realized: 0, cost: 8 });
  // The receivers' rewinds (a batch with no event of theirs) number on from their stored rows, not from 1.
  const reused = await h.rows(
    `SELECT wallet, rev FROM position_ledger WHERE wallet IN ({receiver:String}, {third:String}) GROUP BY wallet, asset_id, rev HAVING count() > 1`,
    { receiver, third },
  );
  expect(reused).toEqual([]);
  const id = await identity([sender, receiver, third], [...later, backfill]);
  expect(id.ledger).toBe(id.events);
  // Redelivered: nothing changes, not even the rows.
  const before = [await figures(sender), await figures(receiver), await figures(third)];
  await apply([backfill, ...later]);
  expect([await figures(sender), await figures(receiver), await figures(third)]).toEqual(before);
});
