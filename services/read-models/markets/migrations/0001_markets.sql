-- Latest upstream view of every market. ReplacingMergeTree keeps the newest version per market;
-- readers use FINAL (a few hundred thousand rows at most).
CREATE TABLE IF NOT EXISTS markets
(
    market_id          String,
    gamma_id           String,
    slug               String,
    title              String,
    category           LowCardinality(String),
    event_id           String,
    event_slug         String,
    event_title        String,
    outcomes           Array(String),
    outcome_token_ids  Array(String),
    outcome_prices     Array(Float64),
    yes_index          UInt8,
    status             LowCardinality(String),
    resolved_outcome   Nullable(String),
    volume_total_usdc  Float64,
    volume_24h_usdc    Float64,
    liquidity_usdc     Float64,
    best_bid           Nullable(Float64),
    best_ask           Nullable(Float64),
    last_trade_price   Nullable(Float64),
    neg_risk           Bool,
    start_date         Nullable(DateTime64(3, 'UTC')),
    end_date           Nullable(DateTime64(3, 'UTC')),
    closed_at          Nullable(DateTime64(3, 'UTC')),
    created_at         Nullable(DateTime64(3, 'UTC')),
    updated_at         DateTime64(3, 'UTC'),
    source             LowCardinality(String),
    ingested_at        DateTime64(3, 'UTC'),
    INDEX slug_idx slug TYPE bloom_filter GRANULARITY 1
)
ENGINE = ReplacingMergeTree(ingested_at)
ORDER BY market_id
SETTINGS non_replicated_deduplication_window = 1000;
