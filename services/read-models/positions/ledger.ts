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
 * bounded); a market's resolution, the chain's or the catalog's (the chain's preferred), re-prices the
 * redemptions applied before its payout was known.
 *
 * Modules: this file queues batches and stores what each wrote (rows, journal, touches, unpriced
 * redemptions); ledger-batch.ts applies a batch (appends, rewinds, re-pricings); ledger-legs.ts turns
 * an event into legs; ledger-rows.ts is the row shape and its codec; ledger-linked.ts rebuilds a
 * transfer, conversion or redemption from its rows; ledger-loaders.ts holds the batch's reads.
 */
import type { Logger } from '../../logger.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { iso } from '../../shared/time.js';
import { KeyFilter } from './key-filter.js';
import type { LedgerEvent } from './ledger-events.js';
import { Batch, type LedgerStats } from './ledger-batch.js';
import { keyOf, type Payout, type UnpricedRedemption } from './ledger-legs.js';
import { type KeyState, type KnownPayouts, readPayouts } from './ledger-loaders.js';
import { type CatalogPayout, formatPayout, type PayoutSource, samePayout } from './ledger-payouts.js';
import { RowCache } from './ledger-row-cache.js';
import { decodeRow, encodeRow, LEDGER_COLUMNS, LEDGER_TABLE, type LedgerRow } from './ledger-rows.js';

/** Which wallets and markets the ledger changed when (migrations/0042, written by the ledger since 0067). */
const TOUCHES_TABLE = 'trader_touches';
/** The last batch's rows (JSONCompactEachRow lines), inserted again when a ledger starts (migrations/0079). */
const JOURNAL_TABLE = 'ledger_journal';
/** Redemptions applied before their market's payout was known (migrations/0080). */
const UNPRICED_TABLE = 'position_redemptions_unpriced';
/** How far each partition of the chain ledger topic is applied (migrations/0087). */
const WATERMARKS_TABLE = 'ledger_watermarks';
/** Payouts of resolutions this ledger read, kept until the sink's chain_resolutions holds them (bounded: oldest dropped). */
const RESOLVED_LIMIT = 50_000;

/** Notes a market's payout (null: forgets it), dropping the oldest beyond RESOLVED_LIMIT. */
function remember<T>(known: Map<string, T>, marketId: string, value: T | null): void {
  known.delete(marketId);
  if (value) known.set(marketId, value);
  for (const id of known.keys()) {
    if (known.size <= RESOLVED_LIMIT) break;
    known.delete(id);
  }
}

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
    stored_rows_read: 0,
    stored_row_reads: 0,
    stored_row_read_ms: 0,
    touch_failures: 0,
    transfers_uncovered: 0,
    relinked_rewinds: 0,
    relinks_beyond_bound: 0,
    redemptions_repriced: 0,
    resolution_payout_disagreements: 0,
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
  /** Payouts of the catalog's resolutions this ledger has read (applyCatalogResolutions), for the same reason. */
  private readonly catalogResolved = new Map<string, CatalogPayout>();
  private readonly known: KnownPayouts = { chain: this.resolved, catalog: this.catalogResolved };
  /** Markets whose chain and catalog payouts were found to differ (counted and logged once each; bounded). */
  private readonly disagreed = new Set<string>();
  /** Where failures that are counted and not thrown are logged (absent in tests and benches: counted only). */
  private logger: Logger | null = null;
  /** When the last failed touches write was logged (at most one line a minute: one can fail per batch). */
  private touchFailureLoggedMs = 0;

  constructor(
    private readonly store: AnalyticsStore,
    options: { cacheLimit?: number; keyFilterMaxKeys?: number; rowCacheLimit?: number } = {},
  ) {
    this.cacheLimit = options.cacheLimit ?? 500_000;
    this.rowCache = new RowCache(options.rowCacheLimit ?? 20_000);
    this.keys = new KeyFilter(store, options.keyFilterMaxKeys);
  }

  /** Logs the failures the ledger counts and goes on after (a journal replay's, a touches write's). */
  useLogger(logger: Logger): void {
    this.logger = logger;
  }

  /**
   * Applies a batch and inserts its rows; batches run one at a time (the chain and Data API partitions
   * share wallets). Once `signal` aborts (its consumer stops) the batch gives up before it writes,
   * rejecting with the signal's reason: it is handed over again at the next start.
   */
  apply(events: LedgerEvent[], dedupToken?: string, signal?: AbortSignal): Promise<number> {
    const run = this.queue.then(() => this.applyNow(events, dedupToken, signal));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * The chain source's watermarks of a batch, once its changes are stored (`apply` returned): the
   * ledger then holds every chain change of the watermark's partition up to its block. The lowest over
   * the partitions is the ledger's data_as_of (queries.ts).
   */
  async noteWatermarks(marks: ReadonlyArray<{ group: string; block: number; timeMs: number }>): Promise<void> {
    const newest = new Map<string, { block: number; timeMs: number }>();
    for (const mark of marks) if ((newest.get(mark.group)?.block ?? -1) < mark.block) newest.set(mark.group, mark);
    if (newest.size === 0) return;
    await this.store.insert(
      WATERMARKS_TABLE,
      [...newest].map(([group, mark]) => ({ ledger_group: group, block_number: mark.block, block_time: iso(mark.timeMs) })),
    );
  }

  /**
   * Resolutions read from the chain: each market's payout prices its redemptions from now on, and the
   * redemptions applied before it was known (priced from what they paid and the shares held then, a
   * guess: docs/POSITIONS.md "Redemptions") are priced again by it. A retracted resolution's payout is forgotten.
   */
  applyResolutions(
    resolutions: Array<{ marketId: string; payout: Payout | null }>,
    dedupToken?: string,
    signal?: AbortSignal,
  ): Promise<number> {
    return this.learnPayouts('chain', resolutions, dedupToken, signal);
  }

  /**
   * Resolutions read from the catalog (Gamma's outcome prices, the CLOB's winner), in the order of the
   * token ids each names: the same as the chain's, for the markets whose ConditionResolution the chain
   * source never read (it predates its coverage).
   */
  applyCatalogResolutions(
    resolutions: Array<{ marketId: string; payout: Payout | null; tokenIds: string[] }>,
    dedupToken?: string,
    signal?: AbortSignal,
  ): Promise<number> {
    return this.learnPayouts('catalog', resolutions, dedupToken, signal);
  }

  /**
   * A market's payout became known, from the chain or the catalog: the redemptions priced before it
   * was are priced again (one path, whoever learnt it). When both are known and differ the chain's
   * prices them: the CTF pays by its numerators, and Gamma's outcome prices are a copy of them
   * (rounded, and for a market the catalog has wrong, wrong). Redemptions the catalog priced are noted
   * as such (priced = 2), so a differing chain resolution read later prices them again.
   */
  private learnPayouts(
    from: PayoutSource,
    resolutions: Array<{ marketId: string; payout: Payout | null; tokenIds?: string[] }>,
    dedupToken?: string,
    signal?: AbortSignal,
  ): Promise<number> {
    const run = this.queue.then(() => this.repriceNow(from, resolutions, dedupToken, signal));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async repriceNow(
    from: PayoutSource,
    resolutions: Array<{ marketId: string; payout: Payout | null; tokenIds?: string[] }>,
    dedupToken?: string,
    signal?: AbortSignal,
  ): Promise<number> {
    // Before anything is remembered: given up, the batch comes again and learns it then.
    signal?.throwIfAborted();
    for (const { marketId, payout, tokenIds } of resolutions) {
      if (from === 'chain') remember(this.resolved, marketId, payout);
      else remember(this.catalogResolved, marketId, payout ? { payout, tokenIds: tokenIds ?? [] } : null);
    }
    const ids = [...new Set(resolutions.filter((r) => r.payout).map((r) => r.marketId))];
    if (ids.length === 0) return 0;
    const payouts = await readPayouts(this.store, ids, this.known);
    // Catalog-priced redemptions of a market whose chain payout differs: the chain's prices them again.
    // Of a market only the catalog resolved, those priced by another catalog payout than its current
    // one (Gamma corrected it): the current one prices them again.
    const recheck: string[] = [];
    const catalogIds: string[] = [];
    const catalogPayouts: string[] = [];
    for (const [id, p] of payouts) {
      if (!p.chain && p.catalog) {
        catalogIds.push(id);
        catalogPayouts.push(formatPayout(p.catalog));
      }
      if (!p.chain || !p.catalog || samePayout(p.chain, p.catalog)) continue;
      recheck.push(id);
      this.disagreement(id, p.chain, p.catalog);
    }
    const unpriced = await this.store.query<UnpricedRedemption>(
      `SELECT market_id, wallet, event_id, asset_id FROM ${UNPRICED_TABLE} FINAL
        WHERE market_id IN {ids:Array(String)}
          AND (priced = 0
               OR (priced = 2 AND (has({recheck:Array(String)}, market_id)
                                   OR (has({catalogIds:Array(String)}, market_id)
                                       AND payout != {catalogPayouts:Array(String)}[indexOf({catalogIds:Array(String)}, market_id)]))))`,
      { ids, recheck, catalogIds, catalogPayouts },
    );
    if (unpriced.length === 0) return 0;
    this.replayed ??= this.replayJournal();
    await this.replayed;
    const written = await this.write(dedupToken, signal, async (batch) => {
      await batch.reprice(unpriced);
    });
    // After the ledger's insert: a batch that failed before it leaves them to be priced at the redelivery.
    await this.store.insert(
      UNPRICED_TABLE,
      unpriced.map((r) => {
        const p = payouts.get(r.market_id);
        const pricedBy = !p?.chain && p?.catalog ? { priced: 2, payout: formatPayout(p.catalog) } : { priced: 1, payout: '' };
        return { ...r, ...pricedBy, at: iso(Date.now()) };
      }),
    );
    this.stats.redemptions_repriced += unpriced.length;
    return written;
  }

  /** Counted once per market (`resolution_payout_disagreements`) and logged once: the chain's payout prices it. */
  private disagreement(marketId: string, chain: Payout, catalog: Payout): void {
    if (this.disagreed.has(marketId)) return;
    if (this.disagreed.size >= RESOLVED_LIMIT) this.disagreed.clear();
    this.disagreed.add(marketId);
    this.stats.resolution_payout_disagreements += 1;
    this.logger?.warn(
      { market_id: marketId, chain_payout: formatPayout(chain), catalog_payout: formatPayout(catalog) },
      "the chain's and the catalog's payouts of a market differ: its redemptions are priced by the chain's",
    );
  }

  private async applyNow(events: LedgerEvent[], dedupToken?: string, signal?: AbortSignal): Promise<number> {
    if (events.length === 0) return 0;
    signal?.throwIfAborted();
    this.replayed ??= this.replayJournal();
    await this.replayed;
    return this.write(dedupToken, signal, async (batch) => {
      void this.keys.refresh();
      await batch.prepare(events, () => this.hasDataApiRows());
      for (const event of events) {
        const reading = batch.applyEvent(event);
        if (reading) {
          await reading;
          signal?.throwIfAborted();
        }
      }
      await batch.applyDeferred();
    });
  }

  /**
   * Runs one batch and stores what it wrote: its unpriced redemptions, the journal, its rows, its
   * touches. A stop (`signal`) gives up while the batch reads, never once it has started to write.
   */
  private async write(
    dedupToken: string | undefined,
    signal: AbortSignal | undefined,
    run: (batch: Batch) => Promise<void>,
  ): Promise<number> {
    const batch = new Batch(this.store, this.cache, this.rowCache, this.keys, this.stats, this.known, signal);
    try {
      await run(batch);
      signal?.throwIfAborted();
      const rows = batch.rows;
      // Before the rows: a redemption whose rows are stored is always found again by its resolution.
      if (batch.unpriced.size > 0)
        await this.store.insert(
          UNPRICED_TABLE,
          [...batch.unpriced.values()].map((r) => ({ ...r, priced: r.priced ?? 0, payout: r.payout ?? '', at: iso(Date.now()) })),
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
    } catch (error) {
      this.stats.touch_failures += 1;
      if (Date.now() - this.touchFailureLoggedMs >= 60_000) {
        this.touchFailureLoggedMs = Date.now();
        this.logger?.warn(
          { err: error, pending_touches: this.untouched.size, touch_failures: this.stats.touch_failures },
          'writing trader_touches failed: its touches go with the next batch (logged at most once a minute)',
        );
      }
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
    let token = '';
    try {
      const [last] = await this.store.query<{ token: string; rows: string }>(`SELECT token, rows FROM ${JOURNAL_TABLE} WHERE slot = 0`);
      if (!last || last.token === '') return;
      token = last.token;
      this.journalHolds = true;
      // JSONCompactEachRow lines (encodeRow); a journal written before them holds a JSON array of rows.
      const rows = last.rows.startsWith('[{') ? (JSON.parse(last.rows) as LedgerRow[]) : last.rows.split('\n').map(decodeRow);
      // The filter must hold every stored key before the insert, as for any batch.
      for (const r of rows) this.keys.add(keyOf(r.wallet, r.asset_id));
      await this.store.insert(LEDGER_TABLE, rows, { fanOut: true, dedupToken: last.token });
      await this.touch(rows);
      this.stats.journal_replays += 1;
    } catch (error) {
      // Counted (tapeline_position_ledger_figure{figure="journal_replay_failures"}), never a stall: the ledger goes on.
      // Once per run (the replay runs before the first batch only), so every failure is logged.
      this.stats.journal_replay_failures += 1;
      this.logger?.warn(
        { err: error, journal_token: token || null },
        "replaying the ledger's journal failed: a batch a previous run stored halfway may miss some of its views",
      );
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
