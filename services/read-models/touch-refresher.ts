/**
 * A key-value table kept equal to the tables it is built from, rebuilt per key after each write to
 * them: views note every written key in a touches table (kept a day), and a run rebuilds every key
 * touched since the previous run began, less OVERLAP_MS, so a write whose touch became visible after
 * that run read the touches (an insert's views stamp the touch before the insert is done) is still
 * picked up by a later run. A key is rebuilt when a run first sees its newest touch and once more by a
 * run starting the overlap after it, not by every run in between. Its cost follows what was written,
 * never the history. The previous run's
 * start is stored (one row, id 0, of a progress table), so a restarted refresher goes on from there;
 * the first run on a store, and one after the refresher was stopped for over half the day touches are
 * kept, rebuilds every key once. Runs of one refresher
 * are serialized (refresh), so two never write a key's value out of order.
 *
 * Used for each market's marks (marks/market-marks.ts) and each wallet's snapshot (positions/wallet-snapshots.ts).
 */
import type { Logger } from '../logger.js';
import type { AnalyticsStore } from '../ports/analytics-store.js';
import { runPeriodically } from '../shared/periodic.js';
import { DAY_MS } from '../shared/time.js';

/** How far back each run reads the touches from the previous run's start. */
export const OVERLAP_MS = 5_000;
/** How long a touches table keeps a touch at least (its TTL, in the migration that creates it: a day or more). */
const TOUCHES_KEPT_MS = DAY_MS;
/** How old the stored start may grow while runs rebuild nothing (far below TOUCHES_KEPT_MS / 2). */
export const PROGRESS_EVERY_MS = 60_000;

export interface TouchedTables {
  /** The touches table: (<key column>, touched_at DateTime64(3)). */
  touches: string;
  /** The key column's name in the touches table and in allKeys' rows. */
  key: string;
  /** The refresher's progress table: (id UInt8, since_ms Int64), keyed by id. */
  progress: string;
  /** Every key the source tables hold, as rows of the key column. */
  allKeys: string;
  /** Rebuilds these keys' values from the source tables; may give up between statements once `signal` aborts. */
  rebuild(keys: string[], nowMs: number, signal?: AbortSignal): Promise<void>;
}

export interface RefreshRun {
  /** Keys rebuilt. */
  keys: number;
  seconds: number;
}

export class TouchRefresher {
  /** Start of the previous run (ms), null before the first; none stored either: every key is rebuilt. */
  private since: number | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** When (run start, ms) each key touched in the previous run's window was last rebuilt by this refresher. */
  private rebuiltAt = new Map<string, number>();
  /** The run start this refresher last stored (ms); null before it stored one. */
  private storedAt: number | null = null;

  constructor(
    protected readonly store: AnalyticsStore,
    private readonly tables: TouchedTables,
    /** Tests shorten it. */
    private readonly overlapMs = OVERLAP_MS,
    /** Tests shorten it. */
    private readonly progressEveryMs = PROGRESS_EVERY_MS,
  ) {}

  /**
   * Rebuilds the keys touched since the previous run (less the overlap); runs one at a time. Once
   * `signal` aborts (a stop) the run gives up between statements, storing no progress: the next run
   * rebuilds its keys.
   */
  refresh(nowMs = Date.now(), signal?: AbortSignal): Promise<RefreshRun> {
    const run = this.queue.then(() => this.refreshNow(nowMs, signal));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async refreshNow(nowMs: number, signal: AbortSignal | undefined): Promise<RefreshRun> {
    const started = performance.now();
    const startedMs = Date.now();
    const { touches, key, progress } = this.tables;
    if (this.since === null) this.since = await this.storedSince();
    let keys: string[];
    const rebuiltAt = new Map<string, number>();
    if (this.since === null || startedMs - this.since > TOUCHES_KEPT_MS / 2)
      // Never run on this store, or stopped long enough that touches it never read may be gone: every key, once.
      keys = (await this.store.query<Record<string, string>>(this.tables.allKeys)).map((row) => row[key]!);
    else {
      const rows = await this.store.query<{ k: string; t: string }>(
        `SELECT ${key} AS k, toString(toUnixTimestamp64Milli(max(touched_at))) AS t FROM ${touches}
          WHERE touched_at >= fromUnixTimestamp64Milli({since:Int64}) GROUP BY k`,
        { since: this.since - this.overlapMs },
      );
      keys = [];
      for (const { k, t } of rows) {
        const touched = Number(t);
        const last = this.rebuiltAt.get(k);
        // A key is rebuilt when a run first sees its newest touch, and once more by a run that starts
        // the overlap after that touch (by then the write it notes is visible); the runs between would
        // rebuild it from the same rows. Each key stays in the window until that second rebuild.
        if (last === undefined || last < touched || (last < touched + this.overlapMs && startedMs >= touched + this.overlapMs)) {
          keys.push(k);
          rebuiltAt.set(k, startedMs);
        } else rebuiltAt.set(k, last);
      }
    }
    signal?.throwIfAborted();
    await this.tables.rebuild(keys, nowMs, signal);
    signal?.throwIfAborted();
    // Only keys still in the next run's window are kept (a key touched again later is new to it).
    this.rebuiltAt = rebuiltAt;
    // Only after the values are written: a run that failed reads its touches again next time. A run
    // that rebuilt nothing stores its start only when the stored one is PROGRESS_EVERY_MS old: a
    // restart then reads up to that much more of the touches and rebuilds their keys once more (to the
    // same values), and an idle refresher is spared a write per run.
    if (keys.length > 0 || this.storedAt === null || startedMs - this.storedAt >= this.progressEveryMs) {
      await this.store.command(`INSERT INTO ${progress} (id, since_ms) VALUES (0, {since:Int64})`, { since: startedMs });
      this.storedAt = startedMs;
    }
    this.since = startedMs;
    return { keys: keys.length, seconds: (performance.now() - started) / 1000 };
  }

  /** The start of the newest run that wrote its keys, by any refresher of this store (null: none yet). */
  private async storedSince(): Promise<number | null> {
    const [row] = await this.store.query<{ ms: string }>(`SELECT toString(since_ms) AS ms FROM ${this.tables.progress} WHERE id = 0`);
    return row ? Number(row.ms) : null;
  }
}

/** One refresher per store and kind (runs serialized), made on first use. */
export function perStore<T>(make: (store: AnalyticsStore) => T): (store: AnalyticsStore) => T {
  const made = new WeakMap<AnalyticsStore, T>();
  return (store) => {
    let refresher = made.get(store);
    if (!refresher) {
      refresher = make(store);
      made.set(store, refresher);
    }
    return refresher;
  };
}

/** Refreshes every `intervalMs` (first at once), never overlapping. */
export function startRefresher(refresher: TouchRefresher, what: string, intervalMs: number, logger: Logger) {
  return runPeriodically(
    async (signal) => {
      const run = await refresher.refresh(Date.now(), signal);
      if (run.keys > 0) logger.debug(run, `${what} refreshed`);
    },
    intervalMs,
    (error) => logger.error({ err: error }, `${what} refresh failed`),
  );
}
