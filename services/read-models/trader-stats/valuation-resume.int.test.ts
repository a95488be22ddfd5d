/**
 * A valuation pass can be stopped between chunks without losing a wallet: a pass aborted after its
 * first chunk, then a pass in a new process (a new TraderValuation reading the stored restart point),
 * leave every wallet valued as a pass never aborted does. Restarting from the newest valued_at instead
 * would leave the wallets after the first chunk on their old figures until they change again.
 */
import { chainFill, marketUpserted, txHash } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { DAY_MS, startOfUtcDay } from '../../shared/time.js';
import { TraderValuation } from './valuation.js';

const NOW = Date.now();
const TODAY = startOfUtcDay(NOW);
const D1 = TODAY - DAY_MS + 3_600_000;
const D0 = TODAY + Math.floor((NOW - TODAY) / 2);

const M = `0x${'d'.repeat(64)}`;
const tok = (i: number) => `${M.slice(2, 8)}${i}`;
/** Seven wallets: four chunks of two, so a pass cut after the first leaves five waiting. */
const WALLETS = ['1', '2', '3', '4', '5', '6', '7'].map((c) => `0x${c.repeat(40)}`);
const CHUNK = 2;

let n = 0;
const buy = (wallet: string, shares: number, price: number, time: number) => {
  n += 1;
  const block = 82_000_000 + n;
  return chainFill({
    tx_hash: txHash(1_300 + n),
    block_number: block,
    block_hash: `0x${block.toString(16).padStart(64, '0')}`,
    block_time_ms: time,
    log_index: 1,
    market_id: M,
    ledger_group: M,
    wallet,
    fill: {
      asset_id: tok(0),
      outcome: 'Yes',
      outcome_index: 0,
      shares_micro: String(shares * 1e6),
      usdc_micro: String(Math.round(shares * price * 1e6)),
      price,
      yes_price: price,
    },
  });
};

/** A pass that aborts its signal once its first chunk is valued, as a stop arriving then would. */
class StoppedAfterFirstChunk extends TraderValuation {
  readonly stop = new AbortController();
  override async value(wallets: string[], nowMs: number): Promise<void> {
    await super.value(wallets, nowMs);
    this.stop.abort();
  }
}

const VALUED = `SELECT wallet, toString(realized) AS realized, toString(unrealized) AS unrealized, toString(volume) AS volume,
  toString(trades) AS trades, won, lost, risk_score FROM trader_valuation FINAL ORDER BY wallet`;
const CATEGORIES = `SELECT wallet, category, toString(total_pnl) AS total_pnl, toString(volume) AS volume
  FROM trader_category_valuation FINAL ORDER BY wallet, category`;

let h: ProjectionHarness;

beforeAll(async () => {
  h = await projectionHarness('valuation_resume');
  await h.given({
    markets: [
      marketUpserted({
        event_id: `${M}:1`,
        market_id: M,
        outcome_token_ids: [tok(0), tok(1)],
        outcome_prices: [0.6, 0.4],
        updated_at_ms: NOW,
        ingested_at_ms: NOW,
      }),
    ],
  });
  await h.given({ chainLedger: WALLETS.map((wallet, i) => buy(wallet, 10 + i, 0.3, D1)) });
  // Every wallet valued once, and the restart point stored after it.
  await new TraderValuation(h.store, 5_000, undefined, CHUNK).run(NOW);
  // Then every wallet trades again: each has new figures to value.
  await h.given({ chainLedger: WALLETS.map((wallet, i) => buy(wallet, 5 + i, 0.5, D0)) });
}, 120_000);
afterAll(() => h.close());

test('a pass stopped after its first chunk, then a pass in a new process, values every wallet as a pass never stopped', async () => {
  const stopped = new StoppedAfterFirstChunk(h.store, 5_000, undefined, CHUNK);
  await expect(stopped.run(NOW, stopped.stop.signal)).rejects.toThrow(/abort/i);
  // Only the first chunk has its new figures: the others still show the first trade's volume alone.
  const cut = await h.rows<{ wallet: string; volume: string }>(VALUED);
  const renewed = cut.filter((row, i) => Number(row.volume) !== (10 + i) * 300_000).map((row) => row.wallet);
  expect(renewed).toHaveLength(CHUNK);

  await new TraderValuation(h.store, 5_000, undefined, CHUNK).run(NOW);
  const resumed = { valued: await h.rows(VALUED), categories: await h.rows(CATEGORIES) };

  // The same wallets valued by one pass that was never stopped, from empty valuation tables.
  for (const table of ['trader_valuation', 'trader_category_valuation', 'trader_curve', 'trader_valuation_progress'])
    await h.store.command(`TRUNCATE TABLE ${table}`);
  await new TraderValuation(h.store, 5_000, undefined, CHUNK).run(NOW);
  const whole = { valued: await h.rows(VALUED), categories: await h.rows(CATEGORIES) };

  expect(whole.valued).toHaveLength(WALLETS.length);
  expect(whole.valued.map((row: any) => Number(row.volume))).toEqual(WALLETS.map((_, i) => (10 + i) * 300_000 + (5 + i) * 500_000));
  expect(resumed).toEqual(whole);
});
