/**
 * What a ledger rewind reads (writes bench/results/ledger-rewinds.json): the stored rows of keys
 * rewound again and again, as the demo's market makers' keys are (a Data API fill replaced by its
 * chain twin rewinds its key; the demo's hottest keys held 6.5 rows per live one). HOT_KEYS keys are
 * built through the position ledger itself: LIVE buys each, then REWINDS older buys, each behind all
 * of them (a rewind that cancels and replays the whole key). Then, alternating, the two reads of the
 * same keys in the same run:
 * - every_row: the read before (every stored row, cancels included, `SELECT *`), made live in memory;
 * - live_rows: `readStoredRows` (the live rows and the highest revision, an anti-join in the store);
 * - newest_rows: `readStoredRows` from each key's newest change on, as the rewind of a Data API fill
 *   replaced by its chain twin reads (that change, and the newest live row before it).
 * The first two must return the same live rows. Reported: rows each returns, p50/p90 ms, ratio to every_row.
 *
 *   npm run bench:ledger-rewinds     (BENCH_HOT_KEYS=10, BENCH_LIVE=2000, BENCH_REWINDS=3, BENCH_REQUESTS=20)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { openChdbStore } from '../services/analytics/clickhouse-store.js';
import { migrate } from '../services/analytics/migrate.js';
import type { AnalyticsStore } from '../services/ports/analytics-store.js';
import { comparePositions, fromChain, type LedgerEvent } from '../services/read-models/positions/ledger-events.js';
import { readStoredRows } from '../services/read-models/positions/ledger-loaders.js';
import { type LedgerRow, liveOf, normalizeStored, rowPosition } from '../services/read-models/positions/ledger-rows.js';
import { PositionLedger } from '../services/read-models/positions/ledger.js';
import { outcomeFill, outcomeToken } from '../test/support/events.js';
import { mergesSettled } from './ledger-scale.js';

const HOT_KEYS = Number(process.env.BENCH_HOT_KEYS ?? 10);
const LIVE = Number(process.env.BENCH_LIVE ?? 2_000);
const REWINDS = Number(process.env.BENCH_REWINDS ?? 3);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20);
const MARKET = `0x${'be'.repeat(32)}`;
const T = Date.UTC(2026, 5, 1);
const BLOCK = 73_000_000;
const here = path.dirname(fileURLToPath(import.meta.url));

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const wallet = (k: number) => `0x${(k + 1).toString(16).padStart(40, '0')}`;
const keyOf = (k: number) => `${wallet(k)}|${outcomeToken(MARKET, 0)}`;

/** Key k's buy number n (n < 0: older than every buy numbered 0 and up). */
const buy = (k: number, n: number): LedgerEvent =>
  fromChain(
    outcomeFill({
      tx: k * 1_000_000 + n + 1_000,
      block: BLOCK + n,
      at: T + n * 1_000,
      wallet: wallet(k),
      market: MARKET,
      index: 0,
      side: 'buy',
      shares: 1,
      price: 0.5,
    }),
  )!;

/** The read before: every row of the keys, cancels included, made live in memory. */
async function everyRow(store: AnalyticsStore, keys: string[]): Promise<Map<string, LedgerRow[]>> {
  const rows = await store.query<LedgerRow & { key: string }>(
    `SELECT *, concat(wallet, '|', asset_id) AS key, toUnixTimestamp64Milli(time) AS time_ms, toUnixTimestamp64Milli(opened_at) AS opened_ms
       FROM position_ledger WHERE wallet IN {wallets:Array(String)} AND concat(wallet, '|', asset_id) IN {keys:Array(String)} ORDER BY rev`,
    { wallets: [...new Set(keys.map((k) => k.split('|')[0]!))], keys },
  );
  const byKey = new Map<string, LedgerRow[]>(keys.map((k) => [k, []]));
  for (const { key, ...row } of rows) byKey.get(key)?.push(normalizeStored(row as LedgerRow));
  return new Map([...byKey].map(([key, list]) => [key, liveOf(list)]));
}

async function time<T>(run: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now();
  const result = await run();
  return { ms: performance.now() - started, result };
}

const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50_ms: round(percentile(sorted, 50)), p90_ms: round(percentile(sorted, 90)) };
};

/** The rows without the ingested_at column `SELECT *` reads, which the other read leaves out. */
const comparable = (rows: Map<string, LedgerRow[]>) =>
  [...rows].map(([key, list]) => [key, list.map(({ ingested_at: _, ...r }: LedgerRow & { ingested_at?: string }) => r)]);

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-rewinds-'));
  const store = await openChdbStore({ path: dir, database: 'bench' });
  try {
    await migrate(store);
    const built = performance.now();
    const ledger = new PositionLedger(store);
    await ledger.apply(Array.from({ length: HOT_KEYS }, (_, k) => Array.from({ length: LIVE }, (_, n) => buy(k, n))).flat());
    for (let r = 1; r <= REWINDS; r++) await ledger.apply(Array.from({ length: HOT_KEYS }, (_, k) => buy(k, -r)));
    const buildMs = Math.round(performance.now() - built);
    const settleMs = await mergesSettled(store, 120_000);
    const rows = (await store.query<{ rows: string }>('SELECT toString(count()) AS rows FROM position_ledger'))[0]!.rows;
    const keys = Array.from({ length: HOT_KEYS }, (_, k) => keyOf(k));
    const every: number[] = [];
    const live: number[] = [];
    const newest: number[] = [];
    let returned = { every_row: 0, live_rows: 0, newest_rows: 0 };
    // A warm-up each, checked equal; then alternating, so both see the same background.
    const before = await everyRow(store, keys);
    const after = new Map([...(await readStoredRows(store, keys))].map(([key, s]) => [key, s.live]));
    if (!isDeepStrictEqual(comparable(before), comparable(after))) throw new Error('the two reads disagree on the live rows');
    const bounds = new Map([...after].map(([key, rows]) => [key, rows.map(rowPosition).sort(comparePositions).at(-1)!]));
    for (let i = 0; i < REQUESTS; i++) {
      const a = await time(() => everyRow(store, keys));
      const b = await time(() => readStoredRows(store, keys));
      const c = await time(() => readStoredRows(store, keys, bounds));
      every.push(a.ms);
      live.push(b.ms);
      newest.push(c.ms);
      returned = {
        every_row: Number(rows),
        live_rows: [...b.result.values()].reduce((n, s) => n + s.live.length, 0),
        newest_rows: [...c.result.values()].reduce((n, s) => n + s.live.length + (s.base ? 1 : 0), 0),
      };
    }
    const everySummary = summary(every);
    const liveSummary = summary(live);
    const newestSummary = summary(newest);
    const result = {
      benchmark: 'ledger-rewinds',
      at: new Date().toISOString(),
      machine: { cpus: os.cpus().length, node: process.version },
      keys: {
        hot_keys: HOT_KEYS,
        live_per_key: LIVE + REWINDS,
        rewinds_per_key: REWINDS,
        stored_rows: Number(rows),
        build_ms: buildMs,
        merges_settled_ms: settleMs,
      },
      requests: REQUESTS,
      rows_returned: { ...returned, dead_per_live: round((returned.every_row - returned.live_rows) / returned.live_rows) },
      every_row: everySummary,
      live_rows: liveSummary,
      newest_rows: newestSummary,
      ratio_p50: round(liveSummary.p50_ms / everySummary.p50_ms, 3),
      ratio_p90: round(liveSummary.p90_ms / everySummary.p90_ms, 3),
      newest_ratio_p50: round(newestSummary.p50_ms / everySummary.p50_ms, 3),
      newest_ratio_p90: round(newestSummary.p90_ms / everySummary.p90_ms, 3),
      note: "One read of every hot key at once, as a batch reads the keys it rewinds. every_row: the read before (all rows, made live in memory); live_rows: readStoredRows of all live rows; newest_rows: readStoredRows from each key's newest change on; ratio = live_rows / every_row, newest_ratio = newest_rows / every_row, in the same run.",
    };
    console.log(JSON.stringify(result, null, 2));
    fs.mkdirSync(path.join(here, 'results'), { recursive: true });
    fs.writeFileSync(path.join(here, 'results', 'ledger-rewinds.json'), `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
