/**
 * The ledger's cache of stored rows: Data API fills applied in one batch and replaced by their chain
 * fills in the next rewind their keys without reading position_ledger, and the rows written are the
 * ones a fresh ledger writes when it reads what was stored (a restarted process, no cache).
 */
import type { ChainLedgerEvent, TradeExecuted } from '../../events/types.generated.js';
import { dataApiTwin, marketUpserted, outcomeFill, outcomeToken } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { fromChain, fromDataApiTrade, type LedgerEvent } from './ledger-events.js';
import { PositionLedger } from './ledger.js';

const T = Date.UTC(2026, 0, 6, 9);
const MARKET = `0x${'c3'.repeat(32)}`;
const TOKENS = [outcomeToken(MARKET, 0), outcomeToken(MARKET, 1)];
const WALLETS = Array.from({ length: 4 }, (_, i) => `0x${String(i + 1).repeat(40)}`);

/** Chain taker fills of 8 (wallet, token)s, two each: each wallet buys, then sells part, in both tokens. */
const chain: ChainLedgerEvent[] = Array.from({ length: 16 }, (_, i) =>
  outcomeFill({
    tx: 500 + i,
    block: 71_000_000 + i,
    at: T + i * 60_000,
    wallet: WALLETS[i % WALLETS.length]!,
    market: MARKET,
    index: Math.floor(i / 4) % 2,
    side: i < 8 ? 'buy' : 'sell',
    shares: 10 + i,
    price: 0.2 + i / 100,
  }),
);

/** The Data API's record of each fill, seen first (the fast path). */
const dataApi: TradeExecuted[] = chain.map(dataApiTwin);

const STORED_ROWS_READ = "concat(wallet, '|', asset_id) AS key";
/** The store, counting the ledger's reads of stored rows. */
function counting(store: AnalyticsStore): { store: AnalyticsStore; reads: () => number } {
  let reads = 0;
  const spy = new Proxy(store, {
    get(target, property) {
      const value = (target as never)[property] as unknown;
      if (property === 'query')
        return (sql: string, ...rest: unknown[]) => {
          if (sql.includes(STORED_ROWS_READ)) reads++;
          return (value as (...a: unknown[]) => unknown).call(target, sql, ...rest);
        };
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: spy, reads: () => reads };
}

const ROWS = `SELECT wallet, asset_id, rev, sign, of_rev, event_id, origin, action, toString(in_qty) AS in_qty, toString(qty_after) AS qty_after,
                     toString(cost_after) AS cost_after, toString(realized) AS realized, toString(cash) AS cash
                FROM position_ledger ORDER BY wallet, asset_id, rev`;
const apiEvents = dataApi.map(fromDataApiTrade);
const chainEvents = chain.map(fromChain) as LedgerEvent[];

async function run(name: string, freshLedgerForChain: boolean) {
  const h: ProjectionHarness = await projectionHarness(name);
  try {
    await h.given({ markets: [marketUpserted({ event_id: `${MARKET}:1`, market_id: MARKET, outcome_token_ids: TOKENS })] });
    const counted = counting(h.store);
    const first = new PositionLedger(counted.store);
    await first.apply(apiEvents);
    const second = freshLedgerForChain ? new PositionLedger(counted.store) : first;
    const before = counted.reads();
    await second.apply(chainEvents);
    return { rows: await h.rows(ROWS), reads: counted.reads() - before, stats: { ...second.stats } };
  } finally {
    await h.close();
  }
}

let cached: Awaited<ReturnType<typeof run>>;
let fresh: Awaited<ReturnType<typeof run>>;
beforeAll(async () => {
  // chDB holds one database directory per process: one harness at a time.
  cached = await run('row-cache-warm', false);
  fresh = await run('row-cache-cold', true);
}, 120_000);

test('chain fills replacing the Data API fills of the batch before rewind without reading stored rows', () => {
  // One rewind per (wallet, token) and batch.
  expect(cached.stats.rewinds).toBe(8);
  expect(cached.stats.stored_rows_cached).toBe(8);
  expect(cached.reads).toBe(0);
  // A fresh ledger (a restarted process) reads them.
  expect(fresh.stats.rewinds).toBe(8);
  expect(fresh.stats.stored_rows_cached).toBe(0);
  expect(fresh.reads).toBeGreaterThan(0);
});

test('the rows written are the same, row for row', () => {
  expect(cached.rows.length).toBe(16 + 16 + 16); // Data API rows, their cancellations, the chain rows
  expect(cached.rows.filter((r: any) => Number(r.sign) < 0)).toHaveLength(16);
  expect(cached.rows).toEqual(fresh.rows);
});
