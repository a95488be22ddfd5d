-- Open interest per market at each poll (topic tapeline.open-interest.v1), USDC. Until version 21 this
-- table was created by 0019 with the value in a column named value_usdc; 0021 renames it there.
CREATE TABLE IF NOT EXISTS open_interest
(
    market_id           String,
    open_interest_usdc  Float64,
    snapshot_at         DateTime64(3, 'UTC'),
    source              LowCardinality(String),
    ingested_at         DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(snapshot_at)
ORDER BY (market_id, snapshot_at)
SETTINGS non_replicated_deduplication_window = 1000;
