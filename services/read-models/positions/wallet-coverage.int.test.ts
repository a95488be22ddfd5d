/**
 * wallet_predates from the per-wallet wallet_coverage rows (0076) through the real ledger: it stays
 * what the wallet's ledger rows say after the ledger's rewinds and retractions, which write sign = -1
 * copies of the rows they undo (an older buy arriving after a sale re-prices the sale; a reorg retracts
 * a sale's block), and the migration's rebuild from position_ledger gives the same answers.
 */
import type { ChainLedgerEvent } from '../../events/types.generated.js';
import { readMigrations } from '../../analytics/migrate.js';
import type { Coverage } from '../../http/types.generated.js';
import {
  blockRetraction,
  chainLedgerEvent,
  marketUpserted,
  outcomeFill,
  outcomeToken,
  tradeExecuted,
} from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { walletsPredating } from './coverage.js';
import { fromChain, fromDataApiTrade, type LedgerEvent } from './ledger-events.js';
import { PositionLedger } from './ledger.js';

const T = Date.UTC(2026, 3, 1, 12);
const HOUR = 3_600_000;
const MARKET = `0x${'c'.repeat(64)}`;
const W = (c: string) => `0x${c.repeat(40)}`;
const REPRICED = W('1');
const RETRACTED = W('2');
const OLDER = W('3');
const INSIDE = W('4');
const OVERSOLD = W('5');
const WALLETS = [REPRICED, RETRACTED, OLDER, INSIDE, OVERSOLD];
/** A partial coverage starting at T: changes before it predate it. */
const PARTIAL: Coverage = {
  from_block: 70_000_000,
  from_time: new Date(T).toISOString(),
  to_block: 70_100_000,
  to_time: new Date(T + 48 * HOUR).toISOString(),
  complete: false,
};

let block = 70_000_000;
let tx = 1;
function fill(wallet: string, side: 'buy' | 'sell', shares: number, at: number): ChainLedgerEvent {
  block += 1;
  tx += 1;
  return outcomeFill({ tx, block, at, wallet, market: MARKET, index: 0, side, shares, price: 0.5 });
}
function dataApiBuy(wallet: string, id: string, shares: number, at: number): LedgerEvent {
  return fromDataApiTrade(
    tradeExecuted({
      event_id: id,
      market_id: MARKET,
      asset_id: outcomeToken(MARKET, 0),
      wallet,
      side: 'buy',
      outcome: 'Yes',
      outcome_index: 0,
      price: 0.5,
      yes_price: 0.5,
      size: shares,
      size_usdc: shares / 2,
      timestamp_ms: at,
      tx_hash: `0x${id.padEnd(64, '0')}`,
    }),
  ) as LedgerEvent;
}

let h: ProjectionHarness;
let ledger: PositionLedger;
const apply = (events: Array<ChainLedgerEvent | LedgerEvent>) =>
  ledger.apply(events.map((e) => ('kind' in e && 'chain_id' in e ? fromChain(e as ChainLedgerEvent) : e)) as LedgerEvent[]);
const flagged = async (coverage: Coverage = PARTIAL) => [...(await walletsPredating(h.store, WALLETS, coverage))].sort();

/** The rule read from the wallets' ledger rows themselves (the reference the per-wallet rows must equal). */
async function fromLedgerRows(): Promise<string[]> {
  const rows = await h.store.query<{ wallet: string }>(
    `SELECT wallet FROM position_ledger WHERE wallet IN {wallets:Array(String)} GROUP BY wallet
     HAVING min(time) < fromUnixTimestamp64Milli({from:Int64})
         OR sumIf(sign * (toInt64(in_qty) + qty_delta), action IN ('sell', 'sell_at_cost')) > 0`,
    { wallets: WALLETS, from: T },
  );
  return rows.map((r) => r.wallet).sort();
}

beforeAll(async () => {
  h = await projectionHarness('wallet-coverage');
  await h.given({
    markets: [
      marketUpserted({ event_id: 'm:1', market_id: MARKET, outcome_token_ids: [outcomeToken(MARKET, 0), outcomeToken(MARKET, 1)] }),
    ],
  });
  ledger = new PositionLedger(h.store);
}, 120_000);
afterAll(() => h.close());

test('a sale beyond holdings flags the wallet until a rewind or a retraction takes the excess back', async () => {
  const retractedSale = fill(RETRACTED, 'sell', 5, T + 3 * HOUR);
  await apply([
    // Sells 10 it was never seen to buy.
    fill(REPRICED, 'sell', 10, T + 2 * HOUR),
    fill(RETRACTED, 'buy', 5, T + HOUR),
    retractedSale,
    // The same sale again: 10 beyond its 5 (one sale beyond holdings stays after the retraction).
    fill(OVERSOLD, 'buy', 5, T + HOUR),
    fill(OVERSOLD, 'sell', 15, T + 2 * HOUR),
    fill(INSIDE, 'buy', 20, T + HOUR),
    fill(INSIDE, 'sell', 20, T + 2 * HOUR),
  ]);
  await apply([dataApiBuy(OLDER, 'older', 3, T - HOUR)]);
  await apply([fill(RETRACTED, 'sell', 5, T + 4 * HOUR)]);
  // RETRACTED sold 10 of the 5 it bought.
  expect(await flagged()).toEqual([REPRICED, RETRACTED, OLDER, OVERSOLD].sort());
  expect(await flagged()).toEqual(await fromLedgerRows());

  // The buy of REPRICED's 10 shares, an hour before its sale, arrives after it: the ledger rewinds the
  // sale (a sign = -1 copy) and replays it over 10 shares held, so nothing was sold beyond holdings.
  await apply([dataApiBuy(REPRICED, 'repriced', 10, T + HOUR)]);
  // A reorg orphans RETRACTED's first sale: what stands is a buy of 5 and a sale of 5.
  await apply([blockRetraction(retractedSale)]);
  const cancelled = await h.store.query<{ wallet: string }>(
    `SELECT DISTINCT wallet FROM position_ledger WHERE sign = -1 AND wallet IN {wallets:Array(String)} ORDER BY wallet`,
    { wallets: [REPRICED, RETRACTED] },
  );
  expect(cancelled.map((r) => r.wallet)).toEqual([REPRICED, RETRACTED].sort());
  expect(await flagged()).toEqual([OLDER, OVERSOLD].sort());
  expect(await flagged()).toEqual(await fromLedgerRows());

  // Complete coverage: nothing predates it. No chain coverage: only sales beyond holdings show.
  expect(await flagged({ ...PARTIAL, complete: true })).toEqual([]);
  expect(await flagged({ from_block: null, from_time: null, to_block: null, to_time: null, complete: false })).toEqual([OVERSOLD]);

  // The migration rebuilds the rows from position_ledger alone (an existing ledger): same answers.
  const migration = readMigrations().find((m) => m.name.endsWith('wallet_coverage'))!;
  for (const statement of migration.statements) await h.store.command(statement);
  expect(await flagged()).toEqual([OLDER, OVERSOLD].sort());
  const [rows] = await h.store.query<{ n: string }>(
    `SELECT toString(count()) AS n FROM wallet_coverage FINAL WHERE wallet IN {wallets:Array(String)}`,
    { wallets: WALLETS },
  );
  expect(rows!.n).toBe(String(WALLETS.length));
}, 60_000);
