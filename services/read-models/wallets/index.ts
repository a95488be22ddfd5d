/**
 * Tracked wallets' Data API activity (trades, splits, merges, redemptions, conversions, rewards) and
 * position snapshots; the trader read model uses the conversions for PnL.
 */
import { defineStream } from '../../events/stream.js';
import type { PositionSnapshot, WalletActivity } from '../../events/types.generated.js';
import { iso } from '../../shared/time.js';
import { defineReadModel, migrationsBeside, project } from '../read-model.js';

/** Keyed by market like the rest of market data; rewards carry no market and are keyed by wallet. */
export const walletActivity = defineStream({
  name: 'walletActivity',
  topic: 'tapeline.wallet-activity.v1',
  partitions: 4,
  schema: 'wallet.activity.v1',
  key: (activity) => activity.market_id || activity.wallet,
  time: (activity) => activity.timestamp_ms,
});

const positions = defineStream({
  name: 'positions',
  topic: 'tapeline.positions.v1',
  partitions: 4,
  schema: 'position.snapshot.v1',
  key: (position) => position.market_id || position.wallet,
  time: (position) => position.snapshot_at_ms,
});

function walletActivityRow(e: WalletActivity) {
  return {
    activity_id: e.event_id,
    wallet: e.wallet,
    market_id: e.market_id,
    type: e.type,
    asset_id: e.asset_id,
    side: e.side,
    outcome: e.outcome,
    // UInt16 column: non-trade rows carry the Data API's 999 ("no outcome").
    outcome_index: Math.max(0, Math.min(65_535, e.outcome_index)),
    size: e.size,
    usdc_size: e.usdc_size,
    price: e.price,
    tx_hash: e.tx_hash,
    ts: iso(e.timestamp_ms),
    source: e.source,
    ingested_at: iso(e.ingested_at_ms),
  };
}

function positionRow(e: PositionSnapshot) {
  return {
    wallet: e.wallet,
    market_id: e.market_id,
    asset_id: e.asset_id,
    outcome: e.outcome,
    outcome_index: e.outcome_index,
    size: e.size,
    avg_price: e.avg_price,
    initial_value_usdc: e.initial_value_usdc,
    current_value_usdc: e.current_value_usdc,
    cash_pnl_usdc: e.cash_pnl_usdc,
    realized_pnl_usdc: e.realized_pnl_usdc,
    total_bought: e.total_bought,
    cur_price: e.cur_price,
    redeemable: e.redeemable,
    mergeable: e.mergeable,
    neg_risk: e.neg_risk,
    snapshot_at: iso(e.snapshot_at_ms),
    source: e.source,
    ingested_at: iso(e.ingested_at_ms),
  };
}

export const walletsReadModel = defineReadModel({
  name: 'wallets',
  streams: { walletActivity, positions },
  projections: [
    project(walletActivity, { table: 'wallet_activity', row: walletActivityRow }),
    project(positions, { table: 'wallet_positions', row: positionRow }),
  ],
  migrations: migrationsBeside(import.meta.url),
});
