/**
 * The ledger's cache of stored rows: Data API fills applied in one batch and replaced by their chain
 * fills in the next rewind their keys without reading position_ledger, and the rows written are the
 * ones a fresh ledger writes when it reads what was stored (a restarted process, no cache).
 */
import type { ChainLedgerEvent, TradeExecuted } from '../../events/types.generated.js';
import { dataApiTwin, marketUpserted, fourWalletFills, outcomeToken } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { fromChain, fromDataApiTrade, type LedgerEvent } from './ledger-events.js';
import { PositionLedger } from './ledger.js';

const T = Date.UTC(2026, 0, 6, 9);
const MARKET = `0x${'c3'.repeat(32)}`;
const TOKENS = [outcomeToken(MARKET, 0), outcomeToken(MARKET, 1)];
const WALLETS = Array.from({ length: 4 }, (_, i) => `0x${String(i + 1).repeat(40)}`);

/** Chain taker fills of 8 (wallet, token)s, two each: each wallet buys, then sells part, in both tokens. */
const chain: ChainLedgerEvent[] = fourWalletFills({ market: MARKET, wallets: WALLETS, firstTx: 500, firstBlock: 71_000_000, at: T });

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

/** Rows standing (not cancelled by a later revision), without the revision numbers a rewind adds. */
const LIVE = `SELECT wallet, asset_id, event_id, origin, action, toString(qty_after) AS qty_after, toString(cost_after) AS cost_after,
                     toString(realized) AS realized
                FROM position_ledger
               WHERE sign > 0 AND (wallet, asset_id, rev) NOT IN (SELECT wallet, asset_id, of_rev FROM position_ledger WHERE sign < 0)
               ORDER BY wallet, asset_id, event_id`;

test('a Data API fill and its chain twin in one batch, in either order, leave the chain rows only', async () => {
  // The history fill reads the hours the Data API's trades are in, so a trade's two records can reach
  // one batch: each side found its twin among stored rows only, and both stood (issue 53).
  const live: Record<string, unknown[]> = {};
  for (const [name, events] of [
    ['chain-only', chainEvents],
    ['api-then-chain', [...apiEvents, ...chainEvents]],
    ['chain-then-api', [...chainEvents, ...apiEvents]],
    ['interleaved', chainEvents.flatMap((e, i) => (i % 2 === 0 ? [apiEvents[i]!, e] : [e, apiEvents[i]!]))],
  ] as const) {
    const h = await projectionHarness(`row-cache-one-batch-${name}`);
    try {
      await h.given({ markets: [marketUpserted({ event_id: `${MARKET}:1`, market_id: MARKET, outcome_token_ids: TOKENS })] });
      await new PositionLedger(h.store).apply([...events]);
      live[name] = await h.rows(LIVE);
    } finally {
      await h.close();
    }
  }
  expect(live['chain-only']).toHaveLength(16);
  expect(live['chain-only']!.every((r: any) => r.origin === 'chain')).toBe(true);
  expect(live['api-then-chain']).toEqual(live['chain-only']);
  expect(live['chain-then-api']).toEqual(live['chain-only']);
  expect(live['interleaved']).toEqual(live['chain-only']);
}, 120_000);
