-- Price observations per outcome token (topic tapeline.price-ticks.v1).
--   kind: last_trade (websocket last_trade_price), midpoint (from a book), best_bid_ask, history (/prices-history backfill)
--   price 0..1 (USDC per share); best_bid/best_ask where known; side/size for last_trade; ts = upstream time.
--   origin: clob-ws | clob-rest | prices-history. tick_id is deterministic, so re-ingestion replaces, never doubles.
-- Latest price of a token: SELECT argMax(price, ts) FROM price_ticks WHERE asset_id = ...
CREATE TABLE IF NOT EXISTS price_ticks
(
    tick_id      String,
    market_id    String,
    asset_id     String,
    kind         LowCardinality(String),
    price        Float64,
    best_bid     Nullable(Float64),
    best_ask     Nullable(Float64),
    side         Nullable(String),
    size         Nullable(Float64),
    ts           DateTime64(3, 'UTC'),
    origin       LowCardinality(String),
    source       LowCardinality(String),
    ingested_at  DateTime64(3, 'UTC'),
    INDEX market_idx market_id TYPE bloom_filter GRANULARITY 1
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMM(ts)
ORDER BY (asset_id, ts, tick_id)
SETTINGS non_replicated_deduplication_window = 1000;
