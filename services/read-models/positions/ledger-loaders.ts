/**
 * What a ledger batch reads from the store: markets and their payouts, neg-risk questions, the
 * states and stored rows of (wallet, token)s, and the stored records a batch's events replace or
 * retract. Reads only; the batch decides what to read and keeps what it read.
 */
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { type ConversionQuestion, comparePositions, type LedgerPosition } from './ledger-events.js';
import type { PositionState } from './ledger-math.js';
import type { MarketInfo, Payout } from './ledger-legs.js';
import { alignedPayout, type CatalogPayout, payoutOfNumerators, payoutOfPrices } from './ledger-payouts.js';
import { LEDGER_COLUMNS, LEDGER_TABLE, type LedgerRow, normalizeStored, rowPosition, type StoredRows } from './ledger-rows.js';

/** The state of a (wallet, token) with its revision and the position of its last change. */
export interface KeyState extends PositionState {
  rev: number;
  last: LedgerPosition | null;
}

/** A stored row's identity: the (wallet, token) and the event it applied, with its place in the key's order (a row of this batch: its leg's). */
export interface RowRef {
  wallet: string;
  asset_id: string;
  event_id: string;
  at: LedgerPosition;
}

/** The columns of a row's place (rowRef makes them a position). */
const PLACE = 'toUnixTimestamp64Milli(time) AS time_ms, block_number, log_index';

type PlacedRow = Omit<RowRef, 'at'> & { time_ms: string; block_number: string; log_index: string };
const rowRef = <T extends PlacedRow>({
  time_ms,
  block_number,
  log_index,
  ...r
}: T): Omit<T, 'time_ms' | 'block_number' | 'log_index'> & { at: LedgerPosition } => ({
  ...r,
  at: { timeMs: Number(time_ms), block: Number(block_number), logIndex: Number(log_index), eventId: r.event_id },
});

/** The payouts this ledger has read from its streams, before the sink's tables may hold them. */
export interface KnownPayouts {
  chain: ReadonlyMap<string, Payout>;
  catalog: ReadonlyMap<string, CatalogPayout>;
}

/** A market's outcomes and token ids, with its payout as the chain and as the catalog know it. */
export interface MarketPayouts {
  outcomes: string[];
  tokenIds: string[];
  chain: Payout | null;
  catalog: Payout | null;
}

/**
 * Each market's payout from the chain (chain_resolutions, else a resolution this ledger read that the
 * sink may not have stored yet) and from the catalog (a resolution this ledger read, else the markets
 * table's prices of a resolved or voided market).
 */
export async function readPayouts(store: AnalyticsStore, ids: string[], known: KnownPayouts): Promise<Map<string, MarketPayouts>> {
  const payouts = new Map<string, MarketPayouts>();
  if (ids.length === 0) return payouts;
  const rows = await store.query<{
    market_id: string;
    outcomes: string[];
    outcome_token_ids: string[];
    status: string;
    outcome_prices: number[];
  }>(`SELECT market_id, outcomes, outcome_token_ids, status, outcome_prices FROM markets FINAL WHERE market_id IN {ids:Array(String)}`, {
    ids,
  });
  const resolutions = await store.query<{ market_id: string; numerators: string[] }>(
    `SELECT market_id, argMax(payout_numerators, ingested_at) AS numerators FROM chain_resolutions FINAL
      WHERE market_id IN {ids:Array(String)} AND NOT retracted GROUP BY market_id`,
    { ids },
  );
  const onChain = new Map(resolutions.map((r) => [r.market_id, r.numerators.map((n) => BigInt(n))]));
  const catalogRows = new Map(rows.map((r) => [r.market_id, r]));
  for (const id of ids) {
    const m = catalogRows.get(id);
    const numerators = onChain.get(id);
    const tokenIds = m?.outcome_token_ids ?? [];
    const read = known.catalog.get(id);
    payouts.set(id, {
      outcomes: m?.outcomes ?? [],
      tokenIds,
      chain: (numerators ? payoutOfNumerators(numerators) : null) ?? known.chain.get(id) ?? null,
      catalog: read
        ? alignedPayout(read, tokenIds)
        : m?.status === 'resolved' || m?.status === 'voided'
          ? payoutOfPrices(m.outcome_prices.map(Number))
          : null,
    });
  }
  return payouts;
}

/** Each market's outcomes, token ids and payout: the chain's when known, else the catalog's (readPayouts). */
export async function readMarkets(store: AnalyticsStore, ids: string[], known: KnownPayouts): Promise<Map<string, MarketInfo>> {
  const markets = new Map<string, MarketInfo>();
  for (const [id, m] of await readPayouts(store, ids, known))
    markets.set(id, {
      outcomes: m.outcomes,
      tokenIds: m.tokenIds,
      payout: m.chain ?? m.catalog,
      catalogPayout: !m.chain && m.catalog !== null,
    });
  return markets;
}

/**
 * The catalog's questions of each neg-risk market (by lowercase id), in question index order: the
 * index is the low byte of its question id.
 */
export async function readNegRiskQuestions(store: AnalyticsStore, ids: string[]): Promise<Map<string, ConversionQuestion[]>> {
  const questions = new Map<string, ConversionQuestion[]>();
  if (ids.length === 0) return questions;
  const rows = await store.query<{
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
    const list = questions.get(r.neg_risk_market_id.toLowerCase()) ?? [];
    list.push({
      index: Number.parseInt(r.question_id.slice(-2), 16),
      marketId: r.market_id,
      yesToken: r.outcome_token_ids[yesIndex]!,
      noToken: r.outcome_token_ids[1 - yesIndex]!,
      outcomes: r.outcomes,
      yesIndex,
    });
    questions.set(r.neg_risk_market_id.toLowerCase(), list);
  }
  // By question index: the catalog's rows come in no order, and a conversion's legs are priced in
  // index order (its collateral and fee on the first converted question, the YES cost's remainder on
  // the first other one), the order of the chain's questions on first application.
  for (const list of questions.values()) list.sort((a, b) => a.index - b.index);
  return questions;
}

/**
 * The stored states of these (wallet, token)s; a key with none has never been stored. From
 * position_head, the key-value copy of position_state's newest rows (migrations/0060): a point get
 * per key, where position_state costs a granule per part per key.
 */
export async function readHeads(store: AnalyticsStore, keys: string[]): Promise<Map<string, KeyState>> {
  const states = new Map<string, KeyState>();
  for (let i = 0; i < keys.length; i += 2_000) {
    const rows = await store.query<{
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
      { keys: keys.slice(i, i + 2_000) },
    );
    for (const r of rows) {
      states.set(r.key, {
        qty: BigInt(r.qty),
        cost: BigInt(r.cost),
        openedMs: Number(r.opened_ms),
        rev: Number(r.rev),
        last: { timeMs: Number(r.time_ms), block: Number(r.block_number), logIndex: Number(r.log_index), eventId: r.event_id },
      });
    }
  }
  return states;
}

/** position_ledger's columns as a rewind reads them: its times as epoch ms (normalizeStored makes them ISO text again). */
const STORED_COLUMNS = [
  ...LEDGER_COLUMNS.filter((c) => c !== 'time' && c !== 'opened_at'),
  'toUnixTimestamp64Milli(time) AS time_ms',
  'toUnixTimestamp64Milli(opened_at) AS opened_ms',
].join(', ');

/**
 * The stored rows of each of these (wallet, token)s that a rewind from `bounds.get(key)` on needs (a
 * key without a bound: all of them): its live rows at or after the bound, by revision, the newest live
 * row before it (the state the rewind starts from), and its highest revision (a key with no rows:
 * revision 0). Dead rows (cancels and the rows they cancel: an anti-join on the cancels' of_rev) and
 * live rows before the newest one under the bound are left in the store, so a rewind of a key's newest
 * changes costs those changes, not the key's whole history.
 */
export async function readStoredRows(
  store: AnalyticsStore,
  keys: string[],
  bounds: ReadonlyMap<string, LedgerPosition> = new Map(),
): Promise<Map<string, StoredRows>> {
  const stored = new Map<string, StoredRows>();
  for (let i = 0; i < keys.length; i += 1_000) {
    const chunk = keys.slice(i, i + 1_000);
    // Each key's bound as a time (0: none); rows of the bound's own millisecond are sorted out here.
    const params = {
      wallets: [...new Set(chunk.map((k) => k.split('|')[0]!))],
      keys: chunk,
      bounds: chunk.map((k) => bounds.get(k)?.timeMs ?? 0),
    };
    const ofKeys = `wallet IN {wallets:Array(String)} AND concat(wallet, '|', asset_id) IN {keys:Array(String)}`;
    // transform looks a key up in a hash table built once (indexOf would scan the keys for every row).
    const boundOf = `transform(concat(wallet, '|', asset_id), {keys:Array(String)}, {bounds:Array(Int64)}, toInt64(0))`;
    // Live rows on one side of the bound: a cancel is a copy of the row it cancels (its time too), so
    // only the cancels on the same side are read.
    const live = (side: string) => `${ofKeys} AND sign > 0 AND toUnixTimestamp64Milli(time) ${side} ${boundOf}
      AND (wallet, asset_id, rev) NOT IN (SELECT wallet, asset_id, of_rev FROM ${LEDGER_TABLE}
                                           WHERE ${ofKeys} AND sign < 0 AND toUnixTimestamp64Milli(time) ${side} ${boundOf})`;
    const revs = await store.query<{ key: string; rev: string }>(
      `SELECT concat(wallet, '|', asset_id) AS key, toString(max(rev)) AS rev FROM ${LEDGER_TABLE} WHERE ${ofKeys} GROUP BY key`,
      params,
    );
    for (const key of chunk) {
      const from = bounds.get(key) ?? null;
      stored.set(key, { live: [], base: null, from, rev: 0 });
    }
    for (const r of revs) {
      const entry = stored.get(r.key);
      if (entry) entry.rev = Number(r.rev);
    }
    const read = (sql: string) => store.query<LedgerRow & { key: string }>(sql, params);
    const after = await read(
      `SELECT ${STORED_COLUMNS}, concat(wallet, '|', asset_id) AS key FROM ${LEDGER_TABLE}
        WHERE ${live('>=')} ORDER BY wallet, asset_id, rev`,
    );
    const under =
      bounds.size === 0
        ? []
        : await read(
            `SELECT ${STORED_COLUMNS}, concat(wallet, '|', asset_id) AS key FROM ${LEDGER_TABLE}
        WHERE ${live('<')}
        ORDER BY wallet, asset_id, time DESC, block_number DESC, log_index DESC, event_id DESC LIMIT 1 BY wallet, asset_id`,
          );
    for (const { key, ...raw } of [...under, ...after]) {
      const entry = stored.get(key);
      if (!entry) continue;
      const row = normalizeStored(raw as LedgerRow);
      if (entry.from === null || comparePositions(rowPosition(row), entry.from) >= 0) entry.live.push(row);
      else if (!entry.base || comparePositions(rowPosition(row), rowPosition(entry.base)) > 0) entry.base = row;
    }
  }
  return stored;
}

/** The live chain rows of these transactions (a Data API record of one of them is covered by the chain). */
export function readChainRows(store: AnalyticsStore, txs: string[]): Promise<Array<{ wallet: string; asset_id: string; tx_hash: string }>> {
  return store.query(
    `SELECT wallet, asset_id, tx_hash FROM ${LEDGER_TABLE} WHERE origin = 'chain' AND tx_hash IN {txs:Array(String)}
      GROUP BY wallet, asset_id, tx_hash, event_id, rev HAVING sum(sign) > 0`,
    { txs },
  );
}

/** The live Data API rows of these transactions (replaced by the chain's records of them). */
export async function readDataApiRows(store: AnalyticsStore, txs: string[]): Promise<Array<RowRef & { tx_hash: string }>> {
  const rows = await store.query<PlacedRow & { tx_hash: string }>(
    `SELECT wallet, asset_id, tx_hash, event_id, ${PLACE} FROM ${LEDGER_TABLE}
      WHERE origin = 'data_api' AND tx_hash IN {txs:Array(String)}
      GROUP BY wallet, asset_id, tx_hash, event_id, of_rev, time, block_number, log_index HAVING sum(sign) > 0`,
    { txs },
  );
  return rows.map(rowRef);
}

/** The live rows of these retracted blocks (`block hash|ledger group`), each with the one it belongs to as `voided`. */
export async function readRetractedRows(store: AnalyticsStore, voided: string[]): Promise<Array<RowRef & { voided: string }>> {
  const rows = await store.query<PlacedRow & { voided: string }>(
    `SELECT wallet, asset_id, event_id, concat(block_hash, '|', ledger_group) AS voided, ${PLACE} FROM ${LEDGER_TABLE}
      WHERE concat(block_hash, '|', ledger_group) IN {voided:Array(String)}
      GROUP BY wallet, asset_id, event_id, voided, of_rev, time, block_number, log_index HAVING sum(sign) > 0`,
    { voided },
  );
  return rows.map(rowRef);
}

/** The tokens a wallet has a stored row of an event on (a conversion's or redemption's legs). */
export async function readEventTokens(store: AnalyticsStore, wallet: string, eventId: string): Promise<string[]> {
  const rows = await store.query<{ asset_id: string }>(
    `SELECT DISTINCT asset_id FROM ${LEDGER_TABLE} WHERE wallet = {wallet:String} AND event_id = {eventId:String}`,
    { wallet, eventId },
  );
  return rows.map((r) => r.asset_id);
}
