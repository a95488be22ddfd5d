/** ChainLedgerEvent / ChainConditionResolved -> rows (columns in migrations/0022, 0024, 0026), and the filter that keeps each event to one row. */
import type { ChainConditionResolved, ChainLedgerEvent } from '../../events/types.generated.js';
import type { AnalyticsStore } from '../../ports/analytics-store.js';
import { iso } from '../../shared/time.js';

export function ledgerRow(e: ChainLedgerEvent) {
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
 * The candle views count every row they are handed, so an event must reach chain_ledger once: drop
 * events already stored (a redelivered batch, or a follower re-publishing after a crash). Stored means
 * the same id in the same block: after a reorg the same transaction can sit at the same log index of
 * the replacing block, and that replacement is new (its orphaned twin is deleted by the retraction).
 * The block-time bounds let ClickHouse prune to the parts that can hold them.
 */
export async function unseenLedgerEvents(store: AnalyticsStore, events: ChainLedgerEvent[]): Promise<ChainLedgerEvent[]> {
  const unique = [...new Map(events.map((e) => [`${e.event_id}|${e.block_hash}`, e])).values()];
  if (unique.length === 0) return unique;
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const e of unique) {
    from = Math.min(from, e.block_time_ms);
    to = Math.max(to, e.block_time_ms);
  }
  const known = await store.query<{ event_id: string; block_hash: string }>(
    `SELECT event_id, block_hash FROM chain_ledger
      WHERE block_time BETWEEN fromUnixTimestamp64Milli({from:Int64}) AND fromUnixTimestamp64Milli({to:Int64})
        AND event_id IN {ids:Array(String)}`,
    { from, to, ids: [...new Set(unique.map((e) => e.event_id))] },
  );
  const knownKeys = new Set(known.map((row) => `${row.event_id}|${row.block_hash}`));
  return unique.filter((e) => !knownKeys.has(`${e.event_id}|${e.block_hash}`));
}
