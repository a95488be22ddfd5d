/**
 * The ledger maintained incrementally - history arriving after newer changes (a backfill), a reorg's
 * retraction and replacement, Data API trades replaced by their chain fills, a batch handed over
 * again - equals the ledger rebuilt from scratch by replaying the same history once in chain order,
 * row for row, and so do the views over it.
 */
import type { ChainLedgerEvent } from '../../events/types.generated.js';
import { chainFill, blockRetraction, chainLedgerEvent, dataApiTwin, marketUpserted, txHash } from '../../../test/support/events.js';
import { type ProjectionHarness, projectionHarness } from '../../../test/support/projection.js';
import { readMigrations } from '../../analytics/migrate.js';
import { fromChain, type LedgerEvent } from './ledger-events.js';
import { PositionLedger } from './ledger.js';

const T = Date.UTC(2026, 0, 5, 10);
const MARKETS = [`0x${'a1'.repeat(32)}`, `0x${'b2'.repeat(32)}`];
const WALLETS = Array.from({ length: 6 }, (_, i) => `0x${String(i + 1).repeat(40)}`);
const tok = (m: string, i: number) => `${m.slice(2, 8)}${i}`;

/** A deterministic pseudo-random sequence (the same history in both ledgers). */
function rng(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    return x / 2_147_483_648;
  };
}

function history(): ChainLedgerEvent[] {
  const random = rng(42);
  const events: ChainLedgerEvent[] = [];
  for (let i = 0; i < 240; i++) {
    const block = 70_000_000 + i;
    const market = MARKETS[i % 2]!;
    const wallet = WALLETS[Math.floor(random() * WALLETS.length)]!;
    const base = {
      tx_hash: txHash(i + 1),
      log_index: 1,
      block_number: block,
      block_hash: `0x${block.toString(16).padStart(64, '0')}`,
      block_time_ms: T + i * 60_000,
      market_id: market,
      ledger_group: market,
      wallet,
    };
    const pick = random();
    if (pick < 0.1) {
      const kind = random() < 0.6 ? 'split' : 'merge';
      const amount = String(Math.round(1 + random() * 50) * 1_000_000 + (kind === 'split' ? 1 : 0));
      events.push(
        chainLedgerEvent({
          ...base,
          kind,
          position_change: {
            amount_micro: amount,
            index_sets: ['1', '2'],
            redeemed_micro: [],
            outcome_token_ids: [tok(market, 0), tok(market, 1)],
            collateral_token: '',
          },
        }),
      );
      continue;
    }
    const outcome = random() < 0.5 ? 0 : 1;
    const shares = BigInt(Math.round((1 + random() * 100) * 1e6));
    const price = Math.round((0.05 + random() * 0.9) * 1000) / 1000;
    events.push(
      chainFill({
        ...base,
        fill: {
          role: random() < 0.5 ? 'taker' : 'maker',
          side: random() < 0.55 ? 'buy' : 'sell',
          asset_id: tok(market, outcome),
          outcome: outcome === 0 ? 'Yes' : 'No',
          outcome_index: outcome,
          shares_micro: shares.toString(),
          usdc_micro: ((shares * BigInt(Math.round(price * 1e6))) / 1_000_000n).toString(),
          price,
          yes_price: outcome === 0 ? price : 1 - price,
        },
      }),
    );
  }
  return events;
}

/** The orphaned twin of a block: same transactions at the same log index, another hash and other amounts. */
function orphanOf(event: ChainLedgerEvent): ChainLedgerEvent {
  return {
    ...event,
    block_hash: `0x${'dead'.repeat(16)}`,
    fill: event.fill ? { ...event.fill, shares_micro: '77000000', usdc_micro: '7700000', price: 0.1 } : event.fill,
  };
}

const LIVE_ROWS = `
  SELECT wallet, asset_id, event_id, block_hash, origin, kind, action, toString(in_qty) AS in_qty, toString(in_usdc) AS in_usdc,
         toString(qty_delta) AS qty_delta, toString(cash) AS cash, toString(realized) AS realized, toString(volume) AS volume, trades,
         toString(qty_after) AS qty_after, toString(cost_after) AS cost_after
    FROM position_ledger
   WHERE sign = 1 AND (wallet, asset_id, rev) NOT IN (SELECT wallet, asset_id, of_rev FROM position_ledger WHERE sign = -1)
   ORDER BY wallet, asset_id, time, block_number, log_index, event_id`;

const VIEWS = [
  `SELECT wallet, toString(sum(realized)) AS r, toString(sum(volume)) AS v, toString(sum(trades)) AS t, toString(sum(bought_usdc)) AS b,
          toUnixTimestamp64Milli(min(first_time)) AS f, toUnixTimestamp64Milli(max(last_time)) AS l FROM trader_lifetime GROUP BY wallet ORDER BY wallet`,
  `SELECT wallet, day, toString(sum(realized)) AS r, toString(sum(volume)) AS v FROM trader_days GROUP BY wallet, day HAVING r != '0' OR v != '0' ORDER BY wallet, day`,
  `SELECT wallet, market_id, toString(sum(realized)) AS r, toString(sum(cost_in)) AS c FROM trader_market_pnl GROUP BY wallet, market_id ORDER BY wallet, market_id`,
  `SELECT wallet, asset_id, toString(argMaxMerge(state).1) AS q, toString(argMaxMerge(state).2) AS c, toString(sum(realized)) AS r,
          toString(sum(cost_in)) AS ci, toUnixTimestamp64Milli(min(fill_first)) AS ff, toUnixTimestamp64Milli(max(fill_last)) AS fl FROM position_state GROUP BY wallet, asset_id ORDER BY wallet, asset_id`,
  // wallet_predates' facts (0076): the oldest change and the shares disposed of beyond holdings.
  `SELECT wallet, toUnixTimestamp64Milli(min(first_time)) AS f, toString(sum(unheld)) AS u FROM wallet_coverage GROUP BY wallet ORDER BY wallet`,
];

/** The VIEWS the rebuilding migrations refill. */
const REMIGRATED = [0, 1, 3, 4];

const events = history();
const reorged = events[200]!; // a block the chain replaced: its orphan was applied first, then retracted
const twins = events.filter((e) => e.kind === 'fill' && e.fill?.role === 'taker').slice(0, 5);
const markets = MARKETS.map((id) => marketUpserted({ event_id: `${id}:1`, market_id: id, outcome_token_ids: [tok(id, 0), tok(id, 1)] }));

// position_head (0060), the ledger's key-value copy of each key's newest row, against position_state's
// argMax of the same: every key present, every field equal (a missing key reads rev 0).
const HEAD_AGREES = `
  SELECT toString(count()) AS keys,
         toString(countIf(h.rev != s.rev OR h.qty != s.s.1 OR h.cost != s.s.2 OR h.opened_at != s.s.3 OR h.time != s.s.4
                          OR h.block_number != s.s.5 OR h.log_index != s.s.6 OR h.event_id != s.s.7)) AS differ,
         (SELECT toString(count()) FROM position_head) AS stored
    FROM (SELECT concat(wallet, '|', asset_id) AS key, argMaxMerge(state) AS s, max(max_rev) AS rev FROM position_state GROUP BY wallet, asset_id) AS s
    LEFT JOIN position_head AS h ON h.key = s.key`;

type Head = { keys: string; differ: string; stored: string };
type Dump = { live: Record<string, unknown>[]; views: Record<string, unknown>[][]; cancelled: number; head: Head };
const dump = async (h: ProjectionHarness): Promise<Dump> => ({
  live: await h.rows(LIVE_ROWS),
  views: await Promise.all(VIEWS.map((sql) => h.rows(sql))),
  cancelled: Number((await h.rows<{ n: string }>('SELECT count() AS n FROM position_ledger WHERE sign = -1'))[0]!.n),
  head: (await h.rows<Head>(HEAD_AGREES))[0]!,
});

// chDB holds one database directory per process: each ledger is built, read and closed in turn.
let incremental: Dump;
let rebuilt: Dump;
let redelivered: { written: number; after: Record<string, unknown>[] };
let remigrated: Array<Record<string, unknown>[]>;
let remigratedHead: Head;
let changes: Array<Record<string, unknown>>;

beforeAll(async () => {
  const a = await projectionHarness('ledger-incremental');
  try {
    await a.given({ markets });
    // The Data API's trades first, then the newer half of the chain (with the orphan of a reorged
    // block, then its retraction and replacement), then the older half (a backfill).
    await a.given({ trades: twins.map(dataApiTwin) });
    const orphan = orphanOf(reorged);
    await a.given({ chainLedger: events.slice(120).map((e) => (e === reorged ? orphan : e)) });
    await a.given({ chainLedger: [blockRetraction(orphan), reorged] });
    await a.given({ chainLedger: events.slice(0, 120) });
    incremental = await dump(a);
  } finally {
    await a.close();
  }
  const b = await projectionHarness('ledger-rebuilt');
  try {
    await b.given({ markets });
    // The log replayed once, in chain order.
    await b.given({ chainLedger: events });
    await b.given({ trades: twins.map(dataApiTwin) });
    rebuilt = await dump(b);
    // A batch handed over again after kill -9 (before its offsets committed), to a fresh ledger that
    // has no state in memory and reads what was stored, like a restarted process.
    const written = await new PositionLedger(b.store).apply(events.slice(100, 160).map(fromChain) as LedgerEvent[]);
    redelivered = { written, after: await b.rows(LIVE_ROWS) };
    // 0043, 0044, 0051, 0052, 0053 and 0076 rebuild position_state, trader_lifetime, trader_days and wallet_coverage from position_ledger;
    // run again (as after a crash halfway through) they must give what the views kept, not add to it.
    for (const name of [
      '0043_position_state',
      '0044_trader_days_lifetime',
      '0051_trader_lifetime_trade_times',
      '0052_position_state_report_sums',
      '0053_trader_curve',
      '0076_wallet_coverage',
    ]) {
      const rebuild = readMigrations().find((m) => m.name === name)!;
      for (const statement of rebuild.statements) await b.store.command(statement);
    }
    remigrated = await Promise.all(REMIGRATED.map((i) => b.rows(VIEWS[i]!)));
    // 0060 fills position_head from position_state; run again it empties and fills it anew.
    for (const statement of readMigrations().find((m) => m.name === '0060_position_head')!.statements) await b.store.command(statement);
    remigratedHead = (await b.rows<Head>(HEAD_AGREES))[0]!;
    // trader_days.changes and position_daily.changes (the stored curves' witness and stamp) count every
    // ledger row of the (wallet, day).
    changes = await b.rows(
      `SELECT l.wallet AS wallet, l.day AS day, l.n AS rows, d.c AS days_counted, p.c AS daily_counted FROM
         (SELECT wallet, toDate(time, 'UTC') AS day, toString(count()) AS n FROM position_ledger GROUP BY wallet, day) AS l
         FULL JOIN (SELECT wallet, day, toString(sum(changes)) AS c FROM trader_days GROUP BY wallet, day) AS d ON d.wallet = l.wallet AND d.day = l.day
         FULL JOIN (SELECT wallet, day, toString(sum(changes)) AS c FROM position_daily GROUP BY wallet, day) AS p ON p.wallet = l.wallet AND p.day = l.day
        ORDER BY wallet, day`,
    );
  } finally {
    await b.close();
  }
}, 240_000);

test('the incrementally maintained ledger equals the rebuilt one, row for row', () => {
  expect(rebuilt.live.length).toBeGreaterThan(240);
  expect(incremental.live).toEqual(rebuilt.live);
  // The incremental ledger did rewind (the backfill, the retraction, the replaced twins); the rebuild never had to.
  expect(incremental.cancelled).toBeGreaterThan(100);
  expect(rebuilt.cancelled).toBe(0);
  // The orphaned block and the Data API twins left nothing behind.
  expect(incremental.live.filter((r: any) => r.block_hash === `0x${'dead'.repeat(16)}` || r.origin === 'data_api')).toEqual([]);
});

test.each(VIEWS.map((sql, i) => [sql.slice(0, 60), i]))('views agree: %s', (_name, i) => {
  expect(incremental.views[i as number]).toEqual(rebuilt.views[i as number]);
});

test('migrations 0043, 0044, 0051, 0052, 0053 and 0076 run over an existing ledger rebuild the same states and wallet figures', () => {
  expect(remigrated.map((rows) => rows.length)).toEqual(REMIGRATED.map((i) => rebuilt.views[i]!.length));
  expect(Math.min(...remigrated.map((rows) => rows.length))).toBeGreaterThan(2);
  expect(remigrated).toEqual(REMIGRATED.map((i) => rebuilt.views[i]));
  // Some wallets sold beyond what the ledger saw them hold, so the signed sums are put to the test.
  expect(rebuilt.views[4]!.filter((r) => r.u !== '0').length).toBeGreaterThan(0);
  expect(changes.length).toBeGreaterThan(2);
  expect(changes.filter((r) => r.days_counted !== r.rows || r.daily_counted !== r.rows)).toEqual([]);
});

test("position_head holds position_state's newest row of every key, after rewinds and after its migration reruns", () => {
  expect(Number(incremental.head.keys)).toBeGreaterThan(20);
  // The incremental ledger's rewinds wrote cancel and replay rows of the same keys in later batches.
  expect(incremental.head).toEqual({ keys: incremental.head.keys, differ: '0', stored: incremental.head.keys });
  expect(rebuilt.head).toEqual({ keys: incremental.head.keys, differ: '0', stored: incremental.head.keys });
  expect(remigratedHead).toEqual(rebuilt.head);
});

test('a batch handed over again applies nothing twice', () => {
  expect(redelivered.written).toBe(0);
  expect(redelivered.after).toEqual(rebuilt.live);
});
