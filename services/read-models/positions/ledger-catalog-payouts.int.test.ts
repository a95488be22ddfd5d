/**
 * Redemptions priced from the holdings before their market's payout was known are priced again when
 * the catalog (not the chain) learns it, exactly as the chain's resolution prices them (issue 53):
 * through the service's ledger processor, which consumes the catalog's market resolutions. Every
 * figure is worked by hand in the comments (USDC).
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { ChainLedgerEvent, MarketResolved } from '../../events/types.generated.js';
import { resolutionEventId } from '../../ingest/normalize-market.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { chainResolution, marketResolved, marketUpserted, outcomeFill, outcomeToken } from '../../../test/support/events.js';
import { chainRedemption, ledgerFigures } from '../../../test/support/ledger-builders.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { fromChain, type LedgerEvent } from './ledger-events.js';
import { ledgerOf } from './ledger-projection.js';
import { PositionLedger } from './ledger.js';

const T = Date.UTC(2026, 3, 1, 12);
const M = (c: string) => `0x${c.repeat(64)}`;
const W = (c: string) => `0x${c.repeat(40)}`;
/** Resolved in the catalog only (YES won). */
const WON = M('1');
/** Voided in the catalog only (0.5 a share). */
const VOID = M('2');
/** Voided on the chain (payout numerators [1, 1]). */
const CHAIN_VOID = M('3');
/** The catalog says YES won, the chain NO. */
const DISAGREE = M('4');
/** The catalog says YES won, then corrects it to NO (the chain source never read its resolution). */
const CORRECTED = M('6');

let block = 71_000_000;
let tx = 1;
function buy(wallet: string, market: string, index: number, shares: number, price: number, at: number): ChainLedgerEvent {
  block += 1;
  tx += 1;
  return outcomeFill({ tx, block, at, wallet, market, index, side: 'buy', shares, price });
}
function redemption(wallet: string, market: string, paid: number, at: number): ChainLedgerEvent {
  block += 1;
  tx += 1;
  return chainRedemption({ tx, block, at, wallet, market, paid });
}

const binary = (id: string, over: Parameters<typeof marketUpserted>[0] = {}) =>
  marketUpserted({ event_id: `${id}:1`, market_id: id, outcome_token_ids: [outcomeToken(id, 0), outcomeToken(id, 1)], ...over });
/** Gamma's view of a settled market: the upsert and the resolution catalog sync publishes with it. */
function settled(id: string, prices: [number, number]) {
  const voided = prices[0] === prices[1];
  // Newer than the market's first version (the catalog's table keeps the newest).
  const ingested_at_ms = binary(id).ingested_at_ms + 1;
  const market = binary(id, { event_id: `${id}:settled`, status: voided ? 'voided' : 'resolved', outcome_prices: prices, ingested_at_ms });
  const resolution: MarketResolved = marketResolved({
    event_id: resolutionEventId(id),
    market_id: id,
    outcome_token_ids: market.outcome_token_ids,
    winning_outcome: voided ? null : market.outcomes[prices.indexOf(1)]!,
    winning_outcome_index: voided ? -1 : prices.indexOf(1),
    winning_asset_id: voided ? null : market.outcome_token_ids[prices.indexOf(1)]!,
    payouts: prices,
  });
  return { markets: [market], marketResolutions: [resolution] };
}

let h: ProjectionHarness;
let ledger: PositionLedger;
const apply = (events: ChainLedgerEvent[]) => ledger.apply(events.map(fromChain) as LedgerEvent[]);
const figures = (wallet: string) => ledgerFigures(h.store, wallet);
/** A wallet's live ledger rows, in chain order per outcome, without the columns that name, number or time them. */
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
const pending = (market: string) =>
  h.rows<{ wallet: string; priced: number }>(
    `SELECT wallet, priced FROM position_redemptions_unpriced FINAL WHERE market_id = {market:String} ORDER BY wallet`,
    { market },
  );
const disagreements = () => ledgerOf(h.store).ledger.stats.resolution_payout_disagreements;

beforeAll(async () => {
  h = await projectionHarness('ledger-catalog-payouts');
  await h.given({
    markets: [binary(WON), binary(VOID), binary(CHAIN_VOID), binary(DISAGREE), binary(CORRECTED)],
    chainResolutions: [
      chainResolution({
        event_id: 'chain-void',
        market_id: CHAIN_VOID,
        payout_numerators: ['1', '1'],
        payouts: [0.5, 0.5],
        winning_outcome_index: -1,
      }),
    ],
  });
  ledger = new PositionLedger(h.store);
}, 120_000);
afterAll(() => h.close());

test("a redemption priced from the holdings before the catalog's resolution was read is priced again by it", async () => {
  // 50 YES for 30 and 50 NO for 20, all redeemed for 50 with no payout known: either outcome winning
  // pays 50, so the ledger spreads it (25 a leg: YES -5, NO +5). The catalog's resolution (YES won;
  // the chain source never read this market's ConditionResolution) prices it again: YES 50 - 30 = 20, NO -20.
  const wallet = W('a');
  const history = (w: string) => [buy(w, WON, 0, 50, 0.6, T), buy(w, WON, 1, 50, 0.4, T + 1_000), redemption(w, WON, 50, T + 2_000)];
  await apply(history(wallet));
  expect((await figures(wallet)).byToken).toMatchObject({
    [outcomeToken(WON, 0)]: { qty: 0, realized: -5 },
    [outcomeToken(WON, 1)]: { qty: 0, realized: 5 },
  });
  expect(await pending(WON)).toEqual([{ wallet, priced: 0 }]);
  await h.given(settled(WON, [1, 0]), { refresh: false });
  expect((await figures(wallet)).byToken).toMatchObject({
    [outcomeToken(WON, 0)]: { qty: 0, realized: 20 },
    [outcomeToken(WON, 1)]: { qty: 0, realized: -20 },
  });
  // Cleared: priced, by the catalog (2), so a differing chain resolution would price it again.
  expect(await pending(WON)).toEqual([{ wallet, priced: 2 }]);
  // The same history applied after the resolution is priced by it from the start: the same rows
  // (noted as priced by the catalog too).
  await apply(history(W('b')));
  expect(await liveRows(wallet)).toEqual(await liveRows(W('b')));
  expect(await pending(WON)).toEqual([
    { wallet, priced: 2 },
    { wallet: W('b'), priced: 2 },
  ]);
});

test("a catalog void prices a redemption as the chain's payout [1, 1] / 2 does, row for row", async () => {
  // 20 YES and 10 NO at 0.5 (cost 10 and 5), redeemed for 10: of the candidates only "NO won" pays
  // 10 for the shares held, so the ledger reads NO as the winner (YES -10, NO +5). The market was
  // voided: 20 x 1/2 + 10 x 1/2 = 15 owed against 10 paid, each leg scaled down to its share:
  // YES 10 x 10/15 = 6.666667 (realized -3.333333), NO 3.333333 (realized -1.666667).
  const history = (w: string, market: string) => [
    buy(w, market, 0, 20, 0.5, T),
    buy(w, market, 1, 10, 0.5, T + 1_000),
    redemption(w, market, 10, T + 2_000),
  ];
  const [catalog, chain] = [W('c'), W('d')];
  await apply(history(catalog, VOID));
  expect((await figures(catalog)).byToken).toMatchObject({
    [outcomeToken(VOID, 0)]: { qty: 0, realized: -10 },
    [outcomeToken(VOID, 1)]: { qty: 0, realized: 5 },
  });
  await h.given(settled(VOID, [0.5, 0.5]), { refresh: false });
  expect((await figures(catalog)).byToken).toMatchObject({
    [outcomeToken(VOID, 0)]: { qty: 0, realized: -3.333333 },
    [outcomeToken(VOID, 1)]: { qty: 0, realized: -1.666667 },
  });
  expect(await pending(VOID)).toEqual([{ wallet: catalog, priced: 2 }]);
  await apply(history(chain, CHAIN_VOID));
  const rows = await liveRows(catalog);
  expect(rows.filter((r) => r.kind === 'redemption')).toEqual([
    expect.objectContaining({ outcome_index: 0, pay_num: '1', pay_den: '2', cash: '6666667' }),
    expect.objectContaining({ outcome_index: 1, pay_num: '1', pay_den: '2', cash: '3333333' }),
  ]);
  expect(rows).toEqual(await liveRows(chain));
});

test("when the chain's payout differs from the catalog's, the chain's prices the redemptions, and the disagreement is counted once", async () => {
  // As the first test, but the catalog's YES won and the chain's NO. One redemption is spread, then
  // priced by the catalog (YES +20, NO -20); another is applied once the catalog's is known and priced
  // by it from the start. The chain's resolution prices both again: YES 0 - 30, NO 50 - 20 = 30, as the
  // same history applied once both are known.
  const [spread, catalogPriced, after] = [W('e'), W('8'), W('f')];
  const history = (w: string) => [
    buy(w, DISAGREE, 0, 50, 0.6, T),
    buy(w, DISAGREE, 1, 50, 0.4, T + 1_000),
    redemption(w, DISAGREE, 50, T + 2_000),
  ];
  const before = disagreements();
  await apply(history(spread));
  await h.given(settled(DISAGREE, [1, 0]), { refresh: false });
  await apply(history(catalogPriced));
  for (const w of [spread, catalogPriced])
    expect((await figures(w)).byToken).toMatchObject({
      [outcomeToken(DISAGREE, 0)]: { realized: 20 },
      [outcomeToken(DISAGREE, 1)]: { realized: -20 },
    });
  expect(await pending(DISAGREE)).toEqual([
    { wallet: catalogPriced, priced: 2 },
    { wallet: spread, priced: 2 },
  ]);
  const chainSays = chainResolution({
    event_id: 'chain-disagrees',
    market_id: DISAGREE,
    payout_numerators: ['0', '1'],
    payouts: [0, 1],
    winning_outcome_index: 1,
  });
  await h.given({ chainResolutions: [chainSays] }, { refresh: false });
  for (const w of [spread, catalogPriced])
    expect((await figures(w)).byToken).toMatchObject({
      [outcomeToken(DISAGREE, 0)]: { qty: 0, realized: -30 },
      [outcomeToken(DISAGREE, 1)]: { qty: 0, realized: 30 },
    });
  expect(await pending(DISAGREE)).toEqual([
    { wallet: catalogPriced, priced: 1 },
    { wallet: spread, priced: 1 },
  ]);
  expect(disagreements()).toBe(before + 1);
  // The catalog's resolution read again: the chain's still prices them, and the market counts once.
  const again = settled(DISAGREE, [1, 0]).marketResolutions.map((r) => ({ ...r, ingested_at_ms: T + 9 }));
  await h.given({ marketResolutions: again }, { refresh: false });
  expect(disagreements()).toBe(before + 1);
  await apply(history(after));
  const expected = await liveRows(after);
  expect(await liveRows(spread)).toEqual(expected);
  expect(await liveRows(catalogPriced)).toEqual(expected);
});

test('a catalog resolution corrected to another payout prices its redemptions again; read again unchanged, it prices nothing', async () => {
  // As the first test: 50 YES for 30, 50 NO for 20, redeemed for 50. One redemption is spread and then
  // priced by the catalog's first payout (YES won: YES 50 - 30 = 20, NO -20), another is applied once it
  // is known and priced by it from the start. The catalog then says NO won (Gamma corrected it): both are
  // priced again, YES -30, NO 50 - 20 = 30, as the same history applied after the correction.
  const [spread, catalogPriced, after] = [W('5'), W('7'), W('6')];
  const history = (w: string) => [
    buy(w, CORRECTED, 0, 50, 0.6, T),
    buy(w, CORRECTED, 1, 50, 0.4, T + 1_000),
    redemption(w, CORRECTED, 50, T + 2_000),
  ];
  const repriced = () => ledgerOf(h.store).ledger.stats.redemptions_repriced;
  await apply(history(spread));
  await h.given(settled(CORRECTED, [1, 0]), { refresh: false });
  await apply(history(catalogPriced));
  for (const w of [spread, catalogPriced])
    expect((await figures(w)).byToken).toMatchObject({
      [outcomeToken(CORRECTED, 0)]: { qty: 0, realized: 20 },
      [outcomeToken(CORRECTED, 1)]: { qty: 0, realized: -20 },
    });
  const payoutOf = (market: string) =>
    h.rows<{ wallet: string; priced: number; payout: string }>(
      'SELECT wallet, priced, payout FROM position_redemptions_unpriced FINAL WHERE market_id = {market:String} ORDER BY wallet',
      { market },
    );
  expect(await payoutOf(CORRECTED)).toEqual([
    { wallet: spread, priced: 2, payout: '[1,0]/1' },
    { wallet: catalogPriced, priced: 2, payout: '[1,0]/1' },
  ]);

  const corrected = settled(CORRECTED, [0, 1]);
  const newer = { ...corrected, marketResolutions: corrected.marketResolutions.map((r) => ({ ...r, ingested_at_ms: T + 20 })) };
  const before = repriced();
  await h.given(newer, { refresh: false });
  expect(repriced()).toBe(before + 2);
  for (const w of [spread, catalogPriced])
    expect((await figures(w)).byToken).toMatchObject({
      [outcomeToken(CORRECTED, 0)]: { qty: 0, realized: -30 },
      [outcomeToken(CORRECTED, 1)]: { qty: 0, realized: 30 },
    });
  expect(await payoutOf(CORRECTED)).toEqual([
    { wallet: spread, priced: 2, payout: '[0,1]/1' },
    { wallet: catalogPriced, priced: 2, payout: '[0,1]/1' },
  ]);

  // The catalog lists the market again with the same payout (every sync that relists it): nothing to price.
  const relisted = { marketResolutions: newer.marketResolutions.map((r) => ({ ...r, ingested_at_ms: T + 30 })) };
  await h.given(relisted, { refresh: false });
  expect(repriced()).toBe(before + 2);
  await apply(history(after));
  const expected = await liveRows(after);
  expect(await liveRows(spread)).toEqual(expected);
  expect(await liveRows(catalogPriced)).toEqual(expected);
});

// Last in this file: it reads the journal the service's ledger left (its last re-pricing's batch).
test('the failures the ledger counts and goes on after are logged: a disagreement once per market, a journal replay with its token', async () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'warn' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    }),
  );
  // The service's ledger journalled its last batch; a ledger whose first insert of it fails logs why.
  const [journal] = await h.rows<{ token: string }>(`SELECT token FROM ledger_journal WHERE slot = 0`);
  expect(journal?.token).toMatch(/-ledger$/);
  let failOnce = true;
  const failing = new Proxy(h.store, {
    get(target, property) {
      const value = (target as never)[property] as unknown;
      if (property === 'insert')
        return (table: string, ...rest: unknown[]) => {
          if (table === 'position_ledger' && failOnce) {
            failOnce = false;
            return Promise.reject(new Error('insert refused'));
          }
          if (table === 'trader_touches') return Promise.reject(new Error('touches refused'));
          return (value as (...a: unknown[]) => unknown).call(target, table, ...rest);
        };
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as AnalyticsStore;
  const logged = new PositionLedger(failing);
  logged.useLogger(logger);
  // A market the catalog says YES won, then the chain NO (twice): one disagreement, one line.
  const market = M('5');
  await logged.applyCatalogResolutions([{ marketId: market, payout: { num: [1n, 0n], den: 1n }, tokenIds: [] }]);
  await logged.applyResolutions([{ marketId: market, payout: { num: [0n, 1n], den: 1n } }]);
  await logged.applyResolutions([{ marketId: market, payout: { num: [0n, 1n], den: 1n } }]);
  expect(logged.stats.resolution_payout_disagreements).toBe(1);
  // Its first batch: the journal's replay fails (logged with its token), then the batch's touches
  // (logged); the next batch's touches fail too, within the minute: counted, not logged again.
  await logged.apply([fromChain(buy(W('9'), WON, 0, 1, 0.5, T + 5_000))!]);
  await logged.apply([fromChain(buy(W('9'), WON, 0, 1, 0.5, T + 6_000))!]);
  expect(logged.stats.journal_replay_failures).toBe(1);
  expect(logged.stats.touch_failures).toBe(2);
  expect(lines.map((l) => [l.level, l.market_id ?? l.journal_token ?? null, (l.err as { message?: string } | undefined)?.message])).toEqual(
    [
      [40, market, undefined],
      [40, journal!.token, 'insert refused'],
      [40, null, 'touches refused'],
    ],
  );
  expect(lines[0]).toMatchObject({ chain_payout: '[0,1]/1', catalog_payout: '[1,0]/1' });
});
