-- Gamma series (recurring events; topic tapeline.series.v1). Latest version per series; read with FINAL.
CREATE TABLE IF NOT EXISTS gamma_series
(
    series_id        String,
    slug             String,
    ticker           String,
    title            String,
    series_type      LowCardinality(String),
    recurrence       LowCardinality(String),
    active           Bool,
    closed           Bool,
    archived         Bool,
    volume_usdc      Float64,
    volume_24h_usdc  Float64,
    liquidity_usdc   Float64,
    event_ids        Array(String),
    created_at       Nullable(DateTime64(3, 'UTC')),
    updated_at       DateTime64(3, 'UTC'),
    source           LowCardinality(String),
    ingested_at      DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(ingested_at)
ORDER BY series_id
SETTINGS non_replicated_deduplication_window = 1000;
