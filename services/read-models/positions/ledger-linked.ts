/**
 * Transfers, conversions and redemptions rebuilt from their rows, for a re-pricing: their legs on one
 * key are priced from what another key's leg took out or held (docs/POSITIONS.md), so a rewind that
 * changed that leg prices the event's legs again from the states its keys had just before it.
 */
import { feeBipsFor } from '../../chain/conversion-evidence.js';
import type { ConversionQuestion, LedgerEvent, LedgerPosition } from './ledger-events.js';
import { maxBig, type PositionState } from './ledger-math.js';
import { keyOf, type MarketInfo } from './ledger-legs.js';
import { type LedgerRow, metaOfRow, rowPosition, stateBefore } from './ledger-rows.js';

/** A transfer, conversion or redemption rebuilt from its rows: its rows per key and each key's state just before it. */
export interface Linked {
  event: LedgerEvent;
  rows: Map<string, LedgerRow>;
  before: Map<string, PositionState>;
}

/** What a rebuild reads: a key's live rows (stored and of the batch), the keys of an event's rows, markets and catalog questions. */
export interface LinkedReads {
  /** A key's live rows from `from` on at least (null: all). */
  liveRows(key: string, from: LedgerPosition | null): Promise<LedgerRow[]>;
  loadStoredRows(keys: string[], from: LedgerPosition | null): Promise<void>;
  keysOfGroup(wallet: string, eventId: string): Promise<string[]>;
  market(marketId: string): Promise<MarketInfo | undefined>;
  negRiskQuestions(negRiskMarketId: string): Promise<ConversionQuestion[]>;
}

/** The event a source row (a transfer's sender, a conversion's NO leg, a redemption's leg) belongs to, rebuilt; null when it cannot be. */
export function linkedOf(source: LedgerRow, reads: LinkedReads): Promise<Linked | null> {
  return source.kind === 'transfer_out'
    ? transferOfRow(source, reads)
    : source.kind === 'redemption'
      ? redemptionOfRow(source, reads)
      : conversionOfRow(source, reads);
}

/** A transfer rebuilt from its sender's row, with its rows and each key's state just before it. */
async function transferOfRow(source: LedgerRow, reads: LinkedReads): Promise<Linked | null> {
  if (source.counterparty === '') return null;
  const receiverKey = keyOf(source.counterparty, source.asset_id);
  const received = (await reads.liveRows(receiverKey, rowPosition(source))).find((r) => r.event_id === source.event_id);
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
async function conversionOfRow(source: LedgerRow, reads: LinkedReads): Promise<Linked | null> {
  const { rows, before } = await groupRows(source, reads, (row) => row.action === 'buy' || row.action === 'sell_at_cost');
  const indexOf = await questionIndices(source.ledger_group, [...rows.values()], reads);
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
async function redemptionOfRow(source: LedgerRow, reads: LinkedReads): Promise<Linked | null> {
  if (source.action !== 'sell_all') return null;
  const { rows, before } = await groupRows(source, reads, (row) => row.kind === 'redemption' && row.action === 'sell_all');
  const tokenIds = [...((await reads.market(source.market_id))?.tokenIds ?? [])];
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

/** The wallet's live rows of a conversion's or redemption's event that `keep` accepts, per key, with each key's state before it. */
async function groupRows(
  source: LedgerRow,
  reads: LinkedReads,
  keep: (row: LedgerRow) => boolean,
): Promise<Pick<Linked, 'rows' | 'before'>> {
  const keys = await reads.keysOfGroup(source.wallet, source.event_id);
  // The event's rows on every key share its place.
  await reads.loadStoredRows(keys, rowPosition(source));
  const rows = new Map<string, LedgerRow>();
  const before = new Map<string, PositionState>();
  for (const key of keys) {
    const row = (await reads.liveRows(key, rowPosition(source))).find((r) => r.event_id === source.event_id);
    if (!row || !keep(row)) continue;
    rows.set(key, row);
    before.set(key, stateBefore(row));
  }
  return { rows, before };
}

/**
 * Each conversion row's question index: the row's own, or for a row stored before migrations/0074,
 * the markets table's, failing that one after every known index (by token id): the index orders the
 * legs (the fee and collateral on the first NO leg, the YES cost's remainder on the first YES leg).
 */
async function questionIndices(negRiskMarketId: string, rows: LedgerRow[], reads: LinkedReads): Promise<(r: LedgerRow) => number> {
  const own = (r: LedgerRow) => Number(r.question_index ?? -1);
  const unindexed = rows.filter((r) => own(r) < 0);
  if (unindexed.length === 0) return own;
  const listed = new Map<string, number>();
  for (const q of await reads.negRiskQuestions(negRiskMarketId)) listed.set(q.yesToken, q.index).set(q.noToken, q.index);
  const unlisted = unindexed
    .map((r) => r.asset_id)
    .filter((asset) => !listed.has(asset))
    .sort();
  return (r) => (own(r) >= 0 ? own(r) : (listed.get(r.asset_id) ?? 256 + unlisted.indexOf(r.asset_id)));
}
