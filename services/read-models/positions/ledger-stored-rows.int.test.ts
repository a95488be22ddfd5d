/**
 * A rewind reads a key's live rows and its highest revision, not its whole history (readStoredRows):
 * a key rewound again and again holds several dead rows (cancels, and the rows they cancel) per live
 * one. Checked against the table read whole and filtered in memory, and by the rows a ledger writes
 * after reading them (a fresh ledger, which reads, writes what the ledger that applied them writes).
 */
import type { ChainLedgerEvent } from '../../events/types.generated.js';
import { blockRetraction, chainLedgerEvent, marketUpserted, outcomeFill, outcomeToken } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { fromChain, type LedgerEvent } from './ledger-events.js';
import { readStoredRows } from './ledger-loaders.js';
import { type LedgerRow, liveOf, normalizeStored } from './ledger-rows.js';
import { PositionLedger } from './ledger.js';

const T = Date.UTC(2026, 3, 1, 12);
const MARKET = `0x${'c4'.repeat(32)}`;
const TOKEN = outcomeToken(MARKET, 0);
const WALLET = `0x${'5'.repeat(40)}`;
const KEY = `${WALLET}|${TOKEN}`;
const BLOCK = 72_000_000;
const hashOf = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

/** The wallet's buy of 10 YES in block BLOCK + floor(n) (its own hash), n minutes after T. */
const buy = (n: number): LedgerEvent => {
  const fill = outcomeFill({
    tx: 900 + n * 2,
    block: BLOCK + Math.floor(n),
    at: T + n * 60_000,
    wallet: WALLET,
    market: MARKET,
    index: 0,
    side: 'buy',
    shares: 10,
    price: 0.5,
  });
  return fromChain({ ...fill, block_hash: hashOf(BLOCK + Math.floor(n)) } as ChainLedgerEvent)!;
};
const retraction = (n: number): LedgerEvent =>
  fromChain(blockRetraction({ block_hash: hashOf(BLOCK + n), block_number: BLOCK + n, block_time_ms: T, ledger_group: MARKET }))!;

/**
 * Five buys; two older ones, each behind every applied change (each rewinds the key: cancels and
 * replays all); then the newest block retracted (its row cancelled, nothing replayed, so the highest
 * revision is a cancel's).
 */
const BATCHES: LedgerEvent[][] = [[1, 2, 3, 4, 5].map(buy), [buy(-1)], [buy(-2)], [retraction(5)]];

const ALL = `SELECT *, toUnixTimestamp64Milli(time) AS time_ms, toUnixTimestamp64Milli(opened_at) AS opened_ms FROM position_ledger
              WHERE wallet = {wallet:String} ORDER BY rev`;
const ROWS = `SELECT rev, sign, of_rev, event_id, toString(qty_after) AS qty_after, toString(cost_after) AS cost_after
                FROM position_ledger WHERE wallet = {wallet:String} ORDER BY rev`;

async function history(name: string, freshLedgerEachBatch: boolean, after: LedgerEvent[][]) {
  const h: ProjectionHarness = await projectionHarness(name);
  try {
    await h.given({
      markets: [marketUpserted({ event_id: `${MARKET}:1`, market_id: MARKET, outcome_token_ids: [TOKEN, outcomeToken(MARKET, 1)] })],
    });
    let ledger = new PositionLedger(h.store);
    for (const batch of BATCHES) await ledger.apply(batch);
    const all = (await h.rows<LedgerRow & { time_ms: string; opened_ms: string }>(ALL, { wallet: WALLET })).map((r) => {
      const { ingested_at: _, ...row } = r as LedgerRow & { ingested_at?: string };
      return normalizeStored(row as LedgerRow);
    });
    const stored = (await readStoredRows(h.store, [KEY])).get(KEY)!;
    const stats = [];
    for (const batch of after) {
      if (freshLedgerEachBatch) ledger = new PositionLedger(h.store);
      await ledger.apply(batch);
      stats.push({ ...ledger.stats });
    }
    return { all, stored, stats, rows: await h.rows(ROWS, { wallet: WALLET }) };
  } finally {
    await h.close();
  }
}

let read: Awaited<ReturnType<typeof history>>;
let kept: Awaited<ReturnType<typeof history>>;
/**
 * A redelivery of changes already applied (each compared with the live rows), one more older buy (a
 * rewind of them all); then a redelivery of the newest change alone, and a buy between the two newest
 * (each needs the key's newest rows only).
 */
const AFTER: LedgerEvent[][] = [[buy(-1), buy(2), buy(4)], [buy(-3)], [buy(4)], [buy(3.5)]];
beforeAll(async () => {
  // chDB holds one database directory per process: one harness at a time.
  read = await history('stored-rows-fresh', true, AFTER);
  kept = await history('stored-rows-kept', false, AFTER);
}, 120_000);

test('the key holds dead rows: cancels and the rows they cancel', () => {
  // 5 buys; 5 cancels + 6 replays; 6 cancels + 7 replays; 1 cancel.
  expect(read.all).toHaveLength(30);
  expect(liveOf(read.all)).toHaveLength(6);
});

test('a read of the stored rows returns the live ones, in revision order, and the highest revision (a cancel)', () => {
  expect(read.stored.rev).toBe(30);
  expect(read.all.at(-1)).toMatchObject({ rev: 30, sign: -1 });
  expect(read.stored.live).toEqual(liveOf(read.all));
  expect(read.stored.live.map((r) => r.event_id)).toEqual(liveOf(read.all).map((r) => r.event_id));
});

test('a fresh ledger reads the live rows from the earliest change on, and the newest one before it', () => {
  const [redelivery, older, newest, between] = read.stats;
  // Live: buys -2, -1, 1, 2, 3, 4. From -1 on: 5 rows, and -2 before them.
  expect(redelivery!.skipped_already_applied).toBe(3);
  expect(redelivery!.stored_rows_read).toBe(6);
  expect(redelivery!.rewinds).toBe(0);
  // Behind all: all 6, nothing before them.
  expect(older!.rewinds).toBe(1);
  expect(older!.stored_rows_read).toBe(6);
  // The newest change: it and the one before it, of 7 live rows.
  expect(newest!.skipped_already_applied).toBe(1);
  expect(newest!.stored_rows_read).toBe(2);
  // Between the two newest: the newest (cancelled and replayed) and the one before (the state it starts from).
  expect(between!.rewinds).toBe(1);
  expect(between!.stored_rows_read).toBe(2);
});

test('the rows a fresh ledger writes after reading are those the ledger that applied them writes', () => {
  // The older buy cancels the 6 live rows and replays 7, numbered on from the cancel's revision; the
  // buy between the two newest cancels the newest and replays 2.
  expect(read.rows).toHaveLength(30 + 6 + 7 + 1 + 2);
  expect(new Set(read.rows.map((r: any) => Number(r.rev))).size).toBe(read.rows.length);
  expect(read.rows).toEqual(kept.rows);
  const last = read.rows.at(-1) as { qty_after: string; sign: number };
  expect(last.qty_after).toBe(String(8 * 10 * 1_000_000));
});
