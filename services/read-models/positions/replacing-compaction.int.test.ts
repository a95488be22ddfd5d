/**
 * ReplacingCompaction against chDB: the table is merged into one part exactly when the rows written since
 * its last merge reach a tenth of what it held then (and the minimum), and FINAL reads the same rows
 * before and after.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openChdbStore } from '../../analytics/clickhouse-store.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { ReplacingCompaction } from './replacing-compaction.js';

let dir: string;
let store: AnalyticsStore;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compaction-'));
  store = await openChdbStore({ path: path.join(dir, 'chdb'), database: 'compaction' });
  await store.command(
    `CREATE TABLE valued (wallet String, v Int64, valued_at UInt32)
     ENGINE = ReplacingMergeTree(valued_at) ORDER BY wallet
     SETTINGS max_bytes_to_merge_at_max_space_in_pool = 1, max_bytes_to_merge_at_min_space_in_pool = 1`,
  );
});

afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** One insert (one part) of wallets w0..w(n-1) valued at `at`, each worth at * 1000 + its index. */
async function value(n: number, at: number): Promise<number> {
  await store.insert(
    'valued',
    Array.from({ length: n }, (_, i) => ({ wallet: `w${i}`, v: at * 1000 + i, valued_at: at })),
  );
  return n;
}

async function state() {
  const [row] = await store.query<{ parts: string; rows: string }>(
    `SELECT toString(count()) AS parts, toString(sum(rows)) AS rows FROM system.parts
      WHERE database = currentDatabase() AND table = 'valued' AND active`,
  );
  const final = await store.query<{ wallet: string; v: string }>('SELECT wallet, toString(v) AS v FROM valued FINAL ORDER BY wallet');
  return { parts: Number(row!.parts), rows: Number(row!.rows), final };
}

test('merges into one part once a tenth of the table is rewritten, never before, and FINAL reads the same rows', async () => {
  const compaction = new ReplacingCompaction(store, 'valued', 8);
  // Below the minimum: left to the engine.
  expect(await compaction.wrote(await value(7, 1))).toBe(false);
  expect((await state()).parts).toBe(1);
  // The minimum reached, and a tenth of the 7 + 20 rows held: merged, one row per wallet.
  const before = await value(20, 2);
  const unmerged = await state();
  expect(unmerged).toMatchObject({ parts: 2, rows: 27 });
  expect(await compaction.wrote(before)).toBe(true);
  expect(await state()).toEqual({ parts: 1, rows: 20, final: unmerged.final });
  expect(unmerged.final).toHaveLength(20);
  expect(unmerged.final[0]).toEqual({ wallet: 'w0', v: '2000' });
  // Held 20 now: a tenth is 2 rows, but nothing merges before the minimum of 8.
  expect(await compaction.wrote(await value(4, 3))).toBe(false);
  expect(await compaction.wrote(await value(3, 4))).toBe(false);
  const threeParts = await state();
  expect(threeParts).toMatchObject({ parts: 3, rows: 27 });
  expect(await compaction.wrote(await value(1, 5))).toBe(true);
  const merged = await state();
  expect(merged).toMatchObject({ parts: 1, rows: 20 });
  expect(merged.final.slice(0, 4)).toEqual([
    { wallet: 'w0', v: '5000' },
    { wallet: 'w1', v: '4001' },
    { wallet: 'w10', v: '2010' },
    { wallet: 'w11', v: '2011' },
  ]);
});

test('a larger table waits for a tenth of its rows, above the minimum', async () => {
  await store.command('TRUNCATE TABLE valued');
  const compaction = new ReplacingCompaction(store, 'valued', 8);
  // The first report counts what the table holds (100 rows) and merges it; then 9 more is under a tenth.
  expect(await compaction.wrote(await value(100, 1))).toBe(true);
  expect(await compaction.wrote(await value(9, 2))).toBe(false);
  expect((await state()).parts).toBe(2);
  expect(await compaction.wrote(await value(1, 3))).toBe(true);
  expect(await state()).toMatchObject({ parts: 1, rows: 100 });
});
