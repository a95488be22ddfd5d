/**
 * The cost of wallet_predates (writes bench/results/wallet-predates.json): the per-wallet
 * wallet_coverage rows (0076, services/read-models/positions/coverage.ts) against the rule they
 * replaced, run on the same store in the same run: position_state's first change per wallet, then,
 * for wallets that does not decide, a read of their whole ledger. The slow case is a busy wallet
 * whose history all lies inside the coverage and never sold beyond its holdings: the old rule read
 * all its rows. Timed for that wallet alone (/traders/{wallet}) and for a page of 50 wallets holding
 * it (/leaderboard, /traders/browse). Uncached p50/p90, alternating the two rules request by request.
 *
 *   npm run bench:wallet-predates     (BENCH_BUSY_ROWS=1000000, BENCH_OTHER_WALLETS=50000, BENCH_REQUESTS=40)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Coverage } from '../services/http/types.generated.js';
import { openChdbStore } from '../services/analytics/clickhouse-store.js';
import { migrate } from '../services/analytics/migrate.js';
import type { AnalyticsStore } from '../services/ports/analytics-store.js';
import { walletsPredating } from '../services/read-models/positions/coverage.js';
import { mergesSettled } from './ledger-scale.js';

const BUSY_ROWS = Number(process.env.BENCH_BUSY_ROWS ?? 1_000_000);
const OTHER_WALLETS = Number(process.env.BENCH_OTHER_WALLETS ?? 50_000);
const ROWS_PER_OTHER = 20;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 40);
const PAGE = 50;
const CHUNK = 250_000;
const BUSY = `0x${'b'.repeat(40)}`;
const START_MS = Date.UTC(2026, 9, 1);
const here = path.dirname(fileURLToPath(import.meta.url));

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** The rule before 0076, as coverage.ts ran it: two reads, the second of the undecided wallets' ledger rows. */
async function ledgerRule(store: AnalyticsStore, wallets: readonly string[], coverage: Coverage): Promise<Set<string>> {
  const predating = new Set<string>();
  const firsts = await store.query<{ wallet: string }>(
    `SELECT wallet FROM position_state WHERE wallet IN {wallets:Array(String)}
      GROUP BY wallet HAVING min(first_time) < fromUnixTimestamp64Milli({from:Int64})`,
    { wallets, from: Date.parse(coverage.from_time!) },
  );
  for (const row of firsts) predating.add(row.wallet);
  const rest = wallets.filter((wallet) => !predating.has(wallet));
  if (rest.length === 0) return predating;
  const unheld = await store.query<{ wallet: string }>(
    `SELECT wallet FROM position_ledger WHERE wallet IN {wallets:Array(String)}
      GROUP BY wallet HAVING sumIf(sign * (toInt64(in_qty) + qty_delta), action IN ('sell', 'sell_at_cost')) > 0`,
    { wallets: rest },
  );
  for (const row of unheld) predating.add(row.wallet);
  return predating;
}

/**
 * Ledger rows as the ledger writes them (sign 1, one rev per (wallet, token)): buys of 10 shares and
 * sales of the same 10, every row inside the coverage. The busy wallet trades 2,000 tokens.
 */
async function load(store: AnalyticsStore): Promise<number> {
  const insert = (wallet: string, tokens: number, rev: string, offset: number, count: number) =>
    store.command(
      `INSERT INTO position_ledger (wallet, asset_id, market_id, outcome, outcome_index, time, block_number, log_index, event_id,
                                    rev, sign, of_rev, origin, source, kind, role, action, tx_hash, block_hash, ledger_group,
                                    in_qty, in_usdc, pay_num, pay_den, fee_micro, price, qty_delta, cash, realized, volume, trades,
                                    qty_after, cost_after, opened_at)
       SELECT ${wallet} AS w, toString(number % {tokens:UInt64}) AS asset_id, concat('m', toString(number % 500)), 'Yes', 0,
              fromUnixTimestamp64Milli(toInt64({start:Int64} + number * 1000)) AS t, 60000000 + number, 0, concat(w, ':', toString(number)),
              ${rev} AS rev, 1, 0, 'chain', 'simulator', 'fill', 'taker',
              if(rev % 2 = 1, 'buy', 'sell') AS action, '', '', concat('m', toString(number % 500)),
              10000000, 5000000, 0, 0, 0, 0.5, if(action = 'buy', 10000000, -10000000), if(action = 'buy', -5000000, 5000000), 0,
              5000000, 1, if(action = 'buy', 10000000, 0), if(action = 'buy', 5000000, 0), t
         FROM numbers({offset:UInt64}, {count:UInt64})`,
      { tokens, start: START_MS, offset, count },
    );
  for (let at = 0; at < BUSY_ROWS; at += CHUNK) {
    await insert(`'${BUSY}'`, 2_000, 'intDiv(number, 2000) + 1', at, Math.min(CHUNK, BUSY_ROWS - at));
  }
  const others = OTHER_WALLETS * ROWS_PER_OTHER;
  // Other wallets: ROWS_PER_OTHER consecutive numbers each, 4 tokens of 5 revs (buy, sell, buy, sell, buy).
  for (let at = 0; at < others; at += CHUNK) {
    await insert(
      `concat('0x', leftPad(lower(hex(intDiv(number, ${ROWS_PER_OTHER}))), 40, '0'))`,
      4,
      `intDiv(number % ${ROWS_PER_OTHER}, 4) + 1`,
      at,
      Math.min(CHUNK, others - at),
    );
  }
  return BUSY_ROWS + others;
}

async function time(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

const summary = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50_ms: round(percentile(sorted, 50)), p90_ms: round(percentile(sorted, 90)), max_ms: round(sorted.at(-1)!) };
};

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapeline-bench-predates-'));
  const store = await openChdbStore({ path: dir, database: 'bench' });
  try {
    await migrate(store);
    const loadStarted = performance.now();
    const rows = await load(store);
    const loadMs = Math.round(performance.now() - loadStarted);
    const settleMs = await mergesSettled(store, 120_000);
    const coverage: Coverage = {
      from_block: 60_000_000,
      from_time: new Date(START_MS - 1_000).toISOString(),
      to_block: 70_000_000,
      to_time: new Date(START_MS + 86_400_000 * 60).toISOString(),
      complete: false,
    };
    const page = [BUSY, ...Array.from({ length: PAGE - 1 }, (_, i) => `0x${(i * 97).toString(16).padStart(40, '0')}`)];
    // Both rules agree before they are timed (no wallet here predates the coverage).
    for (const wallets of [[BUSY], page]) {
      const [before, after] = [await ledgerRule(store, wallets, coverage), await walletsPredating(store, wallets, coverage)];
      if ([...before].sort().join() !== [...after].sort().join()) throw new Error(`the rules disagree on ${wallets.length} wallets`);
    }
    const cases: Record<string, { wallets: string[]; before: number[]; after: number[] }> = {
      busy_wallet: { wallets: [BUSY], before: [], after: [] },
      page_of_50: { wallets: page, before: [], after: [] },
    };
    for (const c of Object.values(cases)) {
      // One warm-up each, then alternating so both see the same background.
      await ledgerRule(store, c.wallets, coverage);
      await walletsPredating(store, c.wallets, coverage);
      for (let i = 0; i < REQUESTS; i++) {
        c.before.push(await time(() => ledgerRule(store, c.wallets, coverage)));
        c.after.push(await time(() => walletsPredating(store, c.wallets, coverage)));
      }
    }
    const result = {
      benchmark: 'wallet-predates',
      at: new Date().toISOString(),
      machine: { cpus: os.cpus().length, node: process.version },
      store: { ledger_rows: rows, busy_wallet_rows: BUSY_ROWS, other_wallets: OTHER_WALLETS, load_ms: loadMs, merges_settled_ms: settleMs },
      requests: REQUESTS,
      ...Object.fromEntries(
        Object.entries(cases).map(([name, c]) => {
          const before = summary(c.before);
          const after = summary(c.after);
          return [
            name,
            {
              wallets: c.wallets.length,
              ledger_rule: before,
              wallet_coverage: after,
              ratio_p50: round(after.p50_ms / before.p50_ms, 4),
              ratio_p90: round(after.p90_ms / before.p90_ms, 4),
            },
          ];
        }),
      ),
      note: 'ledger_rule: position_state then the ledger rows of the undecided wallets (before 0076); wallet_coverage: one keyed read of the per-wallet rows (after); ratio = after / before in the same run.',
    };
    console.log(JSON.stringify(result, null, 2));
    fs.mkdirSync(path.join(here, 'results'), { recursive: true });
    fs.writeFileSync(path.join(here, 'results', 'wallet-predates.json'), `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
