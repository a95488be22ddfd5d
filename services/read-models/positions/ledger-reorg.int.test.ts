/**
 * A reorg's retraction in the same batch as the orphaned block's changes (a live demo double-counted a
 * fill this way): the chain source publishes a block's fills, then, when a reorg replaces the block,
 * its retraction and the replacement block's fills (the same transactions, other log indexes); the
 * ledger can read all three in one batch. The orphaned changes the batch had not stored yet (appended,
 * or waiting for a rewind: behind their key's last change, or replacing a Data API twin) leave with
 * the block, and only the replacement's remain.
 */
import type { ChainLedgerEvent } from '../../events/types.generated.js';
import {
  blockRetraction,
  chainLedgerEvent,
  marketUpserted,
  outcomeFill,
  outcomeToken,
  tradeExecuted,
  txHash,
} from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { fromChain, fromDataApiTrade, type LedgerEvent } from './ledger-events.js';
import { PositionLedger } from './ledger.js';

const T = Date.UTC(2026, 3, 1, 12);
const MARKET = `0x${'c3'.repeat(32)}`;
const W = (c: string) => `0x${c.repeat(40)}`;
const BLOCK = 71_000_000;
const hashOf = (c: string) => `0x${c.repeat(64)}`;

/** Wallet's buy of 10 YES at 0.50 in transaction `tx`, in the block with `hash` at log `log`. */
function buy(wallet: string, tx: number, hash: string, log: number, block = BLOCK, at = T): ChainLedgerEvent {
  const fill = outcomeFill({ tx, block, at, wallet, market: MARKET, index: 0, side: 'buy', shares: 10, price: 0.5 });
  return { ...fill, block_hash: hash, log_index: log, event_id: `137:${fill.tx_hash}:${log}` };
}
const retraction = (hash: string, block = BLOCK): ChainLedgerEvent =>
  blockRetraction({ block_hash: hash, block_number: block, block_time_ms: T, ledger_group: MARKET });
/** The Data API's record of the same taker buy (the fast path, before the chain covers it). */
const dataApiBuy = (wallet: string, tx: number) =>
  fromDataApiTrade(
    tradeExecuted({
      event_id: `data-api-${tx}`,
      market_id: MARKET,
      asset_id: outcomeToken(MARKET, 0),
      wallet,
      size: 10,
      size_usdc: 5,
      price: 0.5,
      timestamp_ms: T,
      ingested_at_ms: T,
      tx_hash: txHash(tx),
    }),
  );

let h: ProjectionHarness;
let ledger: PositionLedger;
const apply = (events: Array<ChainLedgerEvent | LedgerEvent>) =>
  ledger.apply(events.map((e) => ('kind' in e && 'chain_id' in e ? fromChain(e as ChainLedgerEvent) : e)) as LedgerEvent[]);
/** The wallet's live rows: event, block hash, origin, shares after. */
const live = (wallet: string) =>
  h.rows<{ event_id: string; block_hash: string; origin: string; qty_after: string }>(
    `SELECT event_id, block_hash, origin, toString(qty_after) AS qty_after FROM position_ledger
      WHERE wallet = {wallet:String} AND sign = 1
        AND (asset_id, rev) NOT IN (SELECT asset_id, of_rev FROM position_ledger WHERE wallet = {wallet:String} AND sign = -1)
      ORDER BY time, block_number, log_index`,
    { wallet },
  );
const row = (tx: number, hash: string, log: number, qtyAfter: number) => ({
  event_id: `137:${txHash(tx)}:${log}`,
  block_hash: hash,
  origin: 'chain',
  qty_after: String(qtyAfter * 1_000_000),
});

beforeAll(async () => {
  h = await projectionHarness('ledger-reorg');
  await h.given({
    markets: [
      marketUpserted({ event_id: `${MARKET}:1`, market_id: MARKET, outcome_token_ids: [outcomeToken(MARKET, 0), outcomeToken(MARKET, 1)] }),
    ],
  });
  ledger = new PositionLedger(h.store);
}, 120_000);
afterAll(() => h.close());

test('an orphaned fill that replaced a Data API twin, retracted in the same batch, leaves only the replacement', async () => {
  const wallet = W('1');
  await apply([dataApiBuy(wallet, 11)]);
  await apply([buy(wallet, 11, hashOf('d1'), 7), retraction(hashOf('d1')), buy(wallet, 11, hashOf('e1'), 1)]);
  expect(await live(wallet)).toEqual([row(11, hashOf('e1'), 1, 10)]);
});

test('an orphaned fill appended in the batch of its retraction leaves with it', async () => {
  const wallet = W('2');
  await apply([buy(wallet, 21, hashOf('d2'), 3), retraction(hashOf('d2')), buy(wallet, 21, hashOf('e2'), 1)]);
  expect(await live(wallet)).toEqual([row(21, hashOf('e2'), 1, 10)]);
});

test('an orphaned fill behind its key, waiting for the rewind, leaves with its retraction', async () => {
  const wallet = W('3');
  await apply([buy(wallet, 31, hashOf('f3'), 1, BLOCK + 5, T + 5_000)]);
  await apply([buy(wallet, 32, hashOf('d3'), 4), retraction(hashOf('d3')), buy(wallet, 32, hashOf('e3'), 2)]);
  expect(await live(wallet)).toEqual([row(32, hashOf('e3'), 2, 10), row(31, hashOf('f3'), 1, 20)]);
});

test('a Data API twin an orphaned fill would have replaced stays until the replacement block comes', async () => {
  const wallet = W('4');
  await apply([dataApiBuy(wallet, 41)]);
  await apply([buy(wallet, 41, hashOf('d4'), 5), retraction(hashOf('d4'))]);
  expect((await live(wallet)).map((r) => [r.origin, r.qty_after])).toEqual([['data_api', '10000000']]);
  await apply([buy(wallet, 41, hashOf('e4'), 1)]);
  expect(await live(wallet)).toEqual([row(41, hashOf('e4'), 1, 10)]);
});
