/**
 * The valuation pass: figures that move with marks (unrealized and total PnL, won/lost, risk score)
 * for the wallets whose positions changed (trader_touches) or whose markets' marks or catalog records
 * moved since the last pass, written to trader_valuation / trader_category_valuation for the
 * leaderboards' mark-dependent sorts, and the closed days of their 30-day PnL curves to trader_curve
 * for the reports (stored-curve.ts); and the 30-day boards' closed days once a day or after a change
 * dated on one (trader-window.ts). Its cost follows what changed, never the history: realized PnL,
 * volume and fills are read from the views directly; each wallet is valued from its pre-aggregated rows.
 */
import type { Logger } from '../../logger.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { runPeriodically } from '../../shared/periodic.js';
import { iso, startOfUtcDay } from '../../shared/time.js';
import { walletReports } from './queries.js';
import { ReplacingCompaction } from '../../analytics/replacing-compaction.js';
import { TraderWindow } from './trader-window.js';
import { marksOf } from '../marks/market-marks.js';

/** Days of the curve the pass values and stores: /traders' and /pnl's default (stored-curve.ts). */
const CURVE_DAYS = 30;

/** Wallets valued per query set; a pass values at most `maxWallets` and leaves the rest for the next. */
const CHUNK = 500;

/** The row of trader_valuation_progress (0081): where a restarted pass collects the changes from. */
const PROGRESS_ID = 0;

export interface ValuationRun {
  wallets: number;
  pending: number;
  seconds: number;
  /** A failed merge of the valuation tables (services/analytics/replacing-compaction.ts): nothing is lost, the boards read more rows. */
  compactionError?: unknown;
}

export class TraderValuation {
  private since: number | null = null;
  /**
   * Wallets waiting to be valued, each with the start of the collection that found it (the `since`
   * its changes were read from). Kept in the order found, so the first holds the oldest start: the
   * point a restarted pass must collect from to find every wallet still waiting.
   */
  private readonly pending = new Map<string, number>();
  /** The restart point last stored, so an unchanged one is not written again. */
  private storedRestart: number | null = null;
  private readonly window: TraderWindow;
  /** The day whose stale curves have all been revalued (sweepStaleCurves). */
  private sweptDay: number | null = null;
  /** The boards rank every wallet with FINAL: their tables are kept near one row per key. */
  private readonly compactions: { valuation: ReplacingCompaction; category: ReplacingCompaction };

  constructor(
    private readonly store: AnalyticsStore,
    private readonly maxWallets = 5_000,
    /** Rows written before a merge is considered (services/analytics/replacing-compaction.ts); tests lower it. */
    compactionMinRows?: number,
    /** Wallets valued per query set (and per step a stop can cut a pass at); tests lower it. */
    private readonly chunk = CHUNK,
  ) {
    this.window = new TraderWindow(store);
    this.compactions = {
      valuation: new ReplacingCompaction(store, 'trader_valuation', compactionMinRows),
      category: new ReplacingCompaction(store, 'trader_category_valuation', compactionMinRows),
    };
  }

  /**
   * One pass: collects what changed since the previous pass and values up to maxWallets of it. An
   * aborted `signal` stops it between chunks (it throws the signal's reason); the wallets not valued
   * are found again by the next pass, in this process or after a restart (storeRestart).
   */
  async run(nowMs = Date.now(), signal?: AbortSignal): Promise<ValuationRun> {
    const started = performance.now();
    this.since ??= await this.restartPoint();
    const from = this.since;
    const until = Date.now();
    const changed = await this.changedWallets(from);
    // The wallets are valued with market_marks (queries.ts), rebuilt here for every market written
    // since the refresher's previous run after the changes were read: a write this pass saw is done,
    // so its touch is visible and its market's marks are rebuilt before the pass values it.
    await marksOf(this.store).refresh(nowMs);
    for (const wallet of changed) if (!this.pending.has(wallet)) this.pending.set(wallet, from);
    this.since = until;
    const batch = [...this.pending.keys()].slice(0, this.maxWallets);
    for (let i = 0; i < batch.length; i += this.chunk) {
      signal?.throwIfAborted();
      const chunk = batch.slice(i, i + this.chunk);
      await this.value(chunk, nowMs);
      for (const wallet of chunk) this.pending.delete(wallet);
      await this.storeRestart();
    }
    await this.storeRestart();
    signal?.throwIfAborted();
    // With what changed valued, one chunk of the curves a new day left behind.
    const swept = this.pending.size === 0 ? await this.sweepStaleCurves(nowMs) : 0;
    // The 30-day boards' closed days, summed again after a new day or a change dated on one.
    await this.window.refresh(nowMs);
    const [compactionError] = [
      this.compactions.valuation.takeError(),
      this.compactions.category.takeError(),
      this.window.takeError(),
    ].filter(Boolean);
    return {
      wallets: batch.length + swept,
      pending: this.pending.size,
      seconds: (performance.now() - started) / 1000,
      ...(compactionError ? { compactionError } : {}),
    };
  }

  /**
   * Where a pass started in a new process collects the changes from: the start of the oldest
   * collection with a wallet not valued yet, or the end of the last collection once every wallet it
   * found was valued (storeRestart). Before the progress table was written, the newest valuation.
   */
  private async restartPoint(): Promise<number> {
    const [stored] = await this.store.query<{ ms: string }>(
      'SELECT toString(since_ms) AS ms FROM trader_valuation_progress WHERE id = {id:UInt8}',
      { id: PROGRESS_ID },
    );
    if (stored) {
      this.storedRestart = Number(stored.ms);
      return this.storedRestart;
    }
    const [row] = await this.store.query<{ ms: string }>('SELECT toUnixTimestamp64Milli(max(valued_at)) AS ms FROM trader_valuation');
    return Number(row?.ms ?? 0);
  }

  /**
   * Records the restart point after each chunk, so a pass cut between chunks (a stop, a crash) loses
   * no wallet: a restarted pass collects again from the oldest start with a wallet still waiting, and
   * values again the wallets of those collections already valued (a few chunks at most, the same
   * figures) rather than leave the rest unvalued until they change again.
   */
  private async storeRestart(): Promise<void> {
    const [oldestWaiting] = this.pending.values();
    const restart = oldestWaiting ?? this.since!;
    if (restart === this.storedRestart) return;
    await this.store.command('INSERT INTO trader_valuation_progress (id, since_ms) VALUES ({id:UInt8}, {since:Int64})', {
      id: PROGRESS_ID,
      since: restart,
    });
    this.storedRestart = restart;
  }

  /**
   * After midnight every stored curve is a day behind, so reports value their closed days themselves
   * until the wallet is valued again, and a quiet wallet (nothing of it or its markets changes) never
   * would be. Each pass revalues up to one chunk of them, the most markets first (the costliest to
   * value on a read); once none is left, not before the next day. Returns the wallets valued.
   */
  async sweepStaleCurves(nowMs: number): Promise<number> {
    const today = startOfUtcDay(nowMs);
    if (this.sweptDay === today) return 0;
    const rows = await this.store.query<{ wallet: string }>(
      `SELECT wallet FROM trader_curve FINAL WHERE to_day < toDate({today:Int64}, 'UTC')
        ORDER BY markets.size0 DESC, wallet LIMIT {n:UInt32}`,
      { today: today / 1000, n: this.chunk },
    );
    if (rows.length < this.chunk) this.sweptDay = today;
    if (rows.length > 0)
      await this.value(
        rows.map((r) => r.wallet),
        nowMs,
      );
    return rows.length;
  }

  private async changedWallets(sinceMs: number): Promise<string[]> {
    const params = { since: sinceMs };
    const touched = await this.store.query<{ wallet: string }>(
      'SELECT DISTINCT wallet FROM trader_touches WHERE touched_at > fromUnixTimestamp64Milli({since:Int64})',
      params,
    );
    // Marks move with the market's trades, its books and its catalog record (status, payouts, category).
    const moved = await this.store.query<{ market_id: string }>(
      `SELECT DISTINCT market_id FROM (
          SELECT market_id FROM trader_touches WHERE touched_at > fromUnixTimestamp64Milli({since:Int64})
          UNION ALL SELECT market_id FROM order_books WHERE ts > fromUnixTimestamp64Milli({since:Int64})
          UNION ALL SELECT market_id FROM markets WHERE ingested_at > fromUnixTimestamp64Milli({since:Int64}))`,
      params,
    );
    const wallets = new Set(touched.map((r) => r.wallet));
    const ids = moved.map((r) => r.market_id);
    for (let i = 0; i < ids.length; i += 1_000) {
      const holders = await this.store.query<{ wallet: string }>(
        `SELECT wallet FROM position_state WHERE market_id IN {ids:Array(String)} GROUP BY wallet, asset_id HAVING argMaxMerge(state).1 > 0`,
        { ids: ids.slice(i, i + 1_000) },
      );
      for (const h of holders) wallets.add(h.wallet);
    }
    return [...wallets];
  }

  async value(wallets: string[], nowMs: number): Promise<void> {
    const { reports, curves } = await walletReports(this.store, wallets, { nowMs, curveDays: CURVE_DAYS });
    const valuedAt = iso(Date.now());
    const rows = [];
    const categoryRows = [];
    for (const [wallet, { data, report }] of reports) {
      rows.push({
        wallet,
        realized: report.realized.toString(),
        unrealized: report.unrealized.toString(),
        total_pnl: (report.realized + report.unrealized).toString(),
        volume: data.totals.volume.toString(),
        trades: data.totals.trades,
        won: report.won,
        lost: report.lost,
        win_rate_pct: report.winRatePct,
        risk_score: report.risk.score,
        last_trade_at: data.totals.last_ms === null ? null : iso(data.totals.last_ms),
        valued_at: valuedAt,
      });
      for (const c of report.categories) {
        categoryRows.push({
          wallet,
          category: c.category,
          realized: c.realized.toString(),
          unrealized: c.unrealized.toString(),
          total_pnl: (c.realized + c.unrealized).toString(),
          volume: c.volume.toString(),
          won: c.won,
          lost: c.lost,
          win_rate_pct: c.won + c.lost === 0 ? null : Math.round((10_000 * c.won) / (c.won + c.lost)) / 100,
          valued_at: valuedAt,
        });
      }
    }
    await this.store.insert('trader_valuation', rows);
    await this.store.insert('trader_category_valuation', categoryRows);
    await this.compactions.valuation.wrote(rows.length);
    await this.compactions.category.wrote(categoryRows.length);
    // The closed days valued here (wallets whose stored curve no longer held), for the reports to serve.
    if (curves.valued.length > 0) await this.store.insert('trader_curve', curves.valued);
  }
}

/** Runs the valuation pass every `intervalMs` (first at once), never overlapping. */
export function startTraderValuation(store: AnalyticsStore, intervalMs: number, logger: Logger) {
  const valuation = new TraderValuation(store);
  return runPeriodically(
    async (signal) => {
      const { compactionError, ...run } = await valuation.run(Date.now(), signal);
      if (compactionError) logger.warn({ err: compactionError }, 'trader valuation: merging its tables failed; tried again later');
      logger.debug(run, 'traders valued');
    },
    intervalMs,
    (error) => logger.error({ err: error }, 'trader valuation failed'),
  );
}
