-- Every taker fill once (one row per upstream match). The sink drops ids already stored before it
-- inserts, so the candle views below never see a trade twice; ReplacingMergeTree on the same key is
-- the second safety net for the raw table itself.
CREATE TABLE IF NOT EXISTS trades
(
    trade_id      String,
    market_id     String,
    market_title  String,
    asset_id      String,
    wallet        String,
    side          LowCardinality(String),
    outcome       String,
    outcome_index UInt8,
    price         Float64,
    yes_price     Float64,
    size          Float64,
    size_usdc     Float64,
    ts            DateTime64(3, 'UTC'),
    tx_hash       String,
    source        LowCardinality(String),
    ingested_at   DateTime64(3, 'UTC'),
    INDEX wallet_idx wallet TYPE bloom_filter GRANULARITY 1,
    INDEX market_idx market_id TYPE bloom_filter GRANULARITY 1,
    INDEX trade_idx trade_id TYPE bloom_filter GRANULARITY 1
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (ts, trade_id)
SETTINGS non_replicated_deduplication_window = 1000;
