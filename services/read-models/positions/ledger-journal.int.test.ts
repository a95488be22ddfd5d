/**
 * A process killed between the ledger's part and its views' writes (the history fill's e2e with kill
 * -9 found it): the next ledger inserts the journalled batch again, so the views that lacked it get it
 * and those that had it do not count it twice, and a Data API trade written in that batch is replaced by
 * its chain twin as if nothing had happened. Compared with a ledger that ran without a kill.
 */
import type { ChainLedgerEvent } from '../../events/types.generated.js';
import { dataApiTwin, marketUpserted, fourWalletFills, outcomeToken } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { fromChain, fromDataApiTrade, type LedgerEvent } from './ledger-events.js';
import { PositionLedger } from './ledger.js';

const T = Date.UTC(2026, 0, 7, 9);
const MARKET = `0x${'d4'.repeat(32)}`;
const TOKENS = [outcomeToken(MARKET, 0), outcomeToken(MARKET, 1)];
const WALLETS = Array.from({ length: 4 }, (_, i) => `0x${String(i + 5).repeat(40)}`);

/** Chain taker fills of 8 (wallet, token)s, two each: each wallet buys, then sells part, in both tokens. */
const chain: ChainLedgerEvent[] = fourWalletFills({ market: MARKET, wallets: WALLETS, firstTx: 700, firstBlock: 72_000_000, at: T });
const apiEvents = chain.map(dataApiTwin).map(fromDataApiTrade);
const chainEvents = chain.map(fromChain) as LedgerEvent[];

const LIVE = `SELECT wallet, asset_id, event_id, origin, action, toString(qty_after) AS q, toString(cost_after) AS c, toString(realized) AS r
                FROM position_ledger
               WHERE sign > 0 AND (wallet, asset_id, rev) NOT IN (SELECT wallet, asset_id, of_rev FROM position_ledger WHERE sign < 0)
               ORDER BY wallet, asset_id, event_id`;
/** What the ledger's views hold: the figures served, and the state the ledger reads back. */
const VIEWS = [
  `SELECT wallet, toString(sum(realized)) AS r, toString(sum(volume)) AS v, toString(sum(trades)) AS t FROM trader_lifetime GROUP BY wallet ORDER BY wallet`,
  `SELECT wallet, day, toString(sum(realized)) AS r, toString(sum(volume)) AS v, toString(sum(changes)) AS n FROM trader_days GROUP BY wallet, day ORDER BY wallet, day`,
  `SELECT wallet, market_id, toString(sum(realized)) AS r, toString(sum(cost_in)) AS c FROM trader_market_pnl GROUP BY wallet, market_id ORDER BY wallet, market_id`,
  `SELECT wallet, asset_id, toString(argMaxMerge(state).1) AS q, toString(max(max_rev)) AS rev FROM position_state GROUP BY wallet, asset_id ORDER BY wallet, asset_id`,
  `SELECT key, toString(qty) AS q, toString(rev) AS rev FROM position_head ORDER BY key`,
  `SELECT wallet, toString(sum(unheld)) AS u FROM wallet_coverage GROUP BY wallet ORDER BY wallet`,
];

/** The ledger's views that a kill left without the batch; the others had written it. */
const KILLED_VIEWS = ['position_state_mv', 'position_head_mv', 'trader_lifetime_mv', 'trader_days_mv'];

/** The store of a process killed after the ledger's part was written and before these views were. */
function killedAfterThePart(store: AnalyticsStore): AnalyticsStore {
  return new Proxy(store, {
    get(target, property) {
      const value = (target as never)[property] as unknown;
      // The ledger inserts its rows as objects (a replayed journal) or as encoded text (a batch).
      if (property === 'insert' || property === 'insertJsonLines')
        return async (table: string, rows: never, options?: object) => {
          const insert = (target[property] as (...a: unknown[]) => Promise<void>).bind(target);
          if (table !== 'position_ledger') return insert(table, rows, options);
          for (const view of KILLED_VIEWS) await target.command(`DETACH TABLE ${view}`);
          try {
            await insert(table, rows, options);
          } finally {
            for (const view of KILLED_VIEWS) await target.command(`ATTACH TABLE ${view}`);
          }
          throw new Error('killed');
        };
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

type Dump = { live: unknown[]; views: unknown[][] };
const dump = async (h: ProjectionHarness): Promise<Dump> => ({
  live: await h.rows(LIVE),
  views: await Promise.all(VIEWS.map((sql) => h.rows(sql))),
});

let reference: Dump;
let restarted: Dump;
let restartedAgain: Dump;
let replays: number[];

beforeAll(async () => {
  // chDB holds one database directory per process: one harness at a time.
  const r = await projectionHarness('journal-reference');
  try {
    await r.given({ markets: [marketUpserted({ event_id: `${MARKET}:1`, market_id: MARKET, outcome_token_ids: TOKENS })] });
    const ledger = new PositionLedger(r.store);
    await ledger.apply(apiEvents, 'trades-0-0-15');
    await ledger.apply(chainEvents, 'chain-0-0-15');
    reference = await dump(r);
  } finally {
    await r.close();
  }
  const k = await projectionHarness('journal-killed');
  try {
    await k.given({ markets: [marketUpserted({ event_id: `${MARKET}:1`, market_id: MARKET, outcome_token_ids: TOKENS })] });
    await expect(new PositionLedger(killedAfterThePart(k.store)).apply(apiEvents, 'trades-0-0-15')).rejects.toThrow('killed');
    // The restarted process: its first batch is the chain's (the Data API batch's redelivery would add
    // nothing now: inside the chain's coverage it is skipped).
    const second = new PositionLedger(k.store);
    await second.apply(chainEvents, 'chain-0-0-15');
    restarted = await dump(k);
    // Started once more, with the chain batch redelivered: its journal is inserted again and dropped.
    const third = new PositionLedger(k.store);
    await third.apply(chainEvents, 'chain-0-0-15');
    restartedAgain = await dump(k);
    replays = [
      second.stats.journal_replays,
      third.stats.journal_replays,
      second.stats.journal_replay_failures + third.stats.journal_replay_failures,
    ];
  } finally {
    await k.close();
  }
}, 180_000);

test('after a kill between the part and the views, the next ledger completes the views and replaces the Data API rows', () => {
  expect(reference.live).toHaveLength(16);
  expect(reference.live.every((r: any) => r.origin === 'chain')).toBe(true);
  expect(restarted.live).toEqual(reference.live);
  for (const [i, rows] of restarted.views.entries())
    expect([VIEWS[i]!.slice(0, 60), rows]).toEqual([VIEWS[i]!.slice(0, 60), reference.views[i]]);
  expect(replays).toEqual([1, 1, 0]);
});

test('a journalled batch inserted again at each start counts once in every view', () => {
  expect(restartedAgain.live).toEqual(reference.live);
  for (const [i, rows] of restartedAgain.views.entries())
    expect([VIEWS[i]!.slice(0, 60), rows]).toEqual([VIEWS[i]!.slice(0, 60), reference.views[i]]);
});

test('every table a view of position_ledger writes drops a block it has (a deduplication window)', async () => {
  const h = await projectionHarness('journal-windows');
  try {
    const targets = await h.rows<{ target: string; engine: string; query: string }>(
      `SELECT t.name AS target, t.engine AS engine, t.create_table_query AS query
         FROM system.tables AS v JOIN system.tables AS t ON t.database = v.database
        WHERE v.database = currentDatabase() AND v.engine = 'MaterializedView' AND match(v.create_table_query, 'FROM [a-z_]+\\\\.position_ledger\\\\b')
          AND position(v.create_table_query, concat(' TO ', t.database, '.', t.name, ' ')) > 0`,
    );
    expect(targets.length).toBeGreaterThanOrEqual(10);
    // EmbeddedRocksDB (position_head) keeps one value per key: written again, it is the same.
    const merging = targets.filter((t) => t.engine.endsWith('MergeTree'));
    expect(merging.filter((t) => !/non_replicated_deduplication_window = [1-9]/.test(t.query)).map((t) => t.target)).toEqual([]);
    expect(targets.filter((t) => !t.engine.endsWith('MergeTree')).map((t) => t.engine)).toEqual(['EmbeddedRocksDB']);
  } finally {
    await h.close();
  }
}, 60_000);
