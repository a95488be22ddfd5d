/**
 * The ledger's key filter against chDB: loaded from position_state with ClickHouse's CRC32, it must
 * know every stored (wallet, token) (else a restarted ledger would treat an open position as new and
 * lose its quantity and cost), and spare the lookups of keys never stored.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chainFill, txHash } from '../../../test/support/events.js';
import { openChdbStore } from '../../analytics/clickhouse-store.js';
import { migrate } from '../../analytics/migrate.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { fromChain, type LedgerEvent } from './ledger-events.js';
import { PositionLedger } from './ledger.js';

let dir: string;
let store: AnalyticsStore;

// One wallet per leading hex digit: each of the filter's load ranges, the first and last open-ended.
const WALLETS = [...'0123456789abcdef'].map((d) => `0x${d}${'7'.repeat(39)}`);
const T = Date.UTC(2026, 10, 20, 12);
let tx = 0;

/** A buy of `shares` at 0.5 by `wallet` of token `token`, one block after the previous. */
function buy(wallet: string, token: string, shares: number): LedgerEvent {
  tx += 1;
  return fromChain(
    chainFill({
      wallet,
      tx_hash: txHash(tx),
      block_number: 80_000_000 + tx,
      block_time_ms: T + tx * 1000,
      fill: { asset_id: token, shares_micro: String(shares * 1_000_000), usdc_micro: String(shares * 500_000) },
    }),
  ) as LedgerEvent;
}

async function quantities(): Promise<Array<[string, string, string]>> {
  const rows = await store.query<{ wallet: string; asset_id: string; qty: string }>(
    'SELECT wallet, asset_id, toString(argMaxMerge(state).1) AS qty FROM position_state GROUP BY wallet, asset_id ORDER BY wallet, asset_id',
  );
  return rows.map((r) => [r.wallet, r.asset_id, r.qty]);
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'key-filter-'));
  store = await openChdbStore({ path: path.join(dir, 'chdb'), database: 'key_filter' });
  await migrate(store);
}, 60_000);

afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a restarted ledger finds every stored position through the filter and skips lookups of new ones', async () => {
  const first = new PositionLedger(store);
  await first.apply(WALLETS.map((w) => buy(w, '111', 10)));

  // A new process: the filter is loaded from the table, not from what this object wrote.
  const restarted = new PositionLedger(store);
  // The ledger loads its filter in the background; wait for it here so this batch is answered by it.
  await restarted.keys.refresh();
  await restarted.apply([...WALLETS.map((w) => buy(w, '111', 5)), ...WALLETS.map((w) => buy(w, '222', 3))]);
  // 10 + 5 on token 111 for every wallet: none was taken for new (that would leave 5), 3 on the new token 222.
  expect(await quantities()).toEqual(
    WALLETS.flatMap((w) => [
      [w, '111', '15000000'],
      [w, '222', '3000000'],
    ]),
  );
  expect(restarted.keys.stats.loads).toBe(1);
  // The 16 keys of token 222 were never stored: answered by the filter (a false positive would look one up).
  expect(restarted.keys.stats.skipped_lookups).toBeGreaterThanOrEqual(15);
  // The 16 stored keys of token 111 were read back (plus any false positive of 222); none came from the
  // cache, which a new process starts without.
  expect(restarted.stats.state_cache_hits).toBe(0);
  expect(restarted.stats.state_lookups).toBe(32 - restarted.keys.stats.skipped_lookups);
  expect(restarted.stats.state_lookup_ms).toBeGreaterThan(0);
  // A second batch on keys this process wrote takes their states from its cache: no lookup.
  await restarted.apply(WALLETS.map((w) => buy(w, '222', 1)));
  expect(restarted.stats.state_cache_hits).toBe(16);
  expect(restarted.stats.state_lookups).toBe(32 - restarted.keys.stats.skipped_lookups);

  const stored = await quantities();
  for (const [wallet, token] of stored) expect(restarted.keys.mightHave(`${wallet}|${token}`)).toBe(true);
  let maybe = 0;
  for (let i = 0; i < 2_000; i++) if (restarted.keys.mightHave(`0x${i.toString(16).padStart(40, '9')}|333`)) maybe += 1;
  // About 1 % false positives at 10 bits and 7 hashes per key; far below at this fill.
  expect(maybe).toBeLessThan(20);
}, 60_000);

test('past its key limit the filter is off and every key is looked up, with the same result', async () => {
  const limited = new PositionLedger(store, { keyFilterMaxKeys: 1 });
  await limited.keys.refresh();
  await limited.apply(WALLETS.map((w) => buy(w, '111', 1)));
  expect(limited.keys.stats.skipped_lookups).toBe(0);
  expect(limited.keys.mightHave(`0x${'9'.repeat(40)}|444`)).toBe(true);
  // The same answer as with the filter: every position looked up and continued.
  expect(await quantities()).toEqual(
    WALLETS.flatMap((w) => [
      [w, '111', '16000000'],
      [w, '222', '4000000'],
    ]),
  );
}, 60_000);

test('keys written while the filter loads are in it when it takes over', async () => {
  const fresh = new PositionLedger(store);
  const loading = fresh.keys.refresh();
  // Not waiting: this batch is looked up key by key and written while the filter is being read.
  await fresh.apply(WALLETS.map((w) => buy(w, '555', 1)));
  await loading;
  expect(fresh.keys.stats.loads).toBe(1);
  for (const w of WALLETS) expect(fresh.keys.mightHave(`${w}|555`)).toBe(true);
  // And they continue: a second fill of each finds the first.
  await fresh.apply(WALLETS.map((w) => buy(w, '555', 2)));
  expect((await quantities()).filter(([, token]) => token === '555').map(([, , q]) => q)).toEqual(WALLETS.map(() => '3000000'));
}, 60_000);
