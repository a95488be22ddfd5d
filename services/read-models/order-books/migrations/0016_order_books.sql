-- Order-book history: every distinct book of a token (topic tapeline.book-snapshots.v1); book_id =
-- asset_id + ':' + upstream hash. Levels best first (bids highest first, asks lowest first), as
-- parallel arrays of price (0..1) and size (shares). origin: clob-rest (REST /books poll or resync),
-- clob-ws (websocket book message), clob-ws-replay (rebuilt locally from price_change deltas).
-- Current book of a token: SELECT * FROM order_books WHERE asset_id = ... ORDER BY ts DESC, ingested_at DESC LIMIT 1
CREATE TABLE IF NOT EXISTS order_books
(
    book_id           String,
    market_id         String,
    asset_id          String,
    hash              String,
    ts                DateTime64(3, 'UTC'),
    bid_prices        Array(Float64),
    bid_sizes         Array(Float64),
    ask_prices        Array(Float64),
    ask_sizes         Array(Float64),
    best_bid          Nullable(Float64),
    best_ask          Nullable(Float64),
    tick_size         Nullable(Float64),
    min_order_size    Nullable(Float64),
    last_trade_price  Nullable(Float64),
    origin            LowCardinality(String),
    source            LowCardinality(String),
    ingested_at       DateTime64(3, 'UTC'),
    INDEX market_idx market_id TYPE bloom_filter GRANULARITY 1
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMMDD(ts)
ORDER BY (asset_id, ts, book_id)
TTL toDateTime(ts) + INTERVAL 30 DAY
SETTINGS non_replicated_deduplication_window = 1000;

-- Level changes from websocket price_change (topic tapeline.book-deltas.v1): side bid|ask, size 0 = level removed;
-- best_bid/best_ask/hash = upstream's book state after the change.
CREATE TABLE IF NOT EXISTS order_book_deltas
(
    delta_id     String,
    market_id    String,
    asset_id     String,
    side         LowCardinality(String),
    price        Float64,
    size         Float64,
    hash         String,
    best_bid     Nullable(Float64),
    best_ask     Nullable(Float64),
    ts           DateTime64(3, 'UTC'),
    source       LowCardinality(String),
    ingested_at  DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toYYYYMMDD(ts)
ORDER BY (asset_id, ts, delta_id)
TTL toDateTime(ts) + INTERVAL 7 DAY
SETTINGS non_replicated_deduplication_window = 1000;
