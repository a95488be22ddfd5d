-- Open positions of tracked wallets, one row per (wallet, token) per poll (topic tapeline.positions.v1).
-- Latest: SELECT ... FROM wallet_positions WHERE wallet = ... AND snapshot_at = (SELECT max(snapshot_at) FROM wallet_positions WHERE wallet = ...)
CREATE TABLE IF NOT EXISTS wallet_positions
(
    wallet              String,
    market_id           String,
    asset_id            String,
    outcome             String,
    outcome_index       Int16,
    size                Float64,
    avg_price           Float64,
    initial_value_usdc  Float64,
    current_value_usdc  Float64,
    cash_pnl_usdc       Float64,
    realized_pnl_usdc   Float64,
    total_bought        Float64,
    cur_price           Float64,
    redeemable          Bool,
    mergeable           Bool,
    neg_risk            Bool,
    snapshot_at         DateTime64(3, 'UTC'),
    source              LowCardinality(String),
    ingested_at         DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(snapshot_at)
ORDER BY (wallet, snapshot_at, asset_id)
SETTINGS non_replicated_deduplication_window = 1000;
