/**
 * A stop while the ledger reads a batch: the batch gives up before it writes anything (rejecting with
 * the stop signal's reason, which the processor runner takes for a give-up, not a failure), and the
 * next start applies the same batch as if the stop had never happened. A stop once the batch writes
 * does not interrupt it (its journal, rows and touches go together).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fourWalletFills } from '../../../test/support/events.js';
import { openChdbStore } from '../../analytics/clickhouse-store.js';
import { migrate } from '../../analytics/migrate.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { fromChain, type LedgerEvent } from './ledger-events.js';
import { PositionLedger } from './ledger.js';

const T = Date.UTC(2026, 0, 7, 9);
const MARKET = `0x${'e5'.repeat(32)}`;
const WALLETS = Array.from({ length: 4 }, (_, i) => `0x${String(i + 1).repeat(40)}`);
const events = fourWalletFills({ market: MARKET, wallets: WALLETS, firstTx: 900, firstBlock: 73_000_000, at: T }).map(
  fromChain,
) as LedgerEvent[];
const TOKEN = 'chain-0-0-15';
const STOPPING = new Error('stopping');

const STATE = `SELECT wallet, asset_id, toString(argMaxMerge(state).1) AS q, toString(max(max_rev)) AS rev
                 FROM position_state GROUP BY wallet, asset_id ORDER BY wallet, asset_id`;
const LIFETIME =
  'SELECT wallet, toString(sum(realized)) AS r, toString(sum(trades)) AS t FROM trader_lifetime GROUP BY wallet ORDER BY wallet';

let dir: string;
let store: AnalyticsStore;

/** The store as a ledger sees it: `stop` aborts when the ledger first reads its keys' heads; every write is recorded. */
function watched(stop: AbortController, writes: string[]): AnalyticsStore {
  return new Proxy(store, {
    get(target, property) {
      const value = (target as never)[property] as unknown;
      if (typeof value !== 'function') return value;
      const bound = (value as (...a: unknown[]) => unknown).bind(target);
      if (property === 'query')
        return async (sql: string, ...rest: unknown[]) => {
          const result = await bound(sql, ...rest);
          if (sql.includes('position_head')) stop.abort(STOPPING);
          return result;
        };
      if (property === 'insert' || property === 'insertJsonLines' || property === 'command')
        return (table: string, ...rest: unknown[]) => {
          writes.push(String(table).slice(0, 40));
          return bound(table, ...rest);
        };
      return bound;
    },
  });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-stop-'));
  store = await openChdbStore({ path: path.join(dir, 'chdb'), database: 'ledger_stop' });
  await migrate(store);
}, 60_000);

afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a batch stopped while it reads writes nothing and is applied whole at the next start', async () => {
  expect(events).toHaveLength(16);
  expect(new Set(events.flatMap((e) => (e.kind === 'fill' ? [e.assetId] : []))).size).toBe(2);

  const stop = new AbortController();
  const writes: string[] = [];
  const stopped = new PositionLedger(watched(stop, writes)).apply(events, TOKEN, stop.signal);
  await expect(stopped).rejects.toBe(STOPPING);
  expect(stop.signal.aborted).toBe(true);
  expect(writes).toEqual([]);
  expect(await store.query('SELECT count() AS n FROM position_ledger')).toEqual([{ n: 0 }]);

  // Already stopped before it starts: nothing is read either.
  const before = new AbortController();
  before.abort(new Error('stopped before'));
  await expect(new PositionLedger(store).apply(events, TOKEN, before.signal)).rejects.toThrow('stopped before');

  // The next start: the same batch, whole, once.
  const next = new PositionLedger(store);
  expect(await next.apply(events, TOKEN)).toBe(16);
  const state = await store.query<{ wallet: string; asset_id: string; q: string; rev: string }>(STATE);
  expect(state).toHaveLength(8);
  expect(state.every((row) => row.rev === '2')).toBe(true);
  const lifetime = await store.query<{ wallet: string; t: string }>(LIFETIME);
  expect(lifetime.map((row) => [row.wallet, row.t])).toEqual(WALLETS.map((w) => [w, '4']));
}, 60_000);

test('a stop once the batch writes does not interrupt it', async () => {
  const stop = new AbortController();
  const more = fourWalletFills({ market: MARKET, wallets: WALLETS, firstTx: 950, firstBlock: 73_100_000, at: T + 3_600_000 }).map(
    fromChain,
  ) as LedgerEvent[];
  const writing = new Proxy(store, {
    get(target, property) {
      const value = (target as never)[property] as unknown;
      if (typeof value !== 'function') return value;
      const bound = (value as (...a: unknown[]) => unknown).bind(target);
      if (property === 'insertJsonLines')
        return (...args: unknown[]) => {
          stop.abort(new Error('stopping'));
          return bound(...args);
        };
      return bound;
    },
  });
  const stoppedLedger = new PositionLedger(writing);
  expect(await stoppedLedger.apply(more, 'chain-0-16-31', stop.signal)).toBe(16);
  expect(stop.signal.aborted).toBe(true);
  const state = await store.query<{ rev: string }>(STATE);
  expect(state.map((row) => row.rev)).toEqual(Array(8).fill('4'));
}, 60_000);
