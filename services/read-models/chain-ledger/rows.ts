/** ChainLedgerEvent / ChainConditionResolved -> rows (columns in migrations/0022, 0024, 0026), and the filter that keeps each event to one row. */
import type { ChainConditionResolved, ChainLedgerEvent } from '../../events/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { iso } from '../../shared/time.js';
import type { LogPosition, Positioned } from '../read-model.js';
import { splitStored } from '../stored-events.js';

/** An event's row; `at` (where it sits in the ledger topic) is kept for `unseen`, absent where no log is read. */
export function ledgerRow(e: ChainLedgerEvent, at?: LogPosition) {
  const fill = e.fill;
  const change = e.position_change;
  const conversion = e.conversion;
  const transfer = e.transfer;
  return {
    event_id: e.event_id,
    source: e.source,
    kind: e.kind,
    chain_id: e.chain_id,
    block_number: e.block_number,
    block_hash: e.block_hash,
    block_time: iso(e.block_time_ms),
    tx_hash: e.tx_hash,
    log_index: e.log_index,
    contract: e.contract,
    ledger_group: e.ledger_group,
    market_id: e.market_id,
    market_title: e.market_title,
    neg_risk: e.neg_risk,
    wallet: e.wallet,
    via: e.via,
    role: fill?.role ?? '',
    side: fill?.side ?? '',
    asset_id: fill?.asset_id ?? transfer?.asset_id ?? '',
    outcome: fill?.outcome ?? transfer?.outcome ?? '',
    outcome_index: fill?.outcome_index ?? transfer?.outcome_index ?? -1,
    // Decimal strings into UInt64 columns: exact (a JS number is not past 2^53).
    shares_micro: fill?.shares_micro ?? transfer?.shares_micro ?? '0',
    usdc_micro: fill?.usdc_micro ?? '0',
    fee_micro: fill?.fee_micro ?? '0',
    fee_asset: fill?.fee_asset ?? '',
    price: fill?.price ?? 0,
    yes_price: fill?.yes_price ?? 0,
    exchange_version: fill?.exchange_version ?? 0,
    order_hash: fill?.order_hash ?? '',
    // A transfer's receiver (its sender is the wallet).
    counterparty: fill?.counterparty ?? transfer?.to ?? '',
    amount_micro: change?.amount_micro ?? conversion?.amount_micro ?? '0',
    index_sets: change?.index_sets ?? (conversion ? [conversion.index_set] : []),
    redeemed_micro: change?.redeemed_micro ?? [],
    outcome_token_ids: change?.outcome_token_ids ?? [],
    collateral_token: change?.collateral_token ?? '',
    ingested_at: iso(e.ingested_at_ms),
    log_partition: at?.partition ?? -1,
    log_offset: at?.offset ?? -1,
  };
}

export function watermarkRow(e: ChainLedgerEvent) {
  return { source: e.source, ledger_group: e.ledger_group, last_time: iso(e.block_time_ms), last_block: e.block_number };
}

/**
 * The coverage a follower's watermark states (the projection accepts only those). An event without a
 * statement maps to the least a watermark says, its own block read, with no history start known.
 */
export function contiguousRow(e: ChainLedgerEvent) {
  const coverage = e.coverage ?? { from_block: e.block_number, from_time_ms: e.block_time_ms, history_start_block: 0 };
  return {
    source: e.source,
    ledger_group: e.ledger_group,
    from_block: coverage.from_block,
    from_time: iso(coverage.from_time_ms),
    history_start_block: coverage.history_start_block,
    last_block: e.block_number,
    last_time: iso(e.block_time_ms),
  };
}

export function resolutionRow(e: ChainConditionResolved) {
  return {
    event_id: e.event_id,
    source: e.source,
    chain_id: e.chain_id,
    block_number: e.block_number,
    block_hash: e.block_hash,
    block_time: iso(e.block_time_ms),
    tx_hash: e.tx_hash,
    log_index: e.log_index,
    market_id: e.market_id,
    question_id: e.question_id,
    oracle: e.oracle,
    neg_risk_market_id: e.neg_risk_market_id,
    outcome_slot_count: e.outcome_slot_count,
    payout_numerators: e.payout_numerators,
    payouts: e.payouts,
    winning_outcome_index: e.winning_outcome_index,
    retracted: e.retracted,
    ingested_at: iso(e.ingested_at_ms),
  };
}

/**
 * The candle views count every row they are handed, so an event must reach chain_ledger once: events
 * already stored are dropped (a redelivered batch, or a follower re-publishing after a crash), and those
 * stored from the same log position are replayed (read-model.ts `unseen`). Stored means the same id in
 * the same block: after a reorg the same transaction can sit at the same log index of the replacing
 * block, and that replacement is new (its orphaned twin is deleted by the retraction).
 */
export function unseenLedgerEvents(
  store: AnalyticsStore,
  events: ReadonlyArray<Positioned<ChainLedgerEvent>>,
): Promise<{ fresh: ChainLedgerEvent[]; replayed: ChainLedgerEvent[] }> {
  return splitStored(store, events, {
    table: 'chain_ledger',
    idColumn: 'event_id',
    id: (e) => e.event_id,
    keyExpression: "concat(event_id, '|', block_hash)",
    key: (e) => `${e.event_id}|${e.block_hash}`,
    timeColumn: 'block_time',
    timeMs: (e) => e.block_time_ms,
  });
}
