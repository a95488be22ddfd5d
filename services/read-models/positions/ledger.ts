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
 * changes what a transfer's sender or a conversion's NO leg took out re-prices that event's legs on
 * its other keys (`applyRelinks`, bounded).
 */
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { readCoverage } from '../chain-ledger/queries.js';
import { comparePositions, type ConversionQuestion, type EventMeta, type LedgerEvent, type LedgerPosition } from './ledger-events.js';
import { applyLeg, divRound, EMPTY_STATE, inferPayout, type LegAction, maxBig, minBig, type PositionState } from './ledger-math.js';
import { iso } from '../../shared/time.js';
import { feeBipsFor } from '../../chain/conversion-evidence.js';
import { KeyFilter } from './key-filter.js';

const LEDGER_TABLE = 'position_ledger';
/** Which wallets and markets the ledger changed when (migrations/0042, written by the ledger since 0067). */
const TOUCHES_TABLE = 'trader_touches';
/** The last batch's rows, inserted again when a ledger starts (migrations/0079). */
const JOURNAL_TABLE = 'ledger_journal';
/** Redemptions applied before their market's payout was known (migrations/0080). */
const UNPRICED_TABLE = 'position_redemptions_unpriced';
/** Payouts of resolutions this ledger read, kept until the sink's chain_resolutions holds them (bounded: oldest dropped). */
const RESOLVED_LIMIT = 50_000;

/** A row of position_ledger (columns in migrations/0041_position_ledger.sql). */
export interface LedgerRow {
  wallet: string;
  asset_id: string;
  market_id: string;
  outcome: string;
  outcome_index: number;
  time: string;
  block_number: number;
  log_index: number;
  event_id: string;
  rev: number;
  sign: number;
  of_rev: number;
  origin: string;
  source: string;
  kind: string;
  role: string;
  action: string;
  tx_hash: string;
  block_hash: string;
  ledger_group: string;
  in_qty: string;
  in_usdc: string;
  pay_num: string;
  pay_den: string;
  fee_micro: string;
  price: number;
  qty_delta: string;
  cash: string;
  realized: string;
  volume: string;
  trades: number;
  qty_after: string;
  cost_after: string;
  opened_at: string;
  /** A transfer's other wallet (migrations/0068); empty on other rows. */
  counterparty: string;
  /** A conversion leg's question index in its neg-risk market (migrations/0074); -1 on other rows. */
  question_index: number;
  /** A CTF redemption row: the collateral the whole redemption paid out, every leg's (migrations/0080); 0 on other rows. */
  paid_usdc: string;
}

interface Leg {
  meta: LedgerEvent;
  assetId: string;
  marketId: string;
  outcome: string;
  outcomeIndex: number;
  kind: string;
  role: string;
  action: LegAction;
  fee: bigint;
  price: number;
  volume: bigint;
  trades: number;
  /** A transfer's other wallet. */
  counterparty?: string;
  /** A conversion leg's question index. */
  questionIndex?: number;
  /** A CTF redemption leg: the collateral the whole redemption paid out (its legs are priced together from it). */
  paid?: bigint;
}

interface KeyState extends PositionState {
  rev: number;
  last: LedgerPosition | null;
}

export interface LedgerStats {
  applied: number;
  skipped_already_applied: number;
  skipped_covered_by_chain: number;
  rewinds: number;
  unresolved_legs: number;
  /** Keys whose state came from the in-memory cache. */
  state_cache_hits: number;
  /**
   * Keys whose state was read from position_head, and the ms those reads took: the part of the
   * ledger's cost that grows with the store (bench:scale reports them).
   */
  state_lookups: number;
  state_lookup_ms: number;
  /** Keys whose stored rows (for a rewind or a redelivered change) were known without a read. */
  stored_rows_cached: number;
  /** Writes of trader_touches that failed (their touches go with the next batch's). */
  touch_failures: number;
  /** Transfers whose sender held fewer shares than it sent (history not covered): the rest moved at cost 0. */
  transfers_uncovered: number;
  /** Rewinds of a key whose leg of a transfer or conversion was re-priced by a rewind of another key. */
  relinked_rewinds: number;
  /** Re-pricings not made: past the depth or the per-batch count of cross-key rewinds (those legs keep their price). */
  relinks_beyond_bound: number;
  /** Redemptions applied before their market's payout was known, priced again when its resolution was read. */
  redemptions_repriced: number;
  /** The last batch of a previous run inserted again at start (each view that lacked it gets it), and failures to. */
  journal_replays: number;
  journal_replay_failures: number;
}

/** How far a re-pricing follows transfers and conversions from key to key, and how many rewinds it makes per batch. */
const RELINK_MAX_DEPTH = 16;
const RELINK_MAX_PER_BATCH = 5_000;

export interface Payout {
  num: bigint[];
  den: bigint;
}

interface MarketInfo {
  outcomes: string[];
  tokenIds: string[];
  payout: Payout | null;
}

/** A redemption applied before its market's payout was known, re-priced when the resolution arrives (migrations/0080). */
interface UnpricedRedemption {
  market_id: string;
  wallet: string;
  event_id: string;
  asset_id: string;
}

/** NegRiskAdapter.FEE_DENOMINATOR: a market's conversion fee is in basis points. */
const FEE_DENOMINATOR = 10_000n;

const keyOf = (wallet: string, assetId: string) => `${wallet}|${assetId}`;
/** The state of a (wallet, token) never held. States are replaced, never changed, so one object serves every such key. */
const NEVER_HELD: KeyState = Object.freeze({ ...EMPTY_STATE, rev: 0, last: null });
const actionName = (a: LegAction) => a.side;

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
        // Journalled first: a process killed between the ledger's part and its views' leaves the
        // journal to complete them at the next start (replayJournal).
        // A batch without a token (tests, benches) empties it: replayed, its rows would count twice.
        if (dedupToken || this.journalHolds)
          await this.store.insert(JOURNAL_TABLE, [
            dedupToken ? { slot: 0, token: `${dedupToken}-ledger`, rows: JSON.stringify(rows) } : { slot: 0, token: '', rows: '' },
          ]);
        this.journalHolds = dedupToken !== undefined;
        await this.store.insert(LEDGER_TABLE, rows, { fanOut: true, ...(dedupToken ? { dedupToken: `${dedupToken}-ledger` } : {}) });
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
      const rows = JSON.parse(last.rows) as LedgerRow[];
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

class Batch {
  readonly rows: LedgerRow[] = [];
  readonly states = new Map<string, KeyState>();
  private readonly pending = new Map<string, LedgerRow[]>();
  private readonly isoTexts = new Map<number, string>();
  private readonly deferred = new Map<string, { added: Leg[]; removed: Set<string> }>();
  private readonly stored = new Map<string, LedgerRow[]>();
  /** Keys known to have no stored row (not in the key filter, or no state in position_head). */
  private readonly neverStored = new Set<string>();
  private readonly markets = new Map<string, MarketInfo>();
  /** Catalog questions of conversions published without their own (before the chain source read them). */
  private readonly negRisk = new Map<string, ConversionQuestion[]>();
  private coverage: { firstMs: number; lastMs: number } | null = null;
  /** Data API records superseded by a chain record of the same transaction, wallet and token. */
  private readonly chainTx = new Set<string>();
  private readonly dataApiTwins = new Map<string, Array<{ wallet: string; asset_id: string; event_id: string }>>();
  private readonly retracted = new Map<string, Array<{ wallet: string; asset_id: string; event_id: string }>>();
  /**
   * Each event's keys, built once: prepare and applyEvent look them up in several maps, and a key
   * built anew is a new string each time, hashed again (a fill's key is about 120 characters).
   */
  private readonly eventKeys = new Map<LedgerEvent, string[]>();
  /**
   * Transfers and conversions whose source leg (a transfer's sender, a conversion's NO legs) a rewind
   * replayed at another cost: their legs on the other keys are re-priced after the batch's rewinds.
   */
  private readonly relinks: Array<{ eventId: string; key: string; depth: number }> = [];
  private readonly relinkQueued = new Set<string>();
  /** The keys this batch wrote a row of each conversion or redemption on (wallet|event id): a re-pricing finds its legs by them and the stored rows. */
  private readonly groupKeys = new Map<string, Set<string>>();
  private relinkRewinds = 0;
  /** Redemptions this batch priced without their market's payout (wallet|event id), stored for their resolution to re-price. */
  readonly unpriced = new Map<string, UnpricedRedemption>();

  constructor(
    private readonly store: AnalyticsStore,
    private readonly cache: Map<string, KeyState>,
    private readonly rowCache: RowCache,
    private readonly keys: KeyFilter,
    private readonly stats: LedgerStats,
    private readonly resolved: ReadonlyMap<string, Payout>,
  ) {}

  /** Prices these redemptions again (their markets' payouts are known now), as a rewind that changed their holdings does. */
  async reprice(redemptions: UnpricedRedemption[]): Promise<void> {
    for (const r of redemptions) this.queueRelink(r.event_id, keyOf(r.wallet, r.asset_id), 0);
    await this.applyRelinks();
  }

  /**
   * After the insert: the stored rows of each key this batch gave a Data API row, when they were
   * known before it (those keys are the ones a chain twin will rewind). Other keys leave the cache:
   * a bulk load of chain fills keeps nothing.
   */
  storedAfter(cache: RowCache): void {
    for (const [key, rows] of this.pending) {
      const before = rows.some((r) => r.origin === 'data_api' && r.sign > 0)
        ? (this.stored.get(key) ?? cache.get(key) ?? (this.neverStored.has(key) ? [] : undefined))
        : undefined;
      if (before) cache.set(key, [...before, ...rows]);
      else cache.delete(key);
    }
  }

  async prepare(events: LedgerEvent[], hasDataApiRows: () => Promise<boolean>): Promise<void> {
    // One pass sorts the batch out (nearly always chain fills only, which need none of the reads below).
    const marketIds = new Set<string>();
    const negRiskIds = new Set<string>();
    const dataApi: LedgerEvent[] = [];
    const chain: LedgerEvent[] = [];
    const retractions: Array<Extract<LedgerEvent, { kind: 'block_retracted' }>> = [];
    for (const e of events) {
      if (e.kind === 'block_retracted') retractions.push(e);
      else if (e.origin === 'data_api') dataApi.push(e);
      else if (e.origin === 'chain') chain.push(e);
      if (e.kind === 'split' || e.kind === 'merge' || e.kind === 'redemption') marketIds.add(e.marketId);
      else if (e.kind === 'conversion' && e.questions.length === 0) negRiskIds.add(e.negRiskMarketId);
    }
    await this.loadMarkets([...marketIds]);
    await this.loadNegRisk([...negRiskIds]);
    if (dataApi.length > 0) {
      this.coverage = await readCoverage(this.store);
      const txs = [...new Set(dataApi.map((e) => e.txHash))];
      const rows = await this.store.query<{ wallet: string; asset_id: string; tx_hash: string }>(
        `SELECT wallet, asset_id, tx_hash FROM ${LEDGER_TABLE} WHERE origin = 'chain' AND tx_hash IN {txs:Array(String)}
          GROUP BY wallet, asset_id, tx_hash, event_id, rev HAVING sum(sign) > 0`,
        { txs },
      );
      for (const r of rows) this.chainTx.add(`${r.tx_hash}|${r.wallet}|${r.asset_id}`);
    }
    if (chain.length > 0 && (await hasDataApiRows())) {
      const txs = [...new Set(chain.map((e) => e.txHash))];
      const rows = await this.store.query<{ wallet: string; asset_id: string; tx_hash: string; event_id: string }>(
        `SELECT wallet, asset_id, tx_hash, event_id FROM ${LEDGER_TABLE}
          WHERE origin = 'data_api' AND tx_hash IN {txs:Array(String)} GROUP BY wallet, asset_id, tx_hash, event_id, of_rev HAVING sum(sign) > 0`,
        { txs },
      );
      for (const r of rows) {
        const list = this.dataApiTwins.get(`${r.tx_hash}|${r.wallet}`) ?? [];
        list.push(r);
        this.dataApiTwins.set(`${r.tx_hash}|${r.wallet}`, list);
      }
    }
    if (retractions.length > 0) {
      const voided = retractions.map((e) => `${e.blockHash}|${e.ledgerGroup}`);
      const rows = await this.store.query<{ wallet: string; asset_id: string; event_id: string; voided: string }>(
        `SELECT wallet, asset_id, event_id, concat(block_hash, '|', ledger_group) AS voided FROM ${LEDGER_TABLE}
          WHERE concat(block_hash, '|', ledger_group) IN {voided:Array(String)} GROUP BY wallet, asset_id, event_id, voided, of_rev HAVING sum(sign) > 0`,
        { voided },
      );
      for (const r of rows) this.retracted.set(r.voided, [...(this.retracted.get(r.voided) ?? []), r]);
    }
    await this.loadStates(events);
    // A redelivered or late change compares with its key's stored rows: read those of the whole batch
    // at once (a redelivery after kill -9 is thousands of them), not one query per key.
    const behind = new Set<string>();
    for (const e of events) {
      for (const key of this.keysOf(e)) {
        const last = this.states.get(key)?.last;
        if (last && comparePositions(e, last) <= 0) behind.add(key);
      }
    }
    await this.loadStoredRows([...behind]);
  }

  /**
   * Applies one change. Returns a promise only when it has to read stored rows (a retraction, or a
   * change not newer than its key's last): the batch awaits those, and nothing for the rest. Nearly
   * every change is appended, and an async call per change cost a promise and a turn of the
   * microtask queue each (about 5,000 a batch).
   */
  applyEvent(event: LedgerEvent): Promise<void> | undefined {
    if (event.kind === 'block_retracted') return this.applyRetraction(event);
    if (event.origin === 'data_api') {
      // Inside the chain's coverage the chain has every record (both sides, exact amounts). Newer than
      // it is the Data API fast path: applied now, replaced by its chain twin when the chain covers it.
      const c = this.coverage;
      if (c && event.timeMs >= c.firstMs && event.timeMs <= c.lastMs) {
        this.stats.skipped_covered_by_chain += 1;
        return undefined;
      }
    }
    // A redemption's, a conversion's and a transfer's legs are priced from the states of all their keys: first
    // settle the rewinds pending for those keys in this batch, so the states include every earlier change.
    if (
      (event.kind === 'redemption' || event.kind === 'conversion' || event.kind === 'transfer') &&
      this.keysOf(event).some((key) => this.deferred.has(key))
    )
      return this.settleThenApply(event);
    return this.applyLegs(event, this.legsOf(event), 0);
  }

  private async settleThenApply(event: LedgerEvent): Promise<void> {
    const keys = this.keysOf(event).filter((key) => this.deferred.has(key));
    await this.loadStoredRows(keys);
    for (const key of keys) {
      const { added, removed } = this.deferred.get(key)!;
      this.deferred.delete(key);
      await this.rewind(key, added, removed);
    }
    await this.applyLegs(event, this.legsOf(event), 0);
  }

  private async applyRetraction(event: Extract<LedgerEvent, { kind: 'block_retracted' }>): Promise<void> {
    const voided = this.retracted.get(`${event.blockHash}|${event.ledgerGroup}`) ?? [];
    const byKey = new Map<string, Set<string>>();
    for (const row of voided)
      byKey.set(keyOf(row.wallet, row.asset_id), (byKey.get(keyOf(row.wallet, row.asset_id)) ?? new Set()).add(row.event_id));
    for (const [key, ids] of byKey) await this.rewind(key, [], ids);
  }

  /** Applies the event's legs from `from` on; at the first one not newer than its key's last, goes on asynchronously. */
  private applyLegs(event: LedgerEvent, legs: Leg[], from: number): Promise<void> | undefined {
    // A chain record replaces the Data API record of the same transaction, wallet and token.
    const twins =
      event.origin === 'chain' && event.kind !== 'transfer' && this.dataApiTwins.size > 0
        ? (this.dataApiTwins.get(`${event.txHash}|${event.wallet}`) ?? [])
        : [];
    for (let i = from; i < legs.length; i++) {
      const leg = legs[i]!;
      const key = event.kind === 'fill' ? this.keysOf(event)[0]! : keyOf(leg.meta.wallet, leg.assetId);
      if (event.origin === 'data_api' && this.chainTx.has(`${event.txHash}|${event.wallet}|${leg.assetId}`)) {
        this.stats.skipped_covered_by_chain += 1;
        continue;
      }
      this.noteInBatch(event, leg);
      const replaced = twins.filter((t) => t.asset_id === leg.assetId).map((t) => t.event_id);
      if (replaced.length > 0) {
        this.defer(key, leg, replaced);
        continue;
      }
      const state = this.stateOf(key);
      if (state.last === null || comparePositions(event, state.last) > 0) {
        this.append(key, leg);
        this.noteUncovered(key, leg);
        continue;
      }
      return this.applyBehind(event, legs, i, key);
    }
    return undefined;
  }

  /**
   * A trade's two records can arrive in one batch (the history fill reading the hours the Data API's
   * trades are in): prepare finds a twin only among stored rows, so each record applied here is noted
   * for the other. A chain leg makes a later Data API leg skip; a Data API leg is replaced by a later
   * chain leg (its rewind reads this batch's rows too).
   */
  private noteInBatch(event: LedgerEvent, leg: Leg): void {
    if (event.kind === 'transfer' || event.kind === 'block_retracted') return;
    if (event.origin === 'chain') this.chainTx.add(`${event.txHash}|${event.wallet}|${leg.assetId}`);
    else if (event.origin === 'data_api') {
      const twinKey = `${event.txHash}|${event.wallet}`;
      const list = this.dataApiTwins.get(twinKey) ?? [];
      list.push({ wallet: event.wallet, asset_id: leg.assetId, event_id: leg.meta.eventId });
      this.dataApiTwins.set(twinKey, list);
    }
  }

  /** A leg not newer than its key's last: skipped if already applied, else rewound after the batch; then the event's other legs. */
  private async applyBehind(event: LedgerEvent, legs: Leg[], index: number, key: string): Promise<void> {
    const live = await this.liveRows(key);
    if (live.some((r) => r.event_id === event.eventId)) this.stats.skipped_already_applied += 1;
    else this.defer(key, legs[index]!, []);
    await this.applyLegs(event, legs, index + 1);
  }

  /** Older than what is applied, or replacing a Data API twin: one rewind per (wallet, token) and batch, after its other changes. */
  private defer(key: string, leg: Leg, removed: string[]): void {
    const entry = this.deferred.get(key) ?? { added: [], removed: new Set<string>() };
    entry.added.push(leg);
    for (const id of removed) entry.removed.add(id);
    this.deferred.set(key, entry);
  }

  async applyDeferred(): Promise<void> {
    await this.loadStoredRows([...this.deferred.keys()]);
    for (const [key, { added, removed }] of this.deferred) await this.rewind(key, added, removed);
    this.deferred.clear();
    await this.applyRelinks();
  }

  /**
   * Cross-key rewinds. A transfer's receiver leg costs what the sender's leg took out, and a
   * conversion's YES legs (and the collateral realized on its first NO leg) what its NO legs took out.
   * When a rewind replayed such a source leg at another cost, the event's legs are computed again from
   * the states its keys had just before it, and every key whose leg differs from its live row is
   * rewound from that event on with the new leg (which may replay further transfers and conversions:
   * followed up to RELINK_MAX_DEPTH keys deep and RELINK_MAX_PER_BATCH rewinds a batch; beyond, the
   * legs keep the price they were applied at and `relinks_beyond_bound` counts them). A leg equal to
   * its row is left alone, so a redelivery, or a rewind that changed no cost, rewinds nothing more.
   */
  private async applyRelinks(): Promise<void> {
    while (this.relinks.length > 0) {
      const link = this.relinks.shift()!;
      this.relinkQueued.delete(`${link.eventId}|${link.key}`);
      if (link.depth > RELINK_MAX_DEPTH || this.relinkRewinds >= RELINK_MAX_PER_BATCH) {
        this.stats.relinks_beyond_bound += 1;
        continue;
      }
      const source = (await this.liveRows(link.key)).find((r) => r.event_id === link.eventId);
      if (!source) continue;
      const linked =
        source.kind === 'transfer_out'
          ? await this.transferOfRow(source)
          : source.kind === 'redemption'
            ? await this.redemptionOfRow(source)
            : await this.conversionOfRow(source);
      if (!linked) continue;
      const before = (key: string) => linked.before.get(key) ?? EMPTY_STATE;
      const e = linked.event;
      const legs =
        e.kind === 'transfer'
          ? this.transferLegs(e, before)
          : e.kind === 'redemption'
            ? this.redemptionLegs(e, before)
            : this.conversionLegs(e as Extract<LedgerEvent, { kind: 'conversion' }>, before);
      for (const leg of legs) {
        const key = keyOf(leg.meta.wallet, leg.assetId);
        const row = linked.rows.get(key);
        if (row && sameInput(leg, row)) continue;
        this.relinkRewinds += 1;
        this.stats.relinked_rewinds += 1;
        await this.rewind(key, [leg], new Set([link.eventId]), link.depth);
      }
    }
  }

  /** A transfer rebuilt from its sender's row, with its rows and each key's state just before it. */
  private async transferOfRow(source: LedgerRow): Promise<Linked | null> {
    if (source.counterparty === '') return null;
    const receiverKey = keyOf(source.counterparty, source.asset_id);
    const received = (await this.liveRows(receiverKey)).find((r) => r.event_id === source.event_id);
    const event: LedgerEvent = {
      ...metaOfRow(source),
      kind: 'transfer',
      to: source.counterparty,
      assetId: source.asset_id,
      outcome: source.outcome,
      outcomeIndex: Number(source.outcome_index),
      shares: BigInt(source.in_qty),
    };
    const senderKey = keyOf(source.wallet, source.asset_id);
    const rows = new Map<string, LedgerRow>([[senderKey, source]]);
    if (received) rows.set(receiverKey, received);
    return { event, rows, before: new Map([[senderKey, stateBefore(source)]]) };
  }

  /**
   * A conversion rebuilt from its rows (the wallet's rows of the event, stored or of this batch): the
   * neg-risk market is their ledger group, the amount their shares, its questions those with a row (a
   * NO leg, sell_at_cost, or a YES leg, buy; a question prepared after it has none), each at the
   * index its row holds. Not from the markets table: it may not list every question yet, and a question
   * missing there changed k and the YES legs' cost (docs/POSITIONS.md "Conversions").
   */
  private async conversionOfRow(source: LedgerRow): Promise<Linked | null> {
    const keys = await this.keysOfGroup(source.wallet, source.event_id);
    await this.loadStoredRows(keys);
    const rows = new Map<string, LedgerRow>();
    const before = new Map<string, PositionState>();
    for (const key of keys) {
      const row = (await this.liveRows(key)).find((r) => r.event_id === source.event_id);
      if (!row || (row.action !== 'buy' && row.action !== 'sell_at_cost')) continue;
      rows.set(key, row);
      before.set(key, stateBefore(row));
    }
    const indexOf = await this.questionIndices(source.ledger_group, [...rows.values()]);
    const own = [...rows.values()]
      .map((r): ConversionQuestion => {
        const outcomeIndex = Number(r.outcome_index);
        const yes = r.action === 'buy';
        return {
          index: indexOf(r),
          marketId: r.market_id,
          yesToken: yes ? r.asset_id : '',
          noToken: yes ? '' : r.asset_id,
          outcomes: outcomeIndex === 0 ? [r.outcome, ''] : ['', r.outcome],
          yesIndex: yes ? outcomeIndex : 1 - outcomeIndex,
        };
      })
      .sort((a, b) => a.index - b.index);
    const no = own.filter((q) => q.noToken !== '');
    if (no.length === 0) return null;
    const indexSet = no.reduce((set, q) => set | (1n << BigInt(q.index)), 0n);
    // Its fee is what its rows show: the YES legs hold amount - fee, the first NO leg (k - 1) x fee.
    const amount = BigInt(source.in_qty);
    const yesRow = [...rows.values()].find((r) => r.action === 'buy');
    const k = BigInt(no.length);
    const feeRow = [...rows.values()].find((r) => r.action === 'sell_at_cost' && BigInt(r.fee_micro) > 0n);
    const fee = yesRow ? amount - BigInt(yesRow.in_qty) : feeRow && k > 1n ? BigInt(feeRow.fee_micro) / (k - 1n) : 0n;
    const event: LedgerEvent = {
      ...metaOfRow(source),
      kind: 'conversion',
      negRiskMarketId: source.ledger_group,
      indexSet,
      amount,
      feeBips: BigInt(feeBipsFor(amount.toString(), (amount - fee).toString()) ?? 0),
      questions: own,
    };
    return { event, rows, before };
  }

  /**
   * A CTF redemption rebuilt from its rows (the wallet's rows of the event, stored or of this batch):
   * the outcomes it redeemed are those with a row, what it paid out the rows' `paid_usdc` (rows stored
   * before migrations/0080 hold 0 there: then the largest cap, which is what it paid whenever its
   * payout was not known, the only case whose price depends on the holdings). An adapter's redemption
   * (a sell of the amounts it names) does not depend on the holdings: never rebuilt.
   */
  private async redemptionOfRow(source: LedgerRow): Promise<Linked | null> {
    if (source.action !== 'sell_all') return null;
    const keys = await this.keysOfGroup(source.wallet, source.event_id);
    await this.loadStoredRows(keys);
    const rows = new Map<string, LedgerRow>();
    const before = new Map<string, PositionState>();
    for (const key of keys) {
      const row = (await this.liveRows(key)).find((r) => r.event_id === source.event_id);
      if (!row || row.kind !== 'redemption' || row.action !== 'sell_all') continue;
      rows.set(key, row);
      before.set(key, stateBefore(row));
    }
    if (!this.markets.has(source.market_id)) await this.loadMarkets([source.market_id]);
    const tokenIds = [...(this.markets.get(source.market_id)?.tokenIds ?? [])];
    for (const r of rows.values()) tokenIds[Number(r.outcome_index)] = r.asset_id;
    const own = [...rows.values()];
    const paid = own.reduce((max, r) => maxBig(max, BigInt(r.paid_usdc ?? 0)), 0n);
    const event: LedgerEvent = {
      ...metaOfRow(source),
      kind: 'redemption',
      amount: paid > 0n ? paid : own.reduce((max, r) => maxBig(max, BigInt(r.in_usdc)), 0n),
      indexSets: own.map((r) => String(1n << BigInt(r.outcome_index))),
      redeemed: [],
      tokenIds: Array.from(tokenIds, (id) => id ?? ''),
    };
    return { event, rows, before };
  }

  /** The (wallet, token)s with a row of a conversion or redemption: stored ones, and those this batch wrote. */
  private async keysOfGroup(wallet: string, eventId: string): Promise<string[]> {
    const stored = await this.store.query<{ asset_id: string }>(
      `SELECT DISTINCT asset_id FROM ${LEDGER_TABLE} WHERE wallet = {wallet:String} AND event_id = {eventId:String}`,
      { wallet, eventId },
    );
    const keys = new Set(stored.map((r) => keyOf(wallet, r.asset_id)));
    for (const key of this.groupKeys.get(`${wallet}|${eventId}`) ?? []) keys.add(key);
    return [...keys];
  }

  /**
   * Each conversion row's question index: the row's own, or for a row stored before migrations/0074,
   * the markets table's, failing that one after every known index (by token id): the index orders the
   * legs (the fee and collateral on the first NO leg, the YES cost's remainder on the first YES leg).
   */
  private async questionIndices(negRiskMarketId: string, rows: LedgerRow[]): Promise<(r: LedgerRow) => number> {
    const own = (r: LedgerRow) => Number(r.question_index ?? -1);
    const unindexed = rows.filter((r) => own(r) < 0);
    if (unindexed.length === 0) return own;
    const id = negRiskMarketId.toLowerCase();
    if (!this.negRisk.has(id)) await this.loadNegRisk([id]);
    const listed = new Map<string, number>();
    for (const q of this.negRisk.get(id) ?? []) listed.set(q.yesToken, q.index).set(q.noToken, q.index);
    const unlisted = unindexed
      .map((r) => r.asset_id)
      .filter((asset) => !listed.has(asset))
      .sort();
    return (r) => (own(r) >= 0 ? own(r) : (listed.get(r.asset_id) ?? 256 + unlisted.indexOf(r.asset_id)));
  }

  private stateOf(key: string): KeyState {
    return this.states.get(key) ?? NEVER_HELD;
  }

  /** The state a key has now in this batch, as a pricing input. */
  private readonly currentState = (key: string): PositionState => this.stateOf(key);

  /** This batch's rows of a (wallet, token) so far. */
  private pendingRows(key: string): LedgerRow[] {
    let rows = this.pending.get(key);
    if (!rows) {
      rows = [];
      this.pending.set(key, rows);
    }
    return rows;
  }

  private append(key: string, leg: Leg): void {
    if (leg.kind === 'conversion' || leg.kind === 'redemption') {
      const id = `${leg.meta.wallet}|${leg.meta.eventId}`;
      this.groupKeys.set(id, (this.groupKeys.get(id) ?? new Set()).add(key));
    }
    const state = this.stateOf(key);
    const effect = applyLeg(state, leg.action, leg.meta.timeMs);
    const rev = state.rev + 1;
    const row = this.row(leg, rev, 1, rev, effect, effect.state);
    this.rows.push(row);
    this.pendingRows(key).push(row);
    // A literal, not a spread of effect.state: this runs once per change.
    this.states.set(key, { qty: effect.state.qty, cost: effect.state.cost, openedMs: effect.state.openedMs, rev, last: leg.meta });
    this.stats.applied += 1;
  }

  /**
   * Re-derives a (wallet, token) from the earliest change affected: cancels the live rows from there
   * on and replays them (without `removed`, with `added`) in order.
   */
  private async rewind(key: string, added: Leg[], removed: Set<string>, depth = 0): Promise<void> {
    this.stats.rewinds += 1;
    const live = (await this.liveRows(key)).sort(compareRows);
    const removedRows = live.filter((r) => removed.has(r.event_id));
    const starts = [...removedRows.map(rowPosition), ...added.map((leg) => leg.meta)];
    if (starts.length === 0) return;
    const from = starts.reduce((a, b) => (comparePositions(a, b) <= 0 ? a : b));
    const before = live.filter((r) => comparePositions(rowPosition(r), from) < 0);
    const after = live.filter((r) => comparePositions(rowPosition(r), from) >= 0);
    const baseRow = before.at(-1);
    const base: PositionState = baseRow
      ? { qty: BigInt(baseRow.qty_after), cost: BigInt(baseRow.cost_after), openedMs: Date.parse(baseRow.opened_at) || 0 }
      : EMPTY_STATE;
    // A key the batch has no state of (a re-pricing reaches keys of no event in it) numbers on from its stored rows.
    let rev = [...(this.stored.get(key) ?? []), ...(this.pending.get(key) ?? [])].reduce(
      (max, r) => Math.max(max, Number(r.rev)),
      this.stateOf(key).rev,
    );
    for (const row of after) {
      rev += 1;
      const cancel: LedgerRow = {
        ...row,
        rev,
        sign: -1,
        of_rev: row.rev,
        qty_after: base.qty.toString(),
        cost_after: base.cost.toString(),
        opened_at: iso(base.openedMs),
      };
      this.rows.push(cancel);
      this.pendingRows(key).push(cancel);
    }
    const replay: Leg[] = [...after.filter((r) => !removed.has(r.event_id)).map(legOfRow), ...added];
    replay.sort((a, b) => comparePositions(a.meta, b.meta));
    // What each replayed source leg (a transfer's sender, a conversion's NO leg) took out before.
    const removedBefore = new Map(after.filter(isSourceRow).map((r) => [r.event_id, BigInt(r.cash) - BigInt(r.realized)]));
    let state: KeyState = { ...base, rev, last: baseRow ? rowPosition(baseRow) : null };
    this.states.set(key, state);
    // What each replayed CTF redemption leg's key held before it: a change there re-prices the redemption's legs.
    const heldBefore = new Map(after.filter(isHoldingPricedRow).map((r) => [r.event_id, BigInt(r.qty_after) - BigInt(r.qty_delta)]));
    for (const leg of replay) {
      const held = this.stateOf(key).qty;
      this.append(key, leg);
      if (added.includes(leg) && removed.size === 0) this.noteUncovered(key, leg);
      state = this.stateOf(key);
      // A redemption new here (behind later changes: its legs were priced from the holdings after them)
      // or replayed after its holdings changed; not one a re-pricing of its own event adds.
      if (leg.kind === 'redemption' && leg.action.side === 'sell_all') {
        const fresh = added.includes(leg);
        if (fresh ? !removed.has(leg.meta.eventId) : heldBefore.get(leg.meta.eventId) !== held)
          this.queueRelink(leg.meta.eventId, key, depth + 1);
      }
      if (!isSourceLeg(leg)) continue;
      const row = this.pendingRows(key).at(-1)!;
      if (removedBefore.get(row.event_id) !== BigInt(row.cash) - BigInt(row.realized)) this.queueRelink(row.event_id, key, depth + 1);
    }
    this.states.set(key, { ...state, rev: Math.max(state.rev, rev) });
  }

  /** A transfer leaving a sender that held fewer shares than it sent, applied for the first time. */
  private noteUncovered(key: string, leg: Leg): void {
    if (leg.kind !== 'transfer_out') return;
    const row = this.pendingRows(key).at(-1)!;
    if (-BigInt(row.qty_delta) < BigInt(row.in_qty)) this.stats.transfers_uncovered += 1;
  }

  private queueRelink(eventId: string, key: string, depth: number): void {
    const id = `${eventId}|${key}`;
    if (this.relinkQueued.has(id)) return;
    this.relinkQueued.add(id);
    this.relinks.push({ eventId, key, depth });
  }

  /** Stored rows of these (wallet, token)s, read once per batch. */
  private async loadStoredRows(keys: string[]): Promise<void> {
    const missing: string[] = [];
    for (const key of keys) {
      if (this.stored.has(key)) continue;
      const known = this.rowCache.get(key) ?? (this.neverStored.has(key) ? [] : undefined);
      if (known) {
        this.stored.set(key, [...known]);
        this.stats.stored_rows_cached += 1;
      } else missing.push(key);
    }
    for (let i = 0; i < missing.length; i += 1_000) {
      const chunk = missing.slice(i, i + 1_000);
      const rows = await this.store.query<LedgerRow & { key: string }>(
        `SELECT *, concat(wallet, '|', asset_id) AS key, toUnixTimestamp64Milli(time) AS time_ms, toUnixTimestamp64Milli(opened_at) AS opened_ms
           FROM ${LEDGER_TABLE} WHERE wallet IN {wallets:Array(String)} AND concat(wallet, '|', asset_id) IN {keys:Array(String)} ORDER BY rev`,
        { wallets: [...new Set(chunk.map((k) => k.split('|')[0]!))], keys: chunk },
      );
      for (const key of chunk) this.stored.set(key, []);
      for (const { key, ...row } of rows) this.stored.get(key)?.push(normalizeStored(row as LedgerRow));
    }
  }

  /** Rows of a (wallet, token) not cancelled: stored ones and those of this batch. */
  private async liveRows(key: string): Promise<LedgerRow[]> {
    await this.loadStoredRows([key]);
    const all = [...(this.stored.get(key) ?? []), ...(this.pending.get(key) ?? [])];
    const cancelled = new Set(all.filter((r) => Number(r.sign) < 0).map((r) => Number(r.of_rev)));
    return all.filter((r) => Number(r.sign) > 0 && !cancelled.has(Number(r.rev)));
  }

  private row(leg: Leg, rev: number, sign: number, ofRev: number, effect: ReturnType<typeof applyLeg>, after: PositionState): LedgerRow {
    const a = leg.action;
    return {
      wallet: leg.meta.wallet,
      asset_id: leg.assetId,
      market_id: leg.marketId,
      outcome: leg.outcome,
      outcome_index: leg.outcomeIndex,
      time: this.isoOf(leg.meta.timeMs),
      block_number: leg.meta.block,
      log_index: leg.meta.logIndex,
      event_id: leg.meta.eventId,
      rev,
      sign,
      of_rev: ofRev,
      origin: leg.meta.origin,
      source: leg.meta.source,
      kind: leg.kind,
      role: leg.role,
      action: actionName(a),
      tx_hash: leg.meta.txHash,
      block_hash: leg.meta.blockHash,
      ledger_group: leg.meta.ledgerGroup,
      in_qty: (a.side === 'sell_all' ? 0n : a.qty).toString(),
      in_usdc: storedUsdc(a).toString(),
      pay_num: (a.side === 'sell_all' ? a.payoutNum : 0n).toString(),
      pay_den: (a.side === 'sell_all' ? a.payoutDen : 0n).toString(),
      fee_micro: leg.fee.toString(),
      price: leg.price,
      qty_delta: effect.qtyDelta.toString(),
      cash: effect.cash.toString(),
      realized: effect.realized.toString(),
      volume: leg.volume.toString(),
      trades: leg.trades,
      qty_after: after.qty.toString(),
      cost_after: after.cost.toString(),
      opened_at: this.isoOf(after.openedMs),
      counterparty: leg.counterparty ?? '',
      question_index: leg.questionIndex ?? -1,
      paid_usdc: (leg.paid ?? 0n).toString(),
    };
  }

  /** ISO text of a time, once per batch: a block's fills share its time, a position's rows their opening. */
  private isoOf(ms: number): string {
    let text = this.isoTexts.get(ms);
    if (text === undefined) {
      text = iso(ms);
      this.isoTexts.set(ms, text);
    }
    return text;
  }

  /** The legs of one event, one per token it changes (states are those before the event). */
  private legsOf(e: LedgerEvent): Leg[] {
    // A fill's leg is built in one literal, not spread over a base: fills are nearly every event, and
    // a spread copies the base object once more for each of them.
    if (e.kind === 'fill')
      return [
        {
          meta: e,
          assetId: e.assetId,
          marketId: e.marketId,
          outcome: e.outcome,
          outcomeIndex: e.outcomeIndex,
          kind: 'fill',
          role: e.role,
          action: { side: e.side, qty: e.shares, usdc: e.usdc },
          fee: e.fee,
          price: e.price,
          volume: e.volume,
          trades: 1,
        },
      ];
    const base = { meta: e, fee: 0n, price: 0, volume: 0n, trades: 0, role: '' };
    switch (e.kind) {
      case 'split':
      case 'merge': {
        // A complete set costs 1: each of n outcomes at 1/n (0.50 in a binary market); the
        // remainder micro-unit of an odd amount goes to the first outcome, so the legs add up.
        const n = BigInt(e.tokenIds.length);
        if (n === 0n) return [];
        const share = e.amount / n;
        const market = this.markets.get(e.marketId);
        return e.tokenIds.map((assetId, i) => {
          const usdc = i === 0 ? e.amount - share * (n - 1n) : share;
          return {
            ...base,
            assetId,
            marketId: e.marketId,
            outcome: market?.outcomes[i] ?? String(i),
            outcomeIndex: i,
            kind: e.kind,
            action: { side: e.kind === 'split' ? 'buy' : 'sell', qty: e.amount, usdc },
            price: 1 / Number(n),
          } satisfies Leg;
        });
      }
      case 'redemption':
        return this.redemptionLegs(e);
      case 'conversion':
        return this.conversionLegs(e);
      case 'transfer':
        return this.transferLegs(e);
      default:
        return [];
    }
  }

  /**
   * A redemption sells the redeemed shares at the market's payout. The payout per share comes from the
   * chain's resolution or the catalog; when neither is known yet (its record is on another stream), it
   * is read from the redemption itself: the one outcome winning, or all paying alike (a void), whose
   * payout for the shares held equals the collateral paid out; failing that, the collateral is spread
   * over the shares held. States are those after the batch's earlier changes (applyEvent settles
   * pending rewinds of these keys first). No leg realizes more than the collateral the event paid out.
   */
  private redemptionLegs(
    e: Extract<LedgerEvent, { kind: 'redemption' }>,
    stateOf: (key: string) => PositionState = this.currentState,
  ): Leg[] {
    const market = this.markets.get(e.marketId);
    const tokenIds = e.tokenIds.length > 0 ? e.tokenIds : (market?.tokenIds ?? []);
    const indices = redeemedIndices(e.indexSets, tokenIds.length);
    const held = indices.map((i) => stateOf(keyOf(e.wallet, tokenIds[i]!)).qty);
    const explicit = e.redeemed.length > 0;
    // What each leg gives up: the adapter's redeemed amounts, or the whole balance (CTF).
    const given = indices.map((i, j) => (explicit ? (e.redeemed[i] ?? 0n) : held[j]!));
    const payout = market?.payout ?? inferPayout(indices, given, e.amount, tokenIds.length);
    if (!payout) this.stats.unresolved_legs += indices.length;
    // Priced from the holdings (inferred or spread): its market's resolution prices it again.
    if (!market?.payout && !explicit && indices.length > 0)
      this.unpriced.set(`${e.wallet}|${e.eventId}`, {
        market_id: e.marketId,
        wallet: e.wallet,
        event_id: e.eventId,
        asset_id: tokenIds[indices[0]!]!,
      });
    const perShare = (j: number): { num: bigint; den: bigint } => {
      if (payout) return { num: payout.num[indices[j]!] ?? 0n, den: payout.den };
      // Spread: the collateral over the shares given up; none tracked, a share pays at most 1.
      const total = given.reduce((a, b) => a + b, 0n);
      return total > 0n ? { num: e.amount, den: total } : { num: e.amount > 0n ? 1n : 0n, den: 1n };
    };
    // Rounded down per outcome, as the CTF pays (payoutNumerator x stake / payoutDenominator).
    const expected = indices.map((_, j) => {
      const { num, den } = perShare(j);
      return den === 0n ? 0n : (given[j]! * num) / den;
    });
    const total = expected.reduce((a, b) => a + b, 0n);
    // More than was paid out: the ledger holds shares the chain did not; each leg gets its share of it.
    const scaled = total > e.amount;
    const paying = indices.filter((_, j) => perShare(j).num > 0n).length;
    return indices.map((i, j) => {
      const { num, den } = perShare(j);
      const share = scaled ? divRound(expected[j]! * e.amount, total) : expected[j]!;
      // A CTF leg's stored action must not depend on what the ledger held when it was first applied,
      // since a rewind replays it as stored: an outcome paying nothing is 0/1 with no cap, and a paying
      // leg is capped by the whole payout unless several outcomes share a scaled-down one (then its
      // share, which depends on holdings; a share of 0 would read as no cap, so it keeps the whole).
      const action: LegAction = explicit
        ? { side: 'sell', qty: given[j]!, usdc: share }
        : num === 0n || e.amount === 0n
          ? { side: 'sell_all', payoutNum: 0n, payoutDen: 1n }
          : { side: 'sell_all', payoutNum: num, payoutDen: den, capUsdc: scaled && paying > 1 && share > 0n ? share : e.amount };
      return {
        meta: e,
        assetId: tokenIds[i]!,
        marketId: e.marketId,
        outcome: market?.outcomes[i] ?? String(i),
        outcomeIndex: i,
        kind: 'redemption',
        role: '',
        action,
        fee: 0n,
        price: den === 0n ? 0 : Number(num) / Number(den),
        volume: 0n,
        trades: 0,
        ...(explicit ? {} : { paid: e.amount }),
      } satisfies Leg;
    });
  }

  /**
   * NegRiskAdapter.convertPositions: `amount` NO shares of each of the k questions in the index set
   * become, less the market's fee f = amount x feeBips / 10,000 (rounded down), amount - f YES shares
   * of every other question prepared before the conversion plus (k - 1) x (amount - f) collateral
   * (none when k = 1); the vault keeps f YES shares of each and (k - 1) x f collateral (the first NO
   * leg's fee). The NO legs leave at their average cost (no PnL); that cost, less the collateral
   * received, becomes the YES legs' cost, split evenly (Polymarket's PnL subgraph prices the YES legs
   * the same way); collateral beyond the NO cost is realized with the first NO leg, and so is the loss of
   * NO cost beyond the collateral when every question is converted (no YES leg to carry it). The questions come
   * with the event (the chain's count, the catalog's tokens); events published before the source
   * carried them use the catalog's.
   */
  private conversionLegs(
    e: Extract<LedgerEvent, { kind: 'conversion' }>,
    stateOf: (key: string) => PositionState = this.currentState,
  ): Leg[] {
    const questions = this.questionsOf(e);
    const no = questions.filter((q) => (e.indexSet >> BigInt(q.index)) & 1n);
    const yes = questions.filter((q) => !((e.indexSet >> BigInt(q.index)) & 1n));
    if (no.length === 0) return [];
    const fee = (e.amount * e.feeBips) / FEE_DENOMINATOR;
    const out = e.amount - fee;
    let noCost = 0n;
    const legs: Leg[] = [];
    for (const q of no) {
      const state = stateOf(keyOf(e.wallet, q.noToken));
      const closed = minBig(e.amount, state.qty);
      noCost += state.qty === 0n ? 0n : closed === state.qty ? state.cost : divRound(state.cost * closed, state.qty);
      legs.push({
        meta: e,
        assetId: q.noToken,
        marketId: q.marketId,
        outcome: q.outcomes[1 - q.yesIndex] ?? 'No',
        outcomeIndex: 1 - q.yesIndex,
        kind: 'conversion',
        role: '',
        action: { side: 'sell_at_cost', qty: e.amount },
        fee: 0n,
        price: 0,
        volume: 0n,
        trades: 0,
        questionIndex: q.index,
      });
    }
    const collateral = BigInt(no.length - 1) * out;
    legs[0] = { ...legs[0]!, fee: BigInt(no.length - 1) * fee };
    // With YES legs to carry it, NO cost above the collateral becomes their cost; with none (every
    // question converted) it is lost, so collateral minus NO cost is realized whatever its sign.
    const yesCost = yes.length > 0 && noCost > collateral ? noCost - collateral : 0n;
    const realized = yes.length > 0 && collateral <= noCost ? 0n : collateral - noCost;
    // Realized with the first NO leg (one row per key and event: a second row of the same event would
    // read as a redelivery).
    if (realized !== 0n) legs[0] = { ...legs[0]!, action: { side: 'sell_at_cost', qty: e.amount, usdc: realized } };
    const n = BigInt(yes.length);
    for (const [i, q] of yes.entries()) {
      const share = n === 0n ? 0n : yesCost / n;
      const usdc = i === 0 ? yesCost - share * (n - 1n) : share;
      legs.push({
        meta: e,
        assetId: q.yesToken,
        marketId: q.marketId,
        outcome: q.outcomes[q.yesIndex] ?? 'Yes',
        outcomeIndex: q.yesIndex,
        kind: 'conversion',
        role: '',
        action: { side: 'buy', qty: out, usdc },
        fee: 0n,
        price: out === 0n ? 0 : Number(usdc) / Number(out),
        volume: 0n,
        trades: 0,
        questionIndex: q.index,
      });
    }
    return legs;
  }

  /** A conversion's questions: its own, or for an event published without them, the catalog's. */
  private questionsOf(e: Extract<LedgerEvent, { kind: 'conversion' }>): ConversionQuestion[] {
    return e.questions.length > 0 ? e.questions : (this.negRisk.get(e.negRiskMarketId.toLowerCase()) ?? []);
  }

  /**
   * A transfer of q shares: they leave the sender at its average cost (`transfer_out`, sell_at_cost:
   * no PnL, no volume, no trade) and reach the receiver with that cost (`transfer_in`, a buy of q for
   * it). A sender holding fewer than q (history the ledger does not cover) moves what it holds at cost
   * and the rest at cost 0 (counted in `transfers_uncovered`). `stateOf` gives the sender's state just
   * before the transfer (the batch's current one, or a row's when re-priced).
   */
  private transferLegs(e: Extract<LedgerEvent, { kind: 'transfer' }>, stateOf: (key: string) => PositionState = this.currentState): Leg[] {
    const sender = stateOf(keyOf(e.wallet, e.assetId));
    const moved = minBig(e.shares, sender.qty);
    const cost = sender.qty === 0n ? 0n : moved === sender.qty ? sender.cost : divRound(sender.cost * moved, sender.qty);
    const price = e.shares === 0n ? 0 : Number(cost) / Number(e.shares);
    const leg = {
      assetId: e.assetId,
      marketId: e.marketId,
      outcome: e.outcome,
      outcomeIndex: e.outcomeIndex,
      role: '',
      fee: 0n,
      price: Math.round(price * 1e6) / 1e6,
      volume: 0n,
      trades: 0,
    };
    return [
      { ...leg, meta: e, kind: 'transfer_out', action: { side: 'sell_at_cost', qty: e.shares }, counterparty: e.to },
      {
        ...leg,
        meta: { ...e, wallet: e.to },
        kind: 'transfer_in',
        action: { side: 'buy', qty: e.shares, usdc: cost },
        counterparty: e.wallet,
      },
    ];
  }

  /** The (wallet, token)s an event changes (after prepare loaded the batch's markets). */
  private keysOf(e: LedgerEvent): string[] {
    let keys = this.eventKeys.get(e);
    if (keys === undefined) {
      keys = this.keysOfEvent(e);
      this.eventKeys.set(e, keys);
    }
    return keys;
  }

  private keysOfEvent(e: LedgerEvent): string[] {
    if (e.kind === 'fill') return [keyOf(e.wallet, e.assetId)];
    if (e.kind === 'transfer') return [keyOf(e.wallet, e.assetId), keyOf(e.to, e.assetId)];
    if (e.kind === 'split' || e.kind === 'merge' || e.kind === 'redemption') {
      const ids = e.tokenIds.length > 0 ? e.tokenIds : (this.markets.get(e.marketId)?.tokenIds ?? []);
      return ids.map((id) => keyOf(e.wallet, id));
    }
    if (e.kind === 'conversion') return this.questionsOf(e).flatMap((q) => [keyOf(e.wallet, q.yesToken), keyOf(e.wallet, q.noToken)]);
    return [];
  }

  private async loadStates(events: LedgerEvent[]): Promise<void> {
    const keys = new Set(events.flatMap((e) => this.keysOf(e)));
    const missing: string[] = [];
    for (const key of keys) {
      const cached = this.cache.get(key);
      if (cached) {
        this.states.set(key, cached);
        this.stats.state_cache_hits += 1;
      } else if (this.keys.mightHave(key)) missing.push(key);
      else {
        // The key has never been stored: its state is the empty one, as a lookup would find.
        this.keys.stats.skipped_lookups += 1;
        this.neverStored.add(key);
      }
    }
    if (missing.length === 0) return;
    const started = performance.now();
    this.stats.state_lookups += missing.length;
    // From position_head, the key-value copy of position_state's newest rows (migrations/0060): a
    // point get per key, where position_state costs a granule per part per key.
    for (let i = 0; i < missing.length; i += 2_000) {
      const rows = await this.store.query<{
        key: string;
        qty: string;
        cost: string;
        opened_ms: string;
        time_ms: string;
        block_number: string;
        log_index: string;
        event_id: string;
        rev: string;
      }>(
        `SELECT key, toString(qty) AS qty, toString(cost) AS cost, toUnixTimestamp64Milli(opened_at) AS opened_ms, toUnixTimestamp64Milli(time) AS time_ms,
                toString(block_number) AS block_number, toString(log_index) AS log_index, event_id, toString(rev) AS rev
           FROM position_head WHERE key IN {keys:Array(String)}`,
        { keys: missing.slice(i, i + 2_000) },
      );
      const found = new Set(rows.map((r) => r.key));
      for (const key of missing.slice(i, i + 2_000)) if (!found.has(key)) this.neverStored.add(key);
      for (const r of rows) {
        this.states.set(r.key, {
          qty: BigInt(r.qty),
          cost: BigInt(r.cost),
          openedMs: Number(r.opened_ms),
          rev: Number(r.rev),
          last: { timeMs: Number(r.time_ms), block: Number(r.block_number), logIndex: Number(r.log_index), eventId: r.event_id },
        });
      }
    }
    this.stats.state_lookup_ms += performance.now() - started;
  }

  private async loadMarkets(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const rows = await this.store.query<{
      market_id: string;
      outcomes: string[];
      outcome_token_ids: string[];
      status: string;
      outcome_prices: number[];
    }>(`SELECT market_id, outcomes, outcome_token_ids, status, outcome_prices FROM markets FINAL WHERE market_id IN {ids:Array(String)}`, {
      ids,
    });
    const resolutions = await this.store.query<{ market_id: string; numerators: string[] }>(
      `SELECT market_id, argMax(payout_numerators, ingested_at) AS numerators FROM chain_resolutions FINAL
        WHERE market_id IN {ids:Array(String)} AND NOT retracted GROUP BY market_id`,
      { ids },
    );
    const onChain = new Map(resolutions.map((r) => [r.market_id, r.numerators.map((n) => BigInt(n))]));
    for (const id of ids) {
      const m = rows.find((r) => r.market_id === id);
      const numerators = onChain.get(id);
      let payout: MarketInfo['payout'] = null;
      if (numerators?.some((n) => n > 0n)) payout = { num: numerators, den: numerators.reduce((a, b) => a + b, 0n) };
      else if (this.resolved.has(id)) payout = this.resolved.get(id)!;
      else if (m?.status === 'resolved' || m?.status === 'voided')
        payout = { num: m.outcome_prices.map((p) => BigInt(Math.round(Number(p) * 1e6))), den: 1_000_000n };
      this.markets.set(id, { outcomes: m?.outcomes ?? [], tokenIds: m?.outcome_token_ids ?? [], payout });
    }
  }

  /** Questions of each neg-risk event: the question index is the low byte of its question id. */
  private async loadNegRisk(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const rows = await this.store.query<{
      neg_risk_market_id: string;
      market_id: string;
      question_id: string;
      outcome_token_ids: string[];
      outcomes: string[];
      yes_index: number;
    }>(
      `SELECT assumeNotNull(neg_risk_market_id) AS neg_risk_market_id, market_id, assumeNotNull(question_id) AS question_id, outcome_token_ids, outcomes, yes_index
         FROM markets FINAL WHERE lower(neg_risk_market_id) IN {ids:Array(String)} AND question_id IS NOT NULL`,
      { ids: ids.map((id) => id.toLowerCase()) },
    );
    for (const r of rows) {
      const yesIndex = Number(r.yes_index);
      if (r.outcome_token_ids.length < 2) continue;
      const list = this.negRisk.get(r.neg_risk_market_id.toLowerCase()) ?? [];
      list.push({
        index: Number.parseInt(r.question_id.slice(-2), 16),
        marketId: r.market_id,
        yesToken: r.outcome_token_ids[yesIndex]!,
        noToken: r.outcome_token_ids[1 - yesIndex]!,
        outcomes: r.outcomes,
        yesIndex,
      });
      this.negRisk.set(r.neg_risk_market_id.toLowerCase(), list);
    }
    // By question index: the catalog's rows come in no order, and a conversion's legs are priced in
    // index order (its collateral and fee on the first converted question, the YES cost's remainder on
    // the first other one), the order of the chain's questions on first application.
    for (const list of this.negRisk.values()) list.sort((a, b) => a.index - b.index);
  }
}

/** The outcome indices of a redemption's index sets (bit i = outcome i), in order. */
function redeemedIndices(indexSets: string[], outcomes: number): number[] {
  const indices = new Set<number>();
  for (const set of indexSets) {
    const bits = BigInt(set);
    for (let i = 0; i < outcomes; i++) if ((bits >> BigInt(i)) & 1n) indices.add(i);
  }
  return [...indices].sort((a, b) => a - b);
}

function rowPosition(r: LedgerRow): LedgerPosition {
  return { timeMs: Date.parse(r.time), block: Number(r.block_number), logIndex: Number(r.log_index), eventId: r.event_id };
}

function compareRows(a: LedgerRow, b: LedgerRow): number {
  return comparePositions(rowPosition(a), rowPosition(b));
}

function normalizeStored(r: LedgerRow & { time_ms?: string; opened_ms?: string }): LedgerRow {
  const { time_ms, opened_ms, ...row } = r;
  return {
    ...row,
    time: iso(Number(time_ms)),
    opened_at: iso(Number(opened_ms)),
    rev: Number(r.rev),
    sign: Number(r.sign),
    of_rev: Number(r.of_rev),
    question_index: Number(r.question_index),
  };
}

/** A stored row back into the leg it applied, for replay after a rewind. */
function legOfRow(r: LedgerRow): Leg {
  const qty = BigInt(r.in_qty);
  const usdc = BigInt(r.in_usdc);
  // A redemption's cap is in in_usdc (rows written without one hold 0 there); a sell at cost's signed
  // collateral is what it realized.
  const action: LegAction =
    r.action === 'buy'
      ? { side: 'buy', qty, usdc }
      : r.action === 'sell_all'
        ? { side: 'sell_all', payoutNum: BigInt(r.pay_num), payoutDen: BigInt(r.pay_den), ...(usdc > 0n ? { capUsdc: usdc } : {}) }
        : r.action === 'sell_at_cost'
          ? { side: 'sell_at_cost', qty, ...(BigInt(r.realized) !== 0n ? { usdc: BigInt(r.realized) } : {}) }
          : { side: 'sell', qty, usdc };
  const meta = { ...metaOfRow(r), kind: 'block_retracted' } as LedgerEvent;
  return {
    meta,
    assetId: r.asset_id,
    marketId: r.market_id,
    outcome: r.outcome,
    outcomeIndex: Number(r.outcome_index),
    kind: r.kind,
    role: r.role,
    action,
    fee: BigInt(r.fee_micro),
    price: Number(r.price),
    volume: BigInt(r.volume),
    trades: Number(r.trades),
    counterparty: r.counterparty ?? '',
    questionIndex: Number(r.question_index ?? -1),
    ...(r.kind === 'redemption' && r.action === 'sell_all' ? { paid: BigInt(r.paid_usdc ?? 0) } : {}),
  };
}

/** The event fields of a stored row (what a replayed or re-priced leg needs of its event). */
function metaOfRow(r: LedgerRow): EventMeta {
  return {
    origin: r.origin as EventMeta['origin'],
    source: r.source,
    wallet: r.wallet,
    marketId: r.market_id,
    txHash: r.tx_hash,
    blockHash: r.block_hash,
    ledgerGroup: r.ledger_group,
    ...rowPosition(r),
  };
}

/** A transfer, conversion or redemption rebuilt from its rows: its rows per key and each key's state just before it. */
interface Linked {
  event: LedgerEvent;
  rows: Map<string, LedgerRow>;
  before: Map<string, PositionState>;
}

/** A leg whose cost taken out prices the event's legs on other keys: a transfer's sender, a conversion's NO leg. */
const isSourceLeg = (leg: Leg) => leg.kind === 'transfer_out' || (leg.kind === 'conversion' && leg.action.side === 'sell_at_cost');
const isSourceRow = (r: LedgerRow) => r.kind === 'transfer_out' || (r.kind === 'conversion' && r.action === 'sell_at_cost');
/** A CTF redemption's row: its legs were priced from the shares held (when its payout was not known, or scaled down). */
const isHoldingPricedRow = (r: LedgerRow) => r.kind === 'redemption' && r.action === 'sell_all';

/** The state of a key just before the change a row applied (the row holds the state after and the change). */
function stateBefore(r: LedgerRow): PositionState {
  const qty = BigInt(r.qty_after) - BigInt(r.qty_delta);
  // A buy added its collateral to the basis; a sell took out its cash less what it realized.
  const removed = r.action === 'buy' ? -BigInt(r.in_usdc) : BigInt(r.cash) - BigInt(r.realized);
  return { qty, cost: BigInt(r.cost_after) + removed, openedMs: 0 };
}

/** Whether a leg applies the same input as a row (what `row` writes of its action). */
function sameInput(leg: Leg, r: LedgerRow): boolean {
  const a = leg.action;
  const inQty = a.side === 'sell_all' ? 0n : a.qty;
  // A sell at cost realizes exactly its signed collateral, which in_usdc (unsigned) cannot hold when negative.
  const sameUsdc = a.side === 'sell_at_cost' ? BigInt(r.realized) === (a.usdc ?? 0n) : BigInt(r.in_usdc) === storedUsdc(a);
  // The fee too: a conversion's collateral fee sits on one leg, and a leg that lost or gained it is another leg.
  // And a redemption's price: a re-priced one may keep its cap (what it paid) and change its payout per share.
  const samePayout = a.side !== 'sell_all' || (BigInt(r.pay_num) === a.payoutNum && BigInt(r.pay_den) === a.payoutDen);
  return r.action === a.side && BigInt(r.in_qty) === inQty && sameUsdc && samePayout && BigInt(r.fee_micro) === leg.fee;
}

/**
 * The collateral a row stores of its action: a buy's cost, a sell's proceeds, a redemption's cap, and of
 * a sell at cost the collateral received beyond cost (0 when it is a loss: the signed amount is the
 * row's `realized`, which a sell at cost always equals).
 */
function storedUsdc(a: LegAction): bigint {
  if (a.side === 'buy' || a.side === 'sell') return a.usdc;
  if (a.side === 'sell_all') return a.capUsdc ?? 0n;
  return maxBig(a.usdc ?? 0n, 0n);
}

/** Stored rows per (wallet, token), bounded by their total count (cleared when it is passed). */
class RowCache {
  private readonly byKey = new Map<string, LedgerRow[]>();
  private rows = 0;

  constructor(private readonly limit: number) {}

  get(key: string): LedgerRow[] | undefined {
    return this.byKey.get(key);
  }

  set(key: string, rows: LedgerRow[]): void {
    this.delete(key);
    this.byKey.set(key, rows);
    this.rows += rows.length;
    if (this.rows > this.limit) this.clear();
  }

  delete(key: string): void {
    this.rows -= this.byKey.get(key)?.length ?? 0;
    this.byKey.delete(key);
  }

  clear(): void {
    this.byKey.clear();
    this.rows = 0;
  }
}
