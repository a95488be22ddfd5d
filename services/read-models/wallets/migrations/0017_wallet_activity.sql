-- Data API /activity of tracked wallets (topic tapeline.wallet-activity.v1): TRADE, SPLIT, MERGE,
-- REDEEM, REWARD, CONVERSION, MAKER_REBATE, TAKER_REBATE. size in shares, usdc_size in USDC;
-- non-trade rows have side '', asset_id '', outcome_index 999; rewards may have market_id ''.
CREATE TABLE IF NOT EXISTS wallet_activity
(
    activity_id    String,
    wallet         String,
    market_id      String,
    type           LowCardinality(String),
    asset_id       String,
    side           LowCardinality(String),
    outcome        String,
    outcome_index  UInt16,
    size           Float64,
    usdc_size      Float64,
    price          Float64,
    tx_hash        String,
    ts             DateTime64(3, 'UTC'),
    source         LowCardinality(String),
    ingested_at    DateTime64(3, 'UTC'),
    INDEX market_idx market_id TYPE bloom_filter GRANULARITY 1
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (wallet, ts, activity_id)
SETTINGS non_replicated_deduplication_window = 1000;
