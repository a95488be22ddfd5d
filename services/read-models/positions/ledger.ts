/**
 * The position ledger: applies every change of a (wallet, outcome token) in order and writes one
 * `position_ledger` row per change (quantity and cost basis after, realized PnL, cash, volume), from
 * which materialized views keep every per-wallet figure (migrations/0041..). docs/POSITIONS.md.
 *
 * Order and idempotence. All changes of a token travel on one partition of the chain ledger topic
 * (key = ledger group) and the sink hands a partition's batches over one at a time, so in the normal
 * course changes arrive in chain order and are appended. The state of a (wallet, token) is its row
 * with the highest revision (`position_state`, kept by a view in the same insert), so it survives
 * kill -9 with the rows themselves: a redelivered change whose event id is already live for its
 * (wallet, token) is skipped, never applied twice. A change older than the newest applied one (a
 * backfill reaching into the past, a Data API trade older than the chain's coverage) or the removal
 * of one (a reorg's retraction, a Data API trade replaced by its chain fill) rewinds that (wallet,
 * token): the live rows from that point on are cancelled (sign -1 copies) and replayed in order with
 * new revisions. Views sum `value x sign`, so cancelled rows drop out of every aggregate. A rewind that
 * changes what a transfer's sender or a conversion's NO leg took out, or what a redemption priced
 * from the holdings saw held, re-prices that event's legs on its other keys (`applyRelinks`,
 * bounded); a market's resolution re-prices the redemptions applied before its payout was known.
 *
 * Modules: this file queues batches and stores what each wrote (rows, journal, touches, unpriced
 * redemptions); ledger-batch.ts applies a batch (appends, rewinds, re-pricings); ledger-legs.ts turns
 * an event into legs; ledger-rows.ts is the row shape and its codec; ledger-linked.ts rebuilds a
 * transfer, conversion or redemption from its rows; ledger-loaders.ts holds the batch's reads.
 */
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { iso } from '../../shared/time.js';
import { KeyFilter } from './key-filter.js';
import type { LedgerEvent } from './ledger-events.js';
import { Batch, type LedgerStats } from './ledger-batch.js';
import { keyOf, type Payout, type UnpricedRedemption } from './ledger-legs.js';
import type { KeyState } from './ledger-loaders.js';
import { RowCache } from './ledger-row-cache.js';
import { decodeRow, encodeRow, LEDGER_COLUMNS, LEDGER_TABLE, type LedgerRow } from './ledger-rows.js';

/** Which wallets and markets the ledger changed when (migrations/0042, written by the ledger since 0067). */
const TOUCHES_TABLE = 'trader_touches';
/** The last batch's rows (JSONCompactEachRow lines), inserted again when a ledger starts (migrations/0079). */
const JOURNAL_TABLE = 'ledger_journal';
/** Redemptions applied before their market's payout was known (migrations/0080). */
const UNPRICED_TABLE = 'position_redemptions_unpriced';
/** Payouts of resolutions this ledger read, kept until the sink's chain_resolutions holds them (bounded: oldest dropped). */
const RESOLVED_LIMIT = 50_000;

export class PositionLedger {
  readonly stats: LedgerStats = {
    applied: 0,
    skipped_already_applied: 0,
    skipped_covered_by_chain: 0,
    rewinds: 0,
    unresolved_legs: 0,
    state_cache_hits: 0,
    state_lookups: 0,
    state_lookup_ms: 0,
    stored_rows_cached: 0,
    touch_failures: 0,
    transfers_uncovered: 0,
    relinked_rewinds: 0,
    relinks_beyond_bound: 0,
    redemptions_repriced: 0,
    journal_replays: 0,
    journal_replay_failures: 0,
  };
  /** (wallet, market) touches not written yet: a failed write's, kept for the next batch. */
  private readonly untouched = new Map<string, { wallet: string; market_id: string }>();
  /** States as stored; only updated after an insert succeeded. */
  private readonly cache = new Map<string, KeyState>();
  private readonly cacheLimit: number;
  /**
   * Every stored row of recently changed (wallet, token)s, as a read of the table would return them;
   * only updated after an insert succeeded. With the Data API's fast path and the chain source both on,
   * nearly every chain fill replaces the Data API row of the same trade, applied a batch or two
   * before, which rewinds its key and needs the key's rows: kept here, they cost no read per replaced
   * fill (docs/POSITIONS.md "The ledger and its consumer"). Like `cache`, it assumes one consumer writes the ledger.
   */
  private readonly rowCache: RowCache;
  /** Keys that may have a stored state: the others need no lookup (key-filter.ts). */
  readonly keys: KeyFilter;
  private dataApiRows: boolean | null = null;
  private replayed: Promise<void> | null = null;
  /** Whether ledger_journal may hold a batch (read at the replay, then known from the writes). */
  private journalHolds = false;
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * Payouts of the resolutions this ledger has read (applyResolutions). The sink writes chain_resolutions
   * from the same topic on its own schedule: a redemption applied after this ledger read its market's
   * resolution is priced by it even when that table does not hold it yet.
   */
  private readonly resolved = new Map<string, Payout>();

  constructor(
    private readonly store: AnalyticsStore,
    options: { cacheLimit?: number; keyFilterMaxKeys?: number; rowCacheLimit?: number } = {},
  ) {
    this.cacheLimit = options.cacheLimit ?? 500_000;
    this.rowCache = new RowCache(options.rowCacheLimit ?? 20_000);
    this.keys = new KeyFilter(store, options.keyFilterMaxKeys);
  }

  /** Applies a batch and inserts its rows; batches run one at a time (the chain and Data API partitions share wallets). */
  apply(events: LedgerEvent[], dedupToken?: string): Promise<number> {
    const run = this.queue.then(() => this.applyNow(events, dedupToken));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Resolutions read from the chain: each market's payout prices its redemptions from now on, and the
   * redemptions applied before it was known (priced from what they paid and the shares held then, a
   * guess: docs/POSITIONS.md "Redemptions") are priced again by it. A retracted resolution's payout is forgotten.
   */
  applyResolutions(resolutions: Array<{ marketId: string; payout: Payout | null }>, dedupToken?: string): Promise<number> {
    const run = this.queue.then(() => this.repriceNow(resolutions, dedupToken));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async repriceNow(resolutions: Array<{ marketId: string; payout: Payout | null }>, dedupToken?: string): Promise<number> {
    for (const { marketId, payout } of resolutions) {
      this.resolved.delete(marketId);
      if (payout) this.resolved.set(marketId, payout);
    }
    for (const marketId of this.resolved.keys()) {
      if (this.resolved.size <= RESOLVED_LIMIT) break;
      this.resolved.delete(marketId);
    }
    const ids = resolutions.filter((r) => r.payout).map((r) => r.marketId);
    if (ids.length === 0) return 0;
    const unpriced = await this.store.query<UnpricedRedemption>(
      `SELECT market_id, wallet, event_id, asset_id FROM ${UNPRICED_TABLE} FINAL WHERE market_id IN {ids:Array(String)} AND priced = 0`,
      { ids },
    );
    if (unpriced.length === 0) return 0;
    this.replayed ??= this.replayJournal();
    await this.replayed;
    const written = await this.write(dedupToken, async (batch) => {
      await batch.reprice(unpriced);
    });
    // After the ledger's insert: a batch that failed before it leaves them to be priced at the redelivery.
    await this.store.insert(
      UNPRICED_TABLE,
      unpriced.map((r) => ({ ...r, priced: 1, at: iso(Date.now()) })),
    );
    this.stats.redemptions_repriced += unpriced.length;
    return written;
  }

  private async applyNow(events: LedgerEvent[], dedupToken?: string): Promise<number> {
    if (events.length === 0) return 0;
    this.replayed ??= this.replayJournal();
    await this.replayed;
    return this.write(dedupToken, async (batch) => {
      void this.keys.refresh();
      await batch.prepare(events, () => this.hasDataApiRows());
      for (const event of events) {
        const reading = batch.applyEvent(event);
        if (reading) await reading;
      }
      await batch.applyDeferred();
    });
  }

  /** Runs one batch and stores what it wrote: its unpriced redemptions, the journal, its rows, its touches. */
  private async write(dedupToken: string | undefined, run: (batch: Batch) => Promise<void>): Promise<number> {
    const batch = new Batch(this.store, this.cache, this.rowCache, this.keys, this.stats, this.resolved);
    try {
      await run(batch);
      const rows = batch.rows;
      // Before the rows: a redemption whose rows are stored is always found again by its resolution.
      if (batch.unpriced.size > 0)
        await this.store.insert(
          UNPRICED_TABLE,
          [...batch.unpriced.values()].map((r) => ({ ...r, priced: 0, at: iso(Date.now()) })),
        );
      // Before the insert: if it fails halfway, the keys it may have stored are in the filter already.
      // Every row's key has a state in the batch (append and rewind set it), each added once.
      for (const key of batch.states.keys()) this.keys.add(key);
      if (rows.length > 0) {
        // Each row serialised once, as a JSONCompactEachRow line (no key repeated on every row): the
        // same text is the journal's and the insert's.
        const lines = rows.map(encodeRow).join('\n');
        // Journalled first: a process killed between the ledger's part and its views' leaves the
        // journal to complete them at the next start (replayJournal).
        // A batch without a token (tests, benches) empties it: replayed, its rows would count twice.
        if (dedupToken || this.journalHolds)
          await this.store.insert(JOURNAL_TABLE, [
            dedupToken ? { slot: 0, token: `${dedupToken}-ledger`, rows: lines } : { slot: 0, token: '', rows: '' },
          ]);
        this.journalHolds = dedupToken !== undefined;
        await this.store.insertJsonLines(LEDGER_TABLE, lines, {
          columns: LEDGER_COLUMNS,
          fanOut: true,
          ...(dedupToken ? { dedupToken: `${dedupToken}-ledger` } : {}),
        });
      }
      await this.touch(rows);
      if (rows.some((r) => r.origin === 'data_api')) this.dataApiRows = true;
      for (const [key, state] of batch.states) this.cache.set(key, state);
      if (this.cache.size > this.cacheLimit) this.cache.clear();
      batch.storedAfter(this.rowCache);
      return rows.length;
    } catch (error) {
      // The batch is handed over again: states and rows are read back from what was stored.
      this.cache.clear();
      this.rowCache.clear();
      throw error;
    }
  }

  /**
   * Notes the (wallet, market)s the batch wrote in trader_touches, after its insert returned: the
   * snapshot refresher and the valuation pass rebuild what is touched, and a touch must not be
   * visible before the rows it stands for. A view over the ledger would stamp it inside the insert,
   * before the insert's other views had written their rows: a snapshot rebuilt from that touch could
   * miss the change yet store progress past it, and no later run would rebuild it.
   * A failed write is not the batch's failure (its rows are stored): its touches go with the next one.
   */
  private async touch(rows: LedgerRow[]): Promise<void> {
    for (const r of rows) this.untouched.set(`${r.wallet}|${r.market_id}`, { wallet: r.wallet, market_id: r.market_id });
    if (this.untouched.size === 0) return;
    const touched_at = iso(Date.now());
    const touches = [...this.untouched.values()].map((t) => ({ touched_at, ...t }));
    try {
      await this.store.insert(TOUCHES_TABLE, touches);
      this.untouched.clear();
    } catch {
      this.stats.touch_failures += 1;
    }
  }

  /**
   * Inserts the last journalled batch again, with its token, before the first batch of this run. If
   * the process that wrote it died between the ledger's part and its views', the views that lack it
   * get it (deduplicate_blocks_in_dependent_materialized_views); the tables that have it drop it (each
   * has a deduplication window, migrations/0079). The batch's redelivery then finds its changes
   * applied. A batch that was never inserted is inserted: its redelivery finds them applied too.
   */
  private async replayJournal(): Promise<void> {
    try {
      const [last] = await this.store.query<{ token: string; rows: string }>(`SELECT token, rows FROM ${JOURNAL_TABLE} WHERE slot = 0`);
      if (!last || last.token === '') return;
      this.journalHolds = true;
      // JSONCompactEachRow lines (encodeRow); a journal written before them holds a JSON array of rows.
      const rows = last.rows.startsWith('[{') ? (JSON.parse(last.rows) as LedgerRow[]) : last.rows.split('\n').map(decodeRow);
      // The filter must hold every stored key before the insert, as for any batch.
      for (const r of rows) this.keys.add(keyOf(r.wallet, r.asset_id));
      await this.store.insert(LEDGER_TABLE, rows, { fanOut: true, dedupToken: last.token });
      await this.touch(rows);
      this.stats.journal_replays += 1;
    } catch {
      // Counted (tapeline_position_ledger_figure{figure="journal_replay_failures"}), never a stall: the ledger goes on.
      this.stats.journal_replay_failures += 1;
    }
  }

  private async hasDataApiRows(): Promise<boolean> {
    if (this.dataApiRows === null) {
      const [row] = await this.store.query<{ n: string }>(`SELECT count() AS n FROM ${LEDGER_TABLE} WHERE origin = 'data_api' LIMIT 1`);
      this.dataApiRows = Number(row?.n ?? 0) > 0;
    }
    return this.dataApiRows;
  }
}
