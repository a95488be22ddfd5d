/**
 * One batch of the position ledger: applies its events' legs in order (appending, or rewinding a
 * (wallet, token) when a change is behind its last or replaces or retracts a stored one) and
 * re-prices the legs that depend on another key's rewound leg (`applyRelinks`). It collects the
 * rows and states the ledger then stores (ledger.ts).
 */
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { iso } from '../../shared/time.js';
import { readCoverage } from '../chain-ledger/queries.js';
import type { KeyFilter } from './key-filter.js';
import { comparePositions, type ConversionQuestion, type LedgerEvent, type LedgerPosition } from './ledger-events.js';
import { linkedOf, type LinkedReads } from './ledger-linked.js';
import {
  completeSetLegs,
  conversionLegs,
  fillLeg,
  keyOf,
  keysOfEvent,
  type Leg,
  type MarketInfo,
  questionsOf,
  redemptionLegs,
  transferLegs,
  type UnpricedRedemption,
} from './ledger-legs.js';
import {
  type KeyState,
  type KnownPayouts,
  type RowRef,
  readChainRows,
  readDataApiRows,
  readEventTokens,
  readHeads,
  readMarkets,
  readNegRiskQuestions,
  readRetractedRows,
  readStoredRows,
} from './ledger-loaders.js';
import { applyLeg, EMPTY_STATE, type PositionState } from './ledger-math.js';
import { formatPayout } from './ledger-payouts.js';
import type { RowCache } from './ledger-row-cache.js';
import {
  compareRows,
  type LedgerRow,
  ledgerRow,
  legOfRow,
  liveOf,
  rowPosition,
  type StoredRows,
  sameInput,
  topRev,
} from './ledger-rows.js';

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
  /** Live rows read from position_ledger for rewinds and redelivered changes (cancels and cancelled rows are not read). */
  stored_rows_read: number;
  /** The reads of stored rows and the ms they took (like state_lookup_ms: the part of a rewind that grows with a key's history). */
  stored_row_reads: number;
  stored_row_read_ms: number;
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
  /** Markets whose payout the chain and the catalog both gave, differently (the chain's prices their redemptions). */
  resolution_payout_disagreements: number;
  /** The last batch of a previous run inserted again at start (each view that lacked it gets it), and failures to. */
  journal_replays: number;
  journal_replay_failures: number;
}

/** How far a re-pricing follows transfers and conversions from key to key, and how many rewinds it makes per batch. */
const RELINK_MAX_DEPTH = 16;
const RELINK_MAX_PER_BATCH = 5_000;

/** The state of a (wallet, token) never held. States are replaced, never changed, so one object serves every such key. */
const NEVER_HELD: KeyState = Object.freeze({ ...EMPTY_STATE, rev: 0, last: null });
/** The stored rows of a key never stored; shared, and never changed (stored rows are replaced, not appended to). */
const NEVER_STORED: StoredRows = Object.freeze({ live: Object.freeze([]) as unknown as LedgerRow[], base: null, from: null, rev: 0 });

/** The earlier of two bounds of a read of stored rows (null: from a key's first row). */
const earlier = (a: LedgerPosition | null, b: LedgerPosition | null): LedgerPosition | null =>
  a === null || b === null ? null : comparePositions(a, b) <= 0 ? a : b;
/** Whether stored rows read from `have` on hold those a read from `want` on returns. */
const covers = (have: LedgerPosition | null, want: LedgerPosition | null) =>
  have === null || (want !== null && comparePositions(have, want) <= 0);
/** A position alone (an event's or a leg's meta holds much more, which a bound kept for the batch would keep alive). */
const placeOf = (p: LedgerPosition): LedgerPosition => ({ timeMs: p.timeMs, block: p.block, logIndex: p.logIndex, eventId: p.eventId });

/** A leg whose cost taken out prices the event's legs on other keys: a transfer's sender, a conversion's NO leg. */
const isSourceLeg = (leg: Leg) => leg.kind === 'transfer_out' || (leg.kind === 'conversion' && leg.action.side === 'sell_at_cost');
const isSourceRow = (r: LedgerRow) => r.kind === 'transfer_out' || (r.kind === 'conversion' && r.action === 'sell_at_cost');
/** A CTF redemption's row: its legs were priced from the shares held (when its payout was not known, or scaled down). */
const isHoldingPricedRow = (r: LedgerRow) => r.kind === 'redemption' && r.action === 'sell_all';

export class Batch {
  readonly rows: LedgerRow[] = [];
  readonly states = new Map<string, KeyState>();
  private readonly pending = new Map<string, LedgerRow[]>();
  private readonly isoTexts = new Map<number, string>();
  /**
   * Per key: legs to apply in one rewind after the batch, the rows it removes, which Data API twins
   * each added leg replaces, and the earliest place of those legs and rows (what the rewind reads from).
   */
  private readonly deferred = new Map<string, { added: Leg[]; removed: Set<string>; twinsOf: Map<Leg, string[]>; from: LedgerPosition }>();
  private readonly stored = new Map<string, StoredRows>();
  /** Keys known to have no stored row (not in the key filter, or no state in position_head). */
  private readonly neverStored = new Set<string>();
  private readonly markets = new Map<string, MarketInfo>();
  /** Catalog questions of conversions published without their own (before the chain source read them). */
  private readonly negRisk = new Map<string, ConversionQuestion[]>();
  private coverage: { firstMs: number; lastMs: number } | null = null;
  /** Data API records superseded by a chain record of the same transaction, wallet and token. */
  private readonly chainTx = new Set<string>();
  private readonly dataApiTwins = new Map<string, RowRef[]>();
  private readonly retracted = new Map<string, RowRef[]>();
  /**
   * Each event's keys, built once: prepare and applyEvent look them up in several maps, and a key
   * built anew is a new string each time, hashed again (a fill's key is about 120 characters).
   */
  private readonly eventKeys = new Map<LedgerEvent, string[]>();
  /**
   * Transfers and conversions whose source leg (a transfer's sender, a conversion's NO legs) a rewind
   * replayed at another cost: their legs on the other keys are re-priced after the batch's rewinds.
   */
  private readonly relinks: Array<{ eventId: string; key: string; depth: number; at: LedgerPosition | null }> = [];
  private readonly relinkQueued = new Set<string>();
  /** The keys this batch wrote a row of each conversion or redemption on (wallet|event id): a re-pricing finds its legs by them and the stored rows. */
  private readonly groupKeys = new Map<string, Set<string>>();
  private relinkRewinds = 0;
  /** Redemptions this batch priced without their market's payout (wallet|event id), stored for their resolution to re-price. */
  readonly unpriced = new Map<string, UnpricedRedemption>();
  /** What a re-pricing reads to rebuild an event from its rows. */
  private readonly linkedReads: LinkedReads = {
    liveRows: (key, from) => this.liveRows(key, from),
    loadStoredRows: (keys, from) => this.loadStoredRows(new Map(keys.map((key) => [key, from]))),
    keysOfGroup: (wallet, eventId) => this.keysOfGroup(wallet, eventId),
    market: async (marketId) => {
      if (!this.markets.has(marketId)) await this.loadMarkets([marketId]);
      return this.markets.get(marketId);
    },
    negRiskQuestions: async (negRiskMarketId) => {
      const id = negRiskMarketId.toLowerCase();
      if (!this.negRisk.has(id)) await this.loadNegRisk([id]);
      return this.negRisk.get(id) ?? [];
    },
  };

  constructor(
    private readonly store: AnalyticsStore,
    private readonly cache: Map<string, KeyState>,
    private readonly rowCache: RowCache,
    private readonly keys: KeyFilter,
    private readonly stats: LedgerStats,
    private readonly known: KnownPayouts,
    /** Aborted when the ledger's consumer stops: the batch gives up between its reads (it has written nothing yet). */
    private readonly signal?: AbortSignal,
  ) {}

  /** Prices these redemptions again (their markets' payouts are known now), as a rewind that changed their holdings does. */
  async reprice(redemptions: UnpricedRedemption[]): Promise<void> {
    for (const r of redemptions) this.queueRelink(r.event_id, keyOf(r.wallet, r.asset_id), 0, null);
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
        ? (this.stored.get(key) ?? cache.get(key) ?? (this.neverStored.has(key) ? NEVER_STORED : undefined))
        : undefined;
      if (before)
        cache.set(key, { live: liveOf([...before.live, ...rows]), base: before.base, from: before.from, rev: topRev(rows, before.rev) });
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
    this.signal?.throwIfAborted();
    await this.loadNegRisk([...negRiskIds]);
    this.signal?.throwIfAborted();
    if (dataApi.length > 0) {
      this.coverage = await readCoverage(this.store);
      const rows = await readChainRows(this.store, [...new Set(dataApi.map((e) => e.txHash))]);
      for (const r of rows) this.chainTx.add(`${r.tx_hash}|${r.wallet}|${r.asset_id}`);
    }
    if (chain.length > 0 && (await hasDataApiRows())) {
      const rows = await readDataApiRows(this.store, [...new Set(chain.map((e) => e.txHash))]);
      for (const r of rows) {
        const list = this.dataApiTwins.get(`${r.tx_hash}|${r.wallet}`) ?? [];
        list.push(r);
        this.dataApiTwins.set(`${r.tx_hash}|${r.wallet}`, list);
      }
    }
    if (retractions.length > 0) {
      const rows = await readRetractedRows(
        this.store,
        retractions.map((e) => `${e.blockHash}|${e.ledgerGroup}`),
      );
      for (const r of rows) this.retracted.set(r.voided, [...(this.retracted.get(r.voided) ?? []), r]);
    }
    this.signal?.throwIfAborted();
    await this.loadStates(events);
    this.signal?.throwIfAborted();
    // A redelivered or late change compares with its key's stored rows: read those of the whole batch
    // at once (a redelivery after kill -9 is thousands of them), not one query per key.
    const behind = new Map<string, LedgerPosition | null>();
    for (const e of events) {
      for (const key of this.keysOf(e)) {
        const last = this.states.get(key)?.last;
        if (last && comparePositions(e, last) <= 0) behind.set(key, earlier(behind.get(key) ?? placeOf(e), placeOf(e)));
      }
    }
    await this.loadStoredRows(behind);
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
    await this.loadStoredRows(new Map(keys.map((key) => [key, this.deferred.get(key)!.from])));
    for (const key of keys) {
      const { added, removed, from } = this.deferred.get(key)!;
      this.deferred.delete(key);
      await this.rewind(key, added, removed, from);
    }
    await this.applyLegs(event, this.legsOf(event), 0);
  }

  /**
   * A reorg orphaned the block: its changes leave the ledger. Those stored before this batch are read
   * by prepare; the block's changes this batch applied before the retraction (appended, or waiting for
   * their key's rewind: behind its last change, or replacing a Data API twin) are not stored yet and go
   * too. The replacement block's changes come as new events, often in the same batch.
   */
  private async applyRetraction(event: Extract<LedgerEvent, { kind: 'block_retracted' }>): Promise<void> {
    const byKey = new Map<string, { ids: Set<string>; from: LedgerPosition }>();
    const remove = (key: string, eventId: string, at: LedgerPosition) => {
      const entry = byKey.get(key);
      if (entry) {
        entry.ids.add(eventId);
        if (comparePositions(at, entry.from) < 0) entry.from = at;
      } else byKey.set(key, { ids: new Set([eventId]), from: at });
    };
    for (const row of this.retracted.get(`${event.blockHash}|${event.ledgerGroup}`) ?? [])
      remove(keyOf(row.wallet, row.asset_id), row.event_id, row.at);
    for (const [key, rows] of this.pending)
      for (const row of rows) if (Number(row.sign) > 0 && row.block_hash === event.blockHash) remove(key, row.event_id, rowPosition(row));
    for (const [key, entry] of this.deferred) {
      const orphaned = entry.added.filter((leg) => leg.meta.blockHash === event.blockHash);
      if (orphaned.length === 0) continue;
      entry.added = entry.added.filter((leg) => !orphaned.includes(leg));
      // A Data API twin an orphaned leg would have replaced stays, unless a remaining leg replaces it too.
      const kept = new Set(entry.added.flatMap((leg) => entry.twinsOf.get(leg) ?? []));
      for (const leg of orphaned) for (const id of entry.twinsOf.get(leg) ?? []) if (!kept.has(id)) entry.removed.delete(id);
      if (entry.added.length === 0 && entry.removed.size === 0) this.deferred.delete(key);
    }
    for (const [key, { ids, from }] of byKey) await this.rewind(key, [], ids, from);
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
      const replaced = twins.filter((t) => t.asset_id === leg.assetId);
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
      list.push({ wallet: event.wallet, asset_id: leg.assetId, event_id: leg.meta.eventId, at: placeOf(leg.meta) });
      this.dataApiTwins.set(twinKey, list);
    }
  }

  /** A leg not newer than its key's last: skipped if already applied, else rewound after the batch; then the event's other legs. */
  private async applyBehind(event: LedgerEvent, legs: Leg[], index: number, key: string): Promise<void> {
    const live = await this.liveRows(key, placeOf(event));
    if (live.some((r) => r.event_id === event.eventId)) this.stats.skipped_already_applied += 1;
    else this.defer(key, legs[index]!, []);
    await this.applyLegs(event, legs, index + 1);
  }

  /** Older than what is applied, or replacing a Data API twin: one rewind per (wallet, token) and batch, after its other changes. */
  private defer(key: string, leg: Leg, removed: RowRef[]): void {
    const entry = this.deferred.get(key) ?? {
      added: [],
      removed: new Set<string>(),
      twinsOf: new Map<Leg, string[]>(),
      from: placeOf(leg.meta),
    };
    entry.added.push(leg);
    for (const at of [leg.meta, ...removed.map((r) => r.at)]) if (comparePositions(at, entry.from) < 0) entry.from = placeOf(at);
    for (const r of removed) entry.removed.add(r.event_id);
    if (removed.length > 0)
      entry.twinsOf.set(
        leg,
        removed.map((r) => r.event_id),
      );
    this.deferred.set(key, entry);
  }

  async applyDeferred(): Promise<void> {
    await this.loadStoredRows(new Map([...this.deferred].map(([key, entry]) => [key, entry.from])));
    for (const [key, { added, removed, from }] of this.deferred) await this.rewind(key, added, removed, from);
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
      const source = (await this.liveRows(link.key, link.at)).find((r) => r.event_id === link.eventId);
      if (!source) continue;
      // The event's rows on every key share its place.
      const at = rowPosition(source);
      const linked = await linkedOf(source, this.linkedReads);
      if (!linked) continue;
      const before = (key: string) => linked.before.get(key) ?? EMPTY_STATE;
      for (const leg of this.legsOf(linked.event, before)) {
        const key = keyOf(leg.meta.wallet, leg.assetId);
        const row = linked.rows.get(key);
        if (row && sameInput(leg, row)) continue;
        this.relinkRewinds += 1;
        this.stats.relinked_rewinds += 1;
        await this.rewind(key, [leg], new Set([link.eventId]), at, link.depth);
      }
    }
  }

  /** The (wallet, token)s with a row of a conversion or redemption: stored ones, and those this batch wrote. */
  private async keysOfGroup(wallet: string, eventId: string): Promise<string[]> {
    const keys = new Set((await readEventTokens(this.store, wallet, eventId)).map((assetId) => keyOf(wallet, assetId)));
    for (const key of this.groupKeys.get(`${wallet}|${eventId}`) ?? []) keys.add(key);
    return [...keys];
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
    const row = ledgerRow(leg, rev, 1, rev, effect, effect.state, this.isoOf);
    this.rows.push(row);
    this.pendingRows(key).push(row);
    // A literal, not a spread of effect.state: this runs once per change.
    this.states.set(key, { qty: effect.state.qty, cost: effect.state.cost, openedMs: effect.state.openedMs, rev, last: leg.meta });
    this.stats.applied += 1;
  }

  /**
   * Re-derives a (wallet, token) from the earliest change affected: cancels the live rows from there
   * on and replays them (without `removed`, with `added`) in order. `bound` is at or before every
   * added leg and removed row: the rows before it are not read, but the newest of them.
   */
  private async rewind(key: string, added: Leg[], removed: Set<string>, bound: LedgerPosition | null, depth = 0): Promise<void> {
    this.stats.rewinds += 1;
    const live = (await this.liveRows(key, bound)).sort(compareRows);
    const removedRows = live.filter((r) => removed.has(r.event_id));
    const starts = [...removedRows.map(rowPosition), ...added.map((leg) => leg.meta)];
    if (starts.length === 0) return;
    const from = starts.reduce((a, b) => (comparePositions(a, b) <= 0 ? a : b));
    const before = live.filter((r) => comparePositions(rowPosition(r), from) < 0);
    const after = live.filter((r) => comparePositions(rowPosition(r), from) >= 0);
    // The live rows read start at the stored rows' bound; the newest one before it was read alone.
    const baseRow = before.at(-1) ?? this.stored.get(key)?.base ?? undefined;
    const base: PositionState = baseRow
      ? { qty: BigInt(baseRow.qty_after), cost: BigInt(baseRow.cost_after), openedMs: Date.parse(baseRow.opened_at) || 0 }
      : EMPTY_STATE;
    // A key the batch has no state of (a re-pricing reaches keys of no event in it) numbers on from its stored rows.
    let rev = topRev(this.pending.get(key) ?? [], Math.max(this.stored.get(key)?.rev ?? 0, this.stateOf(key).rev));
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
          this.queueRelink(leg.meta.eventId, key, depth + 1, placeOf(leg.meta));
      }
      if (!isSourceLeg(leg)) continue;
      const row = this.pendingRows(key).at(-1)!;
      if (removedBefore.get(row.event_id) !== BigInt(row.cash) - BigInt(row.realized))
        this.queueRelink(row.event_id, key, depth + 1, rowPosition(row));
    }
    this.states.set(key, { ...state, rev: Math.max(state.rev, rev) });
  }

  /** A transfer leaving a sender that held fewer shares than it sent, applied for the first time. */
  private noteUncovered(key: string, leg: Leg): void {
    if (leg.kind !== 'transfer_out') return;
    const row = this.pendingRows(key).at(-1)!;
    if (-BigInt(row.qty_delta) < BigInt(row.in_qty)) this.stats.transfers_uncovered += 1;
  }

  /** `at` is the event's place (null: not known, so its key's rows are read from the first). */
  private queueRelink(eventId: string, key: string, depth: number, at: LedgerPosition | null): void {
    const id = `${eventId}|${key}`;
    if (this.relinkQueued.has(id)) return;
    this.relinkQueued.add(id);
    this.relinks.push({ eventId, key, depth, at });
  }

  /**
   * Stored rows of these (wallet, token)s from each one's bound on (null: all), read once per batch
   * and again only for an earlier bound. A key's bound only moves back, so the rows a rewind of this
   * batch cancelled are always among those read.
   */
  private async loadStoredRows(wanted: ReadonlyMap<string, LedgerPosition | null>): Promise<void> {
    const missing: string[] = [];
    const bounds = new Map<string, LedgerPosition>();
    for (const [key, from] of wanted) {
      const have = this.stored.get(key);
      if (have && covers(have.from, from)) continue;
      const known = this.rowCache.get(key) ?? (this.neverStored.has(key) ? NEVER_STORED : undefined);
      if (!have && known && covers(known.from, from)) {
        this.stored.set(key, known);
        this.stats.stored_rows_cached += 1;
        continue;
      }
      missing.push(key);
      if (from !== null) bounds.set(key, from);
    }
    if (missing.length === 0) return;
    const started = performance.now();
    const read = await readStoredRows(this.store, missing, bounds);
    this.stats.stored_row_reads += 1;
    this.stats.stored_row_read_ms += performance.now() - started;
    for (const [key, rows] of read) {
      this.stored.set(key, rows);
      this.stats.stored_rows_read += rows.live.length + (rows.base ? 1 : 0);
    }
  }

  /** The live rows of a (wallet, token) from `from` on at least (null: all), stored (as read: from their bound on) and of this batch. */
  private async liveRows(key: string, from: LedgerPosition | null): Promise<LedgerRow[]> {
    await this.loadStoredRows(new Map([[key, from]]));
    const stored = this.stored.get(key)?.live ?? [];
    const pending = this.pending.get(key);
    if (!pending?.some((r) => Number(r.sign) < 0)) return pending ? [...stored, ...pending] : [...stored];
    return liveOf([...stored, ...pending]);
  }

  /** ISO text of a time, once per batch: a block's fills share its time, a position's rows their opening. */
  private readonly isoOf = (ms: number): string => {
    let text = this.isoTexts.get(ms);
    if (text === undefined) {
      text = iso(ms);
      this.isoTexts.set(ms, text);
    }
    return text;
  };

  /** The legs of one event, one per token it changes; `stateOf` gives each key's state just before it (by default the batch's now). */
  private legsOf(e: LedgerEvent, stateOf: (key: string) => PositionState = this.currentState): Leg[] {
    switch (e.kind) {
      case 'fill':
        return [fillLeg(e)];
      case 'split':
      case 'merge':
        return completeSetLegs(e, this.markets.get(e.marketId));
      case 'redemption': {
        const market = this.markets.get(e.marketId);
        const priced = redemptionLegs(e, market, stateOf);
        this.stats.unresolved_legs += priced.unresolved;
        if (priced.unpriced)
          this.unpriced.set(
            `${e.wallet}|${e.eventId}`,
            market?.payout && priced.unpriced.priced === 2 ? { ...priced.unpriced, payout: formatPayout(market.payout) } : priced.unpriced,
          );
        return priced.legs;
      }
      case 'conversion':
        return conversionLegs(e, questionsOf(e, this.negRisk), stateOf);
      case 'transfer':
        return transferLegs(e, stateOf);
      default:
        return [];
    }
  }

  /** The (wallet, token)s an event changes (after prepare loaded the batch's markets). */
  private keysOf(e: LedgerEvent): string[] {
    let keys = this.eventKeys.get(e);
    if (keys === undefined) {
      keys = keysOfEvent(e, this.markets, this.negRisk);
      this.eventKeys.set(e, keys);
    }
    return keys;
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
    const heads = await readHeads(this.store, missing);
    for (const key of missing) if (!heads.has(key)) this.neverStored.add(key);
    for (const [key, state] of heads) this.states.set(key, state);
    this.stats.state_lookup_ms += performance.now() - started;
  }

  private async loadMarkets(ids: string[]): Promise<void> {
    for (const [id, market] of await readMarkets(this.store, ids, this.known)) this.markets.set(id, market);
  }

  private async loadNegRisk(ids: string[]): Promise<void> {
    for (const [id, questions] of await readNegRiskQuestions(this.store, ids)) this.negRisk.set(id, questions);
  }
}
