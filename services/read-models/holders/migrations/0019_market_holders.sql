-- Top holders per outcome token at each poll (topic tapeline.holders.v1): rank 1 = largest; amount in shares.
CREATE TABLE IF NOT EXISTS market_holders
(
    market_id      String,
    asset_id       String,
    wallet         String,
    outcome_index  Int16,
    amount         Float64,
    rank           UInt16,
    snapshot_at    DateTime64(3, 'UTC'),
    source         LowCardinality(String),
    ingested_at    DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(snapshot_at)
ORDER BY (market_id, snapshot_at, asset_id, wallet)
SETTINGS non_replicated_deduplication_window = 1000;
